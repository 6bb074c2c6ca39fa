"""Capture: an agent's new memory, written as a draft into the inbox for a person to review.

`capture()` validates its input, searches for similar notes and drafts, scans for secrets and
writes `<inbox>/<date>-<slug>.md` atomically without ever overwriting: the text goes to a temp
file (created with O_EXCL, fsynced), which is then hard-linked to the first free name (`link`
fails when the name exists, so a concurrent capture can never clobber another), the temp name
is removed and the folder fsynced. A reader sees a whole draft or none; a failure leaves
nothing behind.

A capture makes no git commit: drafts are untracked until a reviewer promotes them, so
captures never contend with the writer lock or a commit in progress.

This module is on the agent's hot path (hooks call it), so it imports no git library, no
LanceDB and no Textual, and never loads the whole palace.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import time
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from curator.config import load_config
from curator.errors import CuratorError
from curator.fsutil import TMP_PREFIX, fsync_dir, write_temp
from curator.model.dates import resolve_dates
from curator.model.discovery import inbox_of
from curator.model.note import DRAFT_BANNER, MAX_BYTES, new_note_text
from curator.model.schema import unknown_value
from curator.model.similar import Similar, similar
from curator.model.text import not_utf8, one_line
from curator.writer.secrets import SecretHit, scan, without_secrets

__all__ = [
    "MAX_TAGS",
    "SECRET_FIELD",
    "CaptureError",
    "CaptureResult",
    "IdenticalDraft",
    "capture",
    "parse_source",
    "secrets_in",
    "slugify",
]

MAX_TAGS = 8
MAX_NAME = 200
MAX_SLUG = 60
MAX_HEADER_SECRETS = 20  # the header lists at most this many; the flag covers the rest
SECRET_FIELD = "secret"  # `secret: true` in the header: promote refuses it without --allow-secret
STALE_TMP_SECONDS = 3600
_MAX_ATTEMPTS = 10_000
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


class CaptureError(CuratorError):
    """A capture was refused: bad input, or the draft could not be written."""


class IdenticalDraft(CaptureError):
    """An agent's capture repeats a draft that waits for review (`path`)."""

    def __init__(self, path: str) -> None:
        super().__init__(f"an identical draft already waits for review: {path}; nothing written")
        self.draft = path


@dataclass
class CaptureResult:
    path: str  # posix path from the palace root
    similar: list[Similar] = field(default_factory=list)
    secrets: list[SecretHit] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "similar": [s.to_json() for s in self.similar],
            "secrets": [s.to_json() for s in self.secrets],
            "flagged": bool(self.secrets),
            "warnings": list(self.warnings),
        }


# -- input ---------------------------------------------------------------------------------------
def slugify(name: str, limit: int = MAX_SLUG) -> str:
    """ASCII, lower case, words joined by "-", cut at a word boundary; "draft" if empty.

    Whatever the secret scanner flags in `name` is left out first: a file name shows in `ls`,
    in shell history and in git's messages, so a secret never becomes part of one."""
    name = without_secrets(name)
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")
    if len(slug) > limit:
        cut = slug[:limit]
        slug = cut.rsplit("-", 1)[0] if "-" in cut else cut
    return slug or "draft"


def parse_source(source: str | None) -> str | dict[str, str] | None:
    """`key=value,key=value` becomes a mapping; anything without '=' stays a string."""
    if source is None or not source.strip():
        return None
    source = source.strip()
    if "=" not in source:
        return source
    out: dict[str, str] = {}
    for part in source.split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or not _KEY.fullmatch(key):
            raise CaptureError(
                f"bad --source part {part.strip()!r}: use key=value,key=value (plain-word keys)"
            )
        out[key] = value.strip()
    return out or None


def _check_text(label: str, value: str) -> None:
    if "\x00" in value:
        raise CaptureError(f"{label} contains a NUL byte; refused")
    _check_utf8(label, value)


def _check_utf8(label: str, value: str) -> None:
    if (bad := not_utf8(value)) is not None:
        raise CaptureError(f"{label} is not valid UTF-8 text (it holds {bad}); refused")


