"""The Plan: a plain, frozen description of one curator action.

A Plan says which files an action writes, deletes or moves (paths relative to the palace root),
what each of those files looked like when the plan was made (a sha256 of the pre-image, so apply
can refuse when the disk changed underneath), and the commit message that records the action.

Nothing here touches git or writes to disk; ``Plan.diff()`` reads the disk to show what would
change.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from curator.config.schema import DEFAULT_INBOX
from curator.errors import WriterError
from curator.model.discovery import in_inbox, inbox_of
from curator.model.text import clean
from curator.writer.diff import file_diff, read_or_none

__all__ = [
    "Change",
    "Delete",
    "Move",
    "Plan",
    "PlanError",
    "Write",
    "WriterError",
    "build_message",
    "content_hash",
    "decode_restore",
    "decode_took",
    "effects",
    "encode_restore",
    "file_hash",
    "normalize_rel",
    "sanitize_line",
    "took_trailers",
]


class PlanError(WriterError, ValueError):
    """A Plan could not be built (bad path, duplicate path, bad action name...)."""


# Paths the writer keeps for itself; a plan may not touch them.
RESERVED = (".curator/journal", ".curator/writer.lock", ".curator/tmp")

_ACTION_RE = re.compile(r"[a-z][a-z0-9-]{0,39}")
_TRAILER_KEY_RE = re.compile(r"[A-Za-z][A-Za-z0-9-]{0,62}")


def content_hash(data: bytes) -> str:
    """sha256 hex digest of ``data`` (the pre-image fingerprint stored in Changes)."""
    return hashlib.sha256(data).hexdigest()


def file_hash(root: Path, rel: str) -> str | None:
    """Hash of the file at ``root/rel`` now, or None when there is no such file."""
    try:
        return content_hash((Path(root) / rel).read_bytes())
    except (FileNotFoundError, NotADirectoryError):
        return None


def normalize_rel(path: str | PurePosixPath) -> str:
    """Return ``path`` as a clean posix path relative to the palace root, or raise PlanError.

    Rejects absolute paths, ``..`` components, empty paths, NUL bytes, anything inside ``.git``
    and the writer's own bookkeeping files under ``.curator/``.
    """
    text = str(path)
    if not text or "\x00" in text:
        raise PlanError(f"invalid path {text!r}: empty or contains a NUL byte")
    if text.startswith(("/", "\\")) or re.match(r"[A-Za-z]:[\\/]", text):
        raise PlanError(f"path {text!r} is absolute; plan paths are relative to the palace root")
    parts = [p for p in text.split("/") if p not in ("", ".")]
    if not parts:
        raise PlanError(f"path {text!r} names the palace root itself, not a file")
    if ".." in parts:
        raise PlanError(f"path {text!r} escapes the palace root ('..' is not allowed)")
    if any(p.lower() == ".git" for p in parts):
        raise PlanError(f"path {text!r} is inside .git; the writer never touches git's own files")
    clean = "/".join(parts)
    for reserved in RESERVED:
        if clean == reserved or clean.startswith(reserved + "/"):
            raise PlanError(f"path {clean!r} is reserved for the writer's journal and lock")
    return clean


def sanitize_line(text: str, *, limit: int = 500) -> str:
    """One line of text safe to put in a commit subject or trailer value.

    Control characters, line and paragraph separators and invisible format characters become
    spaces; runs of whitespace collapse to one space; the result is stripped and cut to ``limit``.
    """
    out = []
    for ch in clean(str(text), keep_newlines=False):  # whole escape sequences go, not just ESC
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn") or ch.isspace():
            out.append(" ")
        else:
            out.append(ch)
    line = " ".join("".join(out).split())
    if len(line) > limit:
        line = line[: limit - 1].rstrip() + "…"
    return line


def _sanitize_body(text: str) -> str:
    """Multi-line text for a commit body: control characters removed, newlines kept."""
    lines = []
    for raw in str(text).replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        lines.append(sanitize_line(raw, limit=10_000))
    body = "\n".join(lines).strip("\n")
    # collapse 3+ blank lines; keep paragraphs
    return re.sub(r"\n{3,}", "\n\n", body)


def _enc(p: str) -> str:
    """A palace path as one trailer word: ``%``, ``=``, spaces and non-printing characters
    percent-encoded; ordinary paths read as themselves."""
    out = []
    for ch in normalize_rel(p):
        if ch in "%=" or unicodedata.category(ch)[0] in "CZ":
            out.append("".join(f"%{b:02X}" for b in ch.encode("utf-8", "surrogatepass")))
        else:
            out.append(ch)
    return "".join(out)


def encode_restore(src: str, dst: str) -> str:
    """Value of a ``Curator-Restore`` trailer: the action moved ``src`` to ``dst`` outside git
    (both git-ignored, e.g. inbox/x.md -> .curator/rejected/x.md); undo moves it back.

    ``%``, ``=``, spaces and non-printing characters are percent-encoded so the value stays one
    line, splits unambiguously and survives git's trimming and curator's collapsing of
    whitespace in trailers; ordinary paths read as themselves.
    """
    return f"{_enc(src)}={_enc(dst)}"


def decode_restore(value: str) -> tuple[str, str]:
    """Inverse of :func:`encode_restore`; raises PlanError on a malformed value."""
    if value.count("=") != 1:
        raise PlanError(f"malformed Curator-Restore trailer {value!r}")
    src, dst = value.strip().split("=")
    return normalize_rel(unquote(src)), normalize_rel(unquote(dst))


TOOK = "Curator-Took"  # a draft's text an action moved out of the inbox: "<sha256>=<path>"
_SHA256 = re.compile(r"[0-9a-f]{64}")


def took_trailers(changes: Iterable[Change], inbox: str) -> list[tuple[str, str]]:
    """One ``Curator-Took`` per draft the changes move out of the inbox (the drafts folder
    `inbox`): which text was taken, not only which name, so a later draft under the same name
    is not taken with it."""
    return [
        (TOOK, f"{ch.before}={_enc(ch.src)}")
        for ch in changes
        if isinstance(ch, Move) and in_inbox(ch.src, inbox)
    ]


def decode_took(value: str) -> tuple[str, str] | None:
    """(draft path, sha256 of its text) of a ``Curator-Took`` value; None when malformed."""
    digest, sep, path = value.strip().partition("=")
    if not sep or not _SHA256.fullmatch(digest):
        return None
    try:
        return normalize_rel(unquote(path)), digest
    except PlanError:
        return None


def build_message(
    action: str,
    summary: str,
    reason: str,
    notes: Sequence[str],
    trailers: Sequence[tuple[str, str]] = (),
) -> str:
    """The full commit message of an action.

    Subject ``"<action>: <summary>"``, a body with the reason, then the trailers that
    ``curator history`` parses: ``Curator-Action``, one ``Curator-Note`` per note,
    ``Curator-Reason`` (one line), then ``trailers`` in order. Every note-derived value is
    sanitized to a single line without control characters.
    """
    subject_tail = sanitize_line(summary, limit=200) or sanitize_line(", ".join(notes), limit=200)
    subject = f"{action}: {subject_tail}" if subject_tail else action
    parts = [subject]
    body = _sanitize_body(reason)
    if body:
        parts.append(body)
    lines = [f"Curator-Action: {action}"]
    lines += [f"Curator-Note: {sanitize_line(n)}" for n in notes if sanitize_line(n)]
    one_line_reason = sanitize_line(reason)
    if one_line_reason:
        lines.append(f"Curator-Reason: {one_line_reason}")
    for key, value in trailers:
        if not _TRAILER_KEY_RE.fullmatch(key):
            raise PlanError(f"invalid trailer key {key!r}")
        clean = sanitize_line(value)
        if clean:
            lines.append(f"{key}: {clean}")
    parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


# --------------------------------------------------------------------------- changes


@dataclass(frozen=True)
class Write:
    """Write ``data`` to ``path``. ``before`` is the sha256 of the file the plan was made against
    (None: the file must not exist yet). ``rendered_at``: for a file rendered from what HEAD
    holds (INDEX.md, another layout's generated index), that commit; apply refuses the write
    once HEAD has moved, as its bytes may no longer be the render (the same bytes on disk do not
    show it: another writer may have installed its files and not yet committed them when the
    plan was made)."""

    path: str
    data: bytes
    before: str | None
    rendered_at: str | None = None
    # the `content_hash` of `data` when its maker hashed it already (INDEX.md's render does,
    # 25 MB at 100k notes); else hashed when asked (`data_hash`)
    data_sha: str | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", normalize_rel(self.path))
        if not isinstance(self.data, bytes | bytearray):
            raise PlanError(f"write of {self.path}: data must be bytes")
        object.__setattr__(self, "data", bytes(self.data))

    def data_hash(self) -> str:
        """The `content_hash` of `data`."""
        return self.data_sha if self.data_sha is not None else content_hash(self.data)

    @classmethod
    def from_disk(cls, root: Path, path: str, data: bytes) -> Write:
        """A write whose expected pre-image is whatever is on disk now."""
        rel = normalize_rel(path)
        return cls(rel, data, file_hash(root, rel))

    def touched(self) -> tuple[str, ...]:
        return (self.path,)


@dataclass(frozen=True)
class Delete:
    """Delete ``path``; ``before`` is the sha256 of the file the plan was made against."""

    path: str
    before: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", normalize_rel(self.path))
        if not self.before:
            raise PlanError(f"delete of {self.path}: the file's pre-image hash is required")

    @classmethod
    def from_disk(cls, root: Path, path: str) -> Delete:
        rel = normalize_rel(path)
        before = file_hash(root, rel)
        if before is None:
            raise PlanError(f"cannot delete {rel}: no such file")
        return cls(rel, before)

    def touched(self) -> tuple[str, ...]:
        return (self.path,)


@dataclass(frozen=True)
class Move:
    """Move ``src`` to ``dst``; with ``data`` the destination gets those bytes instead of the
    source's. ``before`` is the sha256 of ``src``; ``dst_before`` that of ``dst`` (None: ``dst``
    must not exist)."""

    src: str
    dst: str
    before: str
    data: bytes | None = None
    dst_before: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "src", normalize_rel(self.src))
        object.__setattr__(self, "dst", normalize_rel(self.dst))
        if self.src == self.dst:
            raise PlanError(f"move of {self.src} onto itself")
        if not self.before:
            raise PlanError(f"move of {self.src}: the source's pre-image hash is required")
        if self.data is not None:
            object.__setattr__(self, "data", bytes(self.data))

    @classmethod
    def from_disk(cls, root: Path, src: str, dst: str, data: bytes | None = None) -> Move:
        s, d = normalize_rel(src), normalize_rel(dst)
        before = file_hash(root, s)
        if before is None:
            raise PlanError(f"cannot move {s}: no such file")
        return cls(s, d, before, data, file_hash(root, d))

    def touched(self) -> tuple[str, ...]:
        return (self.src, self.dst)


Change = Write | Delete | Move


def effects(root: Path, changes: Iterable[Change]) -> dict[str, bytes | None]:
    """Post-image of every touched path: new bytes, or None for a path that will not exist.

    Moves without new data read the source from disk. Useful to render INDEX.md for a plan
    (``palace.replaced(effects(root, changes))``).
    """
    out: dict[str, bytes | None] = {}
    for ch in changes:
        if isinstance(ch, Write):
            out[ch.path] = ch.data
        elif isinstance(ch, Delete):
            out[ch.path] = None
        else:
            out[ch.src] = None
            out[ch.dst] = ch.data if ch.data is not None else _moved_bytes(Path(root), ch.src)
    return out


def _moved_bytes(root: Path, src: str) -> bytes:
    try:
        return (root / src).read_bytes()
    except FileNotFoundError:  # another action took it since the plan was made
        raise PlanError(f"cannot move {src}: it is gone (another action took it)") from None


# --------------------------------------------------------------------------- plan


@dataclass(frozen=True)
class Plan:
    """One curator action, ready to show (``diff()``) and to apply (``apply_plan``).

    ``message`` is built from the other fields when left empty; ``trailers`` are extra
    ``(key, value)`` trailers appended after the standard ones (e.g. ``Curator-Restore``).
    """

    action: str
    notes: tuple[str, ...]
    reason: str
    summary: str
    changes: tuple[Change, ...]
    trailers: tuple[tuple[str, str], ...] = ()
    message: str = ""
    root: Path | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not _ACTION_RE.fullmatch(self.action or ""):
            raise PlanError(f"invalid action name {self.action!r} (lowercase letters, digits, -)")
        object.__setattr__(self, "notes", tuple(str(n) for n in self.notes))
        object.__setattr__(self, "changes", tuple(self.changes))
        object.__setattr__(self, "trailers", tuple((str(k), str(v)) for k, v in self.trailers))
        seen: set[str] = set()
        for ch in self.changes:
            if not isinstance(ch, Write | Delete | Move):
                raise PlanError(f"not a change: {ch!r}")
            for p in ch.touched():
                if p in seen:
                    raise PlanError(f"path {p} is touched by more than one change in the plan")
                seen.add(p)
        if not self.message:
            inbox = inbox_of(self.root) if self.root is not None else DEFAULT_INBOX
            took = [t for t in took_trailers(self.changes, inbox) if t not in self.trailers]
            object.__setattr__(self, "trailers", (*self.trailers, *took))
            msg = build_message(self.action, self.summary, self.reason, self.notes, self.trailers)
            object.__setattr__(self, "message", msg)
        elif "\x00" in self.message:
            raise PlanError("commit message contains a NUL byte")

    def paths(self) -> tuple[str, ...]:
        """Every path the plan touches (sources and destinations of moves), in plan order."""
        return tuple(p for ch in self.changes for p in ch.touched())

    @property
    def subject(self) -> str:
        return self.message.split("\n", 1)[0]

    def effects(self, root: Path | None = None) -> dict[str, bytes | None]:
        return effects(self._root(root), self.changes)

    def _root(self, root: Path | None) -> Path:
        r = root if root is not None else self.root
        if r is None:
            raise PlanError("the palace root is needed (pass root= or build the Plan with root=)")
        return Path(r)

    def diff(self, root: Path | None = None) -> str:
        """Unified diff of every change against what is on disk now (git style)."""
        base = self._root(root)
        chunks: list[str] = []
        for ch in self.changes:
            if isinstance(ch, Write):
                chunks.append(file_diff(ch.path, ch.path, read_or_none(base, ch.path), ch.data))
            elif isinstance(ch, Delete):
                chunks.append(file_diff(ch.path, ch.path, read_or_none(base, ch.path), None))
            else:
                old = read_or_none(base, ch.src)
                new = ch.data if ch.data is not None else old
                chunks.append(file_diff(ch.src, ch.dst, old, new, rename=True))
        return "".join(chunks)