def _validate(
    palace_root: Path,
    type: str,
    name: str,
    body: str,
    description: str,
    scope: str | None,
    tags: list[str] | None,
) -> tuple[str, str, list[str]]:
    for label, value in (("name", name), ("description", description), ("body", body)):
        _check_text(label, value)
    for tag in tags or ():
        _check_text("a tag", tag)
    if "\n" in name or "\r" in name:
        raise CaptureError("the name must be one line (put details in --description or the body)")
    name = name.strip()
    if not name:
        raise CaptureError("empty name: give --name a short title for the memory")
    if len(name) > MAX_NAME:
        raise CaptureError(f"the name is {len(name)} characters; keep it under {MAX_NAME}")
    if not body.strip():
        raise CaptureError("empty body: pipe the memory's text on stdin")
    size = len(body.encode("utf-8", "surrogatepass"))
    if size > MAX_BYTES:
        raise CaptureError(f"the body is {size} bytes, over the 1 MiB limit")
    config = load_config(palace_root)
    problem = unknown_value("type", [type], config.types) or unknown_value(
        "scope", [scope] if scope is not None else [], config.scopes
    )
    if problem:
        raise CaptureError(problem)
    clean_tags: list[str] = []
    for tag in tags or ():
        tag = " ".join(tag.split())
        if tag and tag not in clean_tags:
            clean_tags.append(tag)
    if len(clean_tags) > MAX_TAGS:
        raise CaptureError(f"{len(clean_tags)} tags; at most {MAX_TAGS} are allowed")
    return name, " ".join(description.split()), clean_tags


# -- the draft -----------------------------------------------------------------------------------
def _stamp(now: datetime | None) -> datetime:
    now = now or datetime.now(UTC)
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    return now.astimezone(UTC)


def _render(header: dict[str, Any], body: str) -> str:
    return new_note_text(header, f"{DRAFT_BANNER}\n\n{body}")


def _build(
    header: dict[str, Any], body: str, header_hits: list[SecretHit], body_hits: list[SecretHit]
) -> tuple[str, list[SecretHit]]:
    """The draft's text, with the secrets (if any) recorded by their line in the file.

    `header_hits` carry file lines already (the scanned fields come first in the header);
    `body_hits` carry lines within the body and are shifted past the header and the banner.
    """
    if not header_hits and not body_hits:
        return _render(header, body), []
    # the secrets field takes the same number of lines whatever the line numbers are, so a
    # header rendered with the unshifted hits tells where the body starts
    probe = {**header, SECRET_FIELD: True, "secrets": _secret_field(header_hits + body_hits)}
    header_lines = new_note_text(probe, "").count("\n")  # both fences included
    shift = header_lines + 2  # the banner and a blank line
    hits = [*header_hits, *(SecretHit(h.kind, h.line + shift, h.preview) for h in body_hits)]
    final = {**header, SECRET_FIELD: True, "secrets": _secret_field(hits)}
    return _render(final, body), hits


def _secret_field(hits: list[SecretHit]) -> list[dict[str, Any]]:
    return [{"kind": h.kind, "line": h.line} for h in hits[:MAX_HEADER_SECRETS]]


_FIXED = (
    "name",
    "description",
    "type",
    "status",
    "created",
    "dates",
    "source",
    "scope",
    "tags",
    "context",
)


def _advice(hits: list[SecretHit], found_similar: list[Similar]) -> list[str]:
    """What the agent is told besides the path: secrets flagged, a near duplicate."""
    out: list[str] = []
    if hits:
        kinds = ", ".join(sorted({h.kind for h in hits}))
        out.append(
            f"possible secrets ({kinds}): the draft is flagged '{SECRET_FIELD}: true'; "
            "remove them before it is promoted"
        )
    if found_similar and found_similar[0].score >= 90:
        out.append(
            f"a very similar {found_similar[0].kind} exists: {found_similar[0].path}; "
            "consider updating it instead"
        )
    return out


def secrets_in(fields: dict[str, str | list[str] | None]) -> list[tuple[str, SecretHit]]:
    """(where, hit) for every secret-looking value in the fields an agent supplied, each
    scanned with the same rule (`scan`): "the body line 3", "the name", "tag 2"."""
    found: list[tuple[str, SecretHit]] = []
    for label, value in fields.items():
        if isinstance(value, list):
            for number, item in enumerate(value, 1):
                found += [(f"tag {number}", h) for h in scan(item)]
        elif label == "body":
            found += [(f"the body line {h.line}", h) for h in scan(value or "")]
        else:
            found += [(f"the {label}", h) for h in scan(value or "")]
    return found


def _refuse_secrets(found: list[tuple[str, SecretHit]]) -> None:
    if found:
        where = ", ".join(f"{hit.kind} in {place}" for place, hit in found[:5])
        raise CaptureError(
            f"the memory looks like it holds a secret ({where}); nothing was written: "
            "remove the secret (name where it is kept instead) and capture again"
        )


def _identical_draft(root: Path, inbox: str, name: str, body: str) -> str | None:
    """The inbox draft with this name and body, as on disk now (not as a cache saw it)."""
    from curator.model.note import parse_note, strip_banner

    want = (one_line(name).casefold(), body.strip())
    with contextlib.suppress(OSError), os.scandir(root / inbox) as entries:
        for entry in entries:
            if not entry.name.endswith(".md") or entry.name.startswith(TMP_PREFIX):
                continue
            with contextlib.suppress(OSError):
                if not entry.is_file(follow_symlinks=False):
                    continue
                with open(entry.path, "rb") as fh:
                    data = fh.read(MAX_BYTES + 1)
                draft = parse_note(f"{inbox}/{entry.name}", data, "draft")
                if not draft.ok or one_line(draft.name).casefold() != want[0]:
                    continue
                if strip_banner(draft.body).strip() == want[1]:
                    return draft.rel
    return None


def capture(
    palace_root: Path,
    *,
    type: str,
    name: str,
    body: str,
    description: str = "",
    source: str | dict[str, str] | None = None,
    scope: str | None = None,
    tags: list[str] | None = None,
    now: datetime | None = None,
    extra: dict[str, Any] | None = None,
    from_agent: bool = False,
    context: str | None = None,
) -> CaptureResult:
    """Write a new draft into the inbox; never overwrites, never leaves a partial file.

    `extra` adds header fields after the fixed ones (an import carries the record's other
    fields this way); it never replaces a fixed field. `from_agent` is an agent's capture:
    a secret in any field it supplied is refused (a person's capture is only flagged), and so
    is a draft identical to one waiting in the inbox; the check and the write hold one lock,
    so concurrent identical captures write one draft. `context` is the text the fact came
    from (the conversation turns around it, the file and lines it was read from): searched in
    its own field, shown beside the draft, never the fact itself.
    """
    root = Path(palace_root)
    for label, text in (("the type", type), ("the scope", scope), ("the context", context)):
        _check_utf8(label, text or "")
    for key, text in source.items() if isinstance(source, dict) else [("source", source)]:
        _check_utf8("the source", f"{key}={text or ''}")
    name, description, clean_tags = _validate(root, type, name, body, description, scope, tags)
    if from_agent:
        said = (
            " ".join(f"{k}={v}" for k, v in source.items()) if isinstance(source, dict) else source
        )
        fields = {"name": name, "description": description, "source": said, "scope": scope}
        fields["context"] = context
        _refuse_secrets(secrets_in({**fields, "tags": list(tags or ()), "body": body}))
    source_value = dict(source) if isinstance(source, dict) else parse_source(source)
    _check_text("context", context or "")
    stamp = _stamp(now)
    warnings: list[str] = []

    try:
        found_similar = similar(root, name, description, body)
    except Exception as exc:  # the search is advice; it must not stop a capture
        found_similar = []
        warnings.append(f"similar-note search failed ({type_name(exc)}: {exc}); none recorded")

    header: dict[str, Any] = {
        "name": name,
        "description": description,
        "type": type,
        "status": "draft",
        "created": stamp.strftime("%Y-%m-%dT%H:%M:%SZ"),
        # "yesterday" in the body, resolved against the draft's own date (an import's too)
        "dates": resolve_dates(body, stamp) or None,
        "source": source_value,
        "scope": scope,
        "tags": clean_tags or None,
        "context": (context or "").strip() or None,
    } | {k: v for k, v in (extra or {}).items() if k not in _FIXED}
    header_hits = scan(new_note_text(header, ""))  # what the agent wrote in the header
    if found_similar:
        header["similar"] = [
            {"path": s.path, "name": s.name, "score": s.score} for s in found_similar
        ]
    text, hits = _build(header, body, header_hits, scan(body))
    data = text.encode("utf-8", "surrogatepass")
    if len(data) > MAX_BYTES:
        raise CaptureError(f"the draft would be {len(data)} bytes, over the 1 MiB note limit")
    warnings += _advice(hits, found_similar)
    stem = f"{stamp:%Y-%m-%d}-{slugify(name)}"
    inbox = inbox_of(root)
    if not from_agent:
        return CaptureResult(_write_unique(root, inbox, stem, data), found_similar, hits, warnings)
    with _capture_lock(root):
        same = _identical_draft(root, inbox, name, body)
        if same is not None:
            raise IdenticalDraft(same)
        rel = _write_unique(root, inbox, stem, data)
    return CaptureResult(rel, found_similar, hits, warnings)


CAPTURE_LOCK = ".curator/capture.lock"


@contextlib.contextmanager
def _capture_lock(root: Path) -> Iterator[None]:
    """Captures only (never the writer lock: a capture must not wait on a promote)."""
    from filelock import FileLock, Timeout

    from curator.model.discovery import ensure_state_dir

    try:
        ensure_state_dir(root)
        lock = FileLock(root / CAPTURE_LOCK, timeout=10, thread_local=False)
        with lock:
            yield
    except Timeout:
        raise CaptureError(f"another capture holds {CAPTURE_LOCK}; try again") from None
    except OSError as exc:
        raise CaptureError(f"cannot take {CAPTURE_LOCK}: {exc.strerror or exc}") from None


def type_name(exc: BaseException) -> str:
    return type(exc).__name__


# -- the write -----------------------------------------------------------------------------------
def _sweep_stale_temps(inbox: Path) -> None:
    """Remove temp files a killed capture left behind (they are hidden, but pile up)."""
    cutoff = time.time() - STALE_TMP_SECONDS
    with contextlib.suppress(OSError), os.scandir(inbox) as entries:
        for entry in entries:
            if entry.name.startswith(TMP_PREFIX):
                with contextlib.suppress(OSError):
                    if entry.stat(follow_symlinks=False).st_mtime < cutoff:
                        os.unlink(entry.path)


def _write_unique(root: Path, folder: str, stem: str, data: bytes) -> str:
    inbox = root / folder
    if inbox.is_symlink() or (inbox.exists() and not inbox.is_dir()):
        raise CaptureError(f"{folder}/ is not a plain folder; refusing to write a draft there")
    try:
        inbox.mkdir(exist_ok=True)
    except OSError as exc:
        raise CaptureError(f"cannot create {folder}/: {exc.strerror}") from None
    _sweep_stale_temps(inbox)
    try:
        tmp = write_temp(inbox, data, 0o644)
    except OSError as exc:
        raise CaptureError(f"cannot write in {folder}/: {exc.strerror or exc}") from None
    linked = False
    try:
        for attempt in range(1, _MAX_ATTEMPTS + 1):
            final = inbox / (f"{stem}.md" if attempt == 1 else f"{stem}-{attempt}.md")
            try:
                os.link(tmp, final, follow_symlinks=False)
            except FileExistsError:
                continue
            except OSError as exc:
                if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
                    raise
                if not _claim_and_rename(tmp, final):
                    continue
            linked = True
            break
        else:
            raise CaptureError(f"no free draft name for {stem!r} after {_MAX_ATTEMPTS} tries")
    except OSError as exc:
        raise CaptureError(f"cannot write the draft: {exc.strerror or exc}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    if linked:
        with contextlib.suppress(OSError):
            fsync_dir(inbox)
    return f"{folder}/{final.name}"


def _claim_and_rename(tmp: Path, final: Path) -> bool:
    """For file systems without hard links: reserve the name with O_EXCL, then rename onto it.

    The reservation is an empty file for a moment (a reader skips it as an empty note); no
    other capture can take the name, so nothing is overwritten.
    """
    try:
        fd = os.open(final, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    os.close(fd)
    try:
        os.replace(tmp, final)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(final)
        raise
    return True
