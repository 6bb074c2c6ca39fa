"""Note: one markdown file with a YAML header. Parsing never raises; edits keep bytes.

A file that fails to parse is reported (a `Finding` in `problems`) and is never rewritten.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from curator.errors import CuratorError
from curator.model import schema
from curator.model.finding import Finding
from curator.model.header import DELETE, HeaderError, dump_header, parse_header
from curator.model.header_edit import NoteEditError, edit_fields, rewrite_strings
from curator.model.links import LinkRule, RawLink, links_by_rule

MAX_BYTES = 1 << 20
BOM = b"\xef\xbb\xbf"
DRAFT_BANNER = "> DRAFT — unreviewed, NOT a rule until a reviewer promotes it."


def strip_banner(body: str) -> str:
    """The body without the draft banner (and the blank lines around it): never part of a
    note, so promote, merge and the app's diff all leave it out."""
    lines = body.splitlines(keepends=True)
    while lines and not lines[0].strip():
        lines.pop(0)
    if lines and lines[0].strip() == DRAFT_BANNER.strip():
        lines.pop(0)
        while lines and not lines[0].strip():
            lines.pop(0)
    return "".join(lines)


# Lines end at LF, CRLF or CR only: `str.splitlines` also breaks at \x0b, \x0c, \x1c-\x1e
# and NEL, which would let one header line pass for two (or hide the closing fence).
FENCE = re.compile(r"---[ \t]*(\r\n|\n|\r)")
_CLOSE = re.compile(r"(\r\n|\n|\r)(?:---|\.\.\.)[ \t]*(?:\r\n|\n|\r|\Z)")

Kind = schema.Kind

__all__ = [
    "BOM",
    "DELETE",
    "DRAFT_BANNER",
    "FENCE",
    "MAX_BYTES",
    "Note",
    "NoteChanged",
    "NoteEditError",
    "Texts",
    "bytes_sha",
    "edit_header",
    "header_bounds",
    "new_note_text",
    "parse_note",
    "read_capped",
    "read_file",
]


class NoteChanged(CuratorError):
    """A note's text was let go (`Note.let_go`) and its file no longer holds the bytes the
    note was parsed from: the palace is older than the files, and nothing read from it may
    stand for them (the gate judged the header the bytes had)."""


class Texts:
    """Where the notes of one palace read their text again once they let go of it
    (`Note.let_go`): their files under `root`, each checked against the note's hash, and the
    last few read kept (the notes a server shows and ranks, bounded)."""

    KEPT = 256

    def __init__(self, root: str) -> None:
        self.root = root
        self._kept: dict[str, str] = {}  # by the note's hash, least recently read first
        self._lock = threading.Lock()  # a server answers on several threads

    def text(self, note: Note) -> str:
        with self._lock:
            kept = self._kept.pop(note.sha, None)
        if kept is None:
            kept = self._read(note)
        with self._lock:
            self._kept[note.sha] = kept
            while len(self._kept) > self.KEPT:
                del self._kept[next(iter(self._kept))]
        return kept

    def _read(self, note: Note) -> str:
        try:
            _info, data = read_file(os.path.join(self.root, note.rel))
        except OSError as exc:
            raise NoteChanged(f"cannot read it again: {exc.strerror}", path=note.rel) from None
        if bytes_sha(data) != note.sha:
            message = "the file changed since the palace was loaded; load it again"
            raise NoteChanged(message, path=note.rel)
        text = data[len(BOM) :] if note.bom else data
        return text.decode("utf-8")


@dataclass(slots=True)
class Note:
    """One parsed file. Kept compact: a palace holds one per file (100k at a time), so header
    keys and short header values are interned (shared by every note), problems are a tuple
    (the empty one shared), the line of each header key is a tuple of numbers in header order
    (`key_lines` gives the dict), links are read from the body only when first asked for
    (`links`), and a long-lived server's palace lets go of its notes' text (`let_go`), read
    again from the file when asked for."""

    rel: str  # posix path from the palace root
    kind: Kind
    header: dict[str, Any] = field(default_factory=dict)
    # decoded file text without BOM, line ends as on disk (`text`); compared by `sha`
    _text: str = field(default="", compare=False)
    bom: bool = False
    newline: str = "\n"
    lines: tuple[int, ...] | dict[str, int] = ()  # 1-based file line of each header key
    header_end: int = 0  # index into text where the body starts
    body_line: int = 1
    sha: str = ""
    size: int = 0
    mtime_ns: int = 0
    ok: bool = False  # the header parsed
    problems: tuple[Finding, ...] = ()
    link_rule: LinkRule = LinkRule.NONE  # how `links` reads the body (the layout sets it)
    _links: tuple[RawLink, ...] | None = None  # None: not read yet
    # the `Texts` the text is read from once let go (`let_go`); Any: never a cache's value
    _texts: Any = field(default=None, compare=False, repr=False)

    @property
    def text(self) -> str:
        """The file's text (decoded, without its BOM); for a note that let go of it, read
        from its file again (NoteChanged when the file no longer holds the note's bytes)."""
        texts = self._texts
        if isinstance(texts, Texts):
            return texts.text(self)
        return self._text

    @text.setter
    def text(self, value: str) -> None:
        self._text = value
        self._texts = None

    def let_go(self, texts: Texts) -> None:
        """Hold no text from now on: read it from the file when asked (`texts`), checked
        against the note's hash. A note with no text (its file unreadable, too large, not
        UTF-8) keeps what it has."""
        if self._text and self.sha and self._texts is None:
            self._text = ""
            self._texts = texts

    @property
    def held(self) -> bool:
        """Whether the note holds its text (it has not let go of it)."""
        return not isinstance(self._texts, Texts)

    @property
    def links(self) -> tuple[RawLink, ...]:
        """Every link of the note, in order, read from its body by its `link_rule` on first
        use: a load reads none (`list` and a search never need them; what needs every
        note's reads them through the links cache: `Palace.read_links`)."""
        links = self._links
        if links is None:
            links = self._links = links_by_rule(self.body, self.body_line, self.link_rule)
        return links

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # a plain tuple pickles several times faster than a slotted dataclass's state; a
        # note that let go of its text is pickled holding it
        held = {"_text": self.text, "_texts": None}
        return (Note, tuple(held.get(name, getattr(self, name)) for name in _FIELDS))

    @property
    def key_lines(self) -> dict[str, int]:
        """The 1-based file line of each top-level header key."""
        lines = self.lines
        if isinstance(lines, dict):
            return dict(lines)
        return dict(zip(self.header, lines, strict=True))

    @property
    def body(self) -> str:
        # a note read without front matter (another tool's layout) is all body
        return self.text[self.header_end :] if self.header_end or self.ok else ""

    @property
    def slug(self) -> str:
        name = self.rel.rsplit("/", 1)[-1]
        return name[:-3] if name.endswith(".md") else name

    def _str(self, key: str) -> str:
        value = self.header.get(key)
        return value if isinstance(value, str) else ""

    @property
    def name(self) -> str:
        return self._str("name") or self.slug

    @property
    def description(self) -> str:
        return self._str("description")

    @property
    def type(self) -> str:
        return self._str("type")

    @property
    def status(self) -> str:
        if self.kind == "draft":
            return "draft"
        return schema.note_status(self.header)

    @property
    def scope(self) -> str:
        return self._str("scope") or "_global"

    @property
    def created(self) -> str:
        return _date_str(self.header.get("created"))

    @property
    def reviewed(self) -> str:
        return _date_str(self.header.get("reviewed"))

    @property
    def expires(self) -> str:
        return _date_str(self.header.get("expires"))

    @property
    def confidence(self) -> float | None:
        value = self.header.get("confidence")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        return None

    @property
    def tags(self) -> list[str]:
        value = self.header.get("tags")
        if isinstance(value, list):
            return [str(t) for t in value if isinstance(t, (str, int, float))]
        return []

    @property
    def superseded_by(self) -> str:
        return self._str("superseded_by")

    @property
    def supersedes(self) -> list[str]:
        return _str_list(self.header.get("supersedes"))

    @property
    def merged_from(self) -> list[str]:
        return _str_list(self.header.get("merged_from"))

    @property
    def stale(self) -> dict[str, str] | None:
        """The stale mark (reason, since), failing closed (`schema.stale_mark`)."""
        mark = schema.stale_mark(self.header.get("stale"))
        if mark is None:
            return None
        return {"reason": str(mark["reason"] or ""), "since": _date_str(mark["since"])}

    @property
    def sensitive(self) -> bool:
        """Hidden by its own header (fail closed: see `schema.hidden_by_header`)."""
        return schema.hidden_by_header(self)

    @property
    def verify(self) -> dict[str, Any] | None:
        value = self.header.get("verify")
        return value if isinstance(value, dict) else None

    @property
    def superseded(self) -> bool:
        """Superseded or retired (`schema.is_replaced`)."""
        return schema.is_replaced(self)

    def line_of(self, key: str) -> int:
        lines = self.lines
        if isinstance(lines, dict):
            return lines.get(key, 1)
        for name, line in zip(self.header, lines, strict=True):
            if name == key:
                return line
        return 1


_FIELDS = tuple(f.name for f in fields(Note))


def _date_str(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def _str_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, list):
        return [str(v) for v in value if isinstance(v, str) and v]
    return []


def _problem(note: Note, message: str, code: str, line: int = 0) -> Note:
    note.problems += (Finding(note.rel, line, "error", code, message),)
    return note


_SHARED_MAX = 24  # header strings up to this long are interned (types, statuses, dates, ...)


def _intern(value: Any) -> Any:
    return sys.intern(value) if type(value) is str and len(value) <= _SHARED_MAX else value


def _shared(header: dict[str, Any]) -> dict[str, Any]:
    """`header` with its keys and short strings (top level, and in top-level lists such as
    tags) interned, and the keys of its top-level mappings (`source`, `verify`, `stale`): a
    palace repeats the same few keys, types, scopes and dates in every note (at 100k notes
    the mappings' keys alone were ~10 MB of copies). Two levels, no recursion: a header's
    depth is the author's choice."""
    out: dict[str, Any] = {}
    for key, value in header.items():
        if type(value) is list:
            value = [_intern(item) for item in value]
        elif type(value) is dict:
            value = {_intern(k): v for k, v in value.items()}
        out[sys.intern(key)] = _intern(value)
    return out


# the key-lines tuples made so far, one copy of each: most headers take one of a few shapes
# (a key a line from line 2); bounded, so odd headers never grow it past this
_LINES: dict[tuple[int, ...], tuple[int, ...]] = {}
_LINES_MAX = 4096


def _shared_lines(lines: tuple[int, ...] | dict[str, int]) -> tuple[int, ...] | dict[str, int]:
    """`lines` as the one copy of equal key lines (10 MB at 100k notes, one tuple each)."""
    if type(lines) is not tuple:
        return lines
    found = _LINES.get(lines)
    if found is None and len(_LINES) < _LINES_MAX:
        found = _LINES.setdefault(lines, lines)
    return found if found is not None else lines


def _compact_lines(header: Mapping[str, Any], key_lines: Mapping[str, int]) -> Any:
    """The key lines as a tuple in header order (a dict only if the keys differ), shared."""
    if list(key_lines) == list(header):
        return _shared_lines(tuple(key_lines.values()))
    return dict(key_lines)


def _lines_before(text: str, end: int) -> int:
    """How many lines end (at LF, CRLF or CR) before offset `end`, plus one."""
    crlf = text.count("\r\n", 0, end)
    return text.count("\n", 0, end) + text.count("\r", 0, end) - crlf + 1


def read_file(path: str) -> tuple[os.stat_result, bytes]:
    """The file's stat and its bytes (`read_capped`), by its descriptor: Python's buffered
    file object cost a third of the read."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        return info, read_capped(fd, info.st_size)
    finally:
        os.close(fd)


def read_capped(fd: int, size: int) -> bytes:
    """The bytes of the file open at `fd`, never more than the limit plus one (what a note
    over it needs to be told apart). Sized by `size`, the file's size as fstat saw it: asking
    for the limit itself made every read allocate a MiB and give it back (at 100k notes,
    seconds of system time), where the floor's read sizes its buffer by the file. A file
    that grew since is read on, up to the limit."""
    limit = min(size, MAX_BYTES) + 1
    parts, got = [], 0
    while got < limit and (chunk := os.read(fd, limit - got)):
        parts.append(chunk)
        got += len(chunk)
        if got == limit <= MAX_BYTES:  # more than `size`: it grew, read on
            limit = MAX_BYTES + 1
    return parts[0] if len(parts) == 1 else b"".join(parts)


def bytes_sha(data: bytes) -> str:
    """A file's bytes hashed as a note's `sha` (and the index's record of files) keeps them."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def parse_note(
    rel: str, data: bytes, kind: Kind = "note", *, mtime_ns: int = 0, size: int | None = None
) -> Note:
    """Parse one file's bytes. Problems are recorded on the note; nothing raises.

    Options for other layouts are keyword arguments (like `mtime_ns`), so callers that pass
    only the bytes keep working as options are added. `size` is the file's size when `data`
    was read only up to the limit (MAX_BYTES + 1 bytes): a note over it reads the same,
    whether it came from the disk or whole from git (a sync's replay).
    """
    note = Note(rel=rel, kind=kind, size=len(data) if size is None else size, mtime_ns=mtime_ns)
    note.sha = bytes_sha(data)
    if (why := schema.path_problem(rel)) is not None:  # hidden (fail closed) and reported
        note.problems += (Finding(rel, 0, "error", "file.name", why),)
    text = _text(note, data)
    if text is None:
        return note
    note.text = text
    bounds = header_bounds(text)
    if isinstance(bounds, Finding):
        note.problems += (replace(bounds, path=rel),)
        return note
    note.newline, start, stop, note.header_end = bounds
    note.body_line = _lines_before(text, stop) + 1
    try:
        header, key_lines = parse_header(text[start:stop])
    except HeaderError as exc:
        line = exc.line + 1 if exc.line else 1
        return _problem(note, exc.message, "header.yaml", line)
    except Exception as exc:  # a note never takes the palace down
        message = f"unreadable header ({type(exc).__name__}: {exc})"
        return _problem(note, message[:200], "header.yaml", 1)
    note.header = _shared(header)
    note.lines = _compact_lines(header, {key: line + 1 for key, line in key_lines.items()})
    note.ok = True
    note.link_rule = LinkRule.ANY  # the layout counts its own (`counted_links`)
    if note.bom:
        message = "file starts with a UTF-8 byte order mark; kept as is"
        note.problems += (Finding(rel, 1, "warning", "file.bom", message),)
    return note


def _text(note: Note, data: bytes) -> str | None:
    """The file's text without its BOM, or None with the problem recorded on the note."""
    if not data.strip():
        _problem(note, "empty file: a note needs a YAML header", "file.empty")
        return None
    if len(data) > MAX_BYTES:
        message = f"file is {max(note.size, len(data))} bytes, over the 1 MiB limit for a note"
        _problem(note, message, "file.too-large")
        return None
    if data.startswith(BOM):
        note.bom = True
        data = data[len(BOM) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if b"\x00" in data[:8192]:  # NUL bytes and not UTF-8: a binary file
            _problem(note, "binary file (NUL bytes), not a markdown note", "file.binary")
            return None
        line = data[: exc.start].count(b"\n") + 1
        byte = data[exc.start : exc.start + 1].hex()
        _problem(note, f"not UTF-8: byte 0x{byte} cannot be decoded", "file.encoding", line)
        return None
    if "\x00" in text:
        # UTF-8 text with NUL bytes in it (a paste, a bad sync): Obsidian opens and indexes
        # it, so it is read as a note and the bytes are reported once
        count, line = text.count("\x00"), _lines_before(text, text.index("\x00"))
        message = f"{count} NUL byte(s), the first on line {line}: read as text; remove them"
        note.problems += (Finding(note.rel, line, "warning", "file.nul", message),)
    return text


def header_bounds(text: str) -> tuple[str, int, int, int] | Finding:
    """Where the header is: (newline, header start, header end, body start), or why not."""
    fence = FENCE.match(text)
    if not fence:
        message = "no YAML header: the file must start with a '---' line"
        return Finding("", 1, "error", "header.missing", message)
    newline = fence.group(1)
    close = _CLOSE.search(text, fence.end() - len(newline))
    if close is None:
        message = "the YAML header is not closed by a '---' line"
        return Finding("", 1, "error", "header.unclosed", message)
    return newline, fence.end(), close.end(1), close.end()


def edit_header(note: Note, updates: Mapping[str, Any]) -> bytes:
    """The note's bytes with only the named header fields changed (DELETE removes one).

    NoteEditError when the note did not parse or the edit would not read back as intended
    (see `curator.model.header_edit`); nothing else is ever returned.
    """
    if note.ok and not FENCE.match(note.text):  # read through a layout (curator.model.layouts)
        return _first_header(note, updates)
    bounds = header_bounds(note.text)
    if not note.ok or isinstance(bounds, Finding):
        raise NoteEditError("cannot edit a note whose header did not parse", path=note.rel)
    _, start, stop, _ = bounds
    try:
        header = edit_fields(note.text[start:stop], updates, note.newline)
    except NoteEditError as exc:
        raise NoteEditError(exc.message, path=note.rel) from None
    text = note.text[:start] + header + note.text[stop:]
    return (BOM if note.bom else b"") + text.encode("utf-8")


def rewrite_header_strings(note: Note, rewrite: Callable[[str], str]) -> str:
    """The note's text with `rewrite` applied to its YAML header's string values (see
    `header_edit.rewrite_strings`), the body untouched; the text as it is when the note has no
    YAML header that parsed. NoteEditError names the note when the edit would not read back."""
    bounds = header_bounds(note.text)
    if not note.ok or isinstance(bounds, Finding):
        return note.text
    _, start, stop, _ = bounds
    try:
        header = rewrite_strings(note.text[start:stop], rewrite, note.newline)
    except NoteEditError as exc:
        raise NoteEditError(exc.message, path=note.rel) from None
    return note.text[:start] + header + note.text[stop:]


def _first_header(note: Note, updates: Mapping[str, Any]) -> bytes:
    """An edit of a note another tool's layout reads without YAML front matter: one with none
    gets a YAML header holding only the edited fields, its text kept byte for byte; TOML or
    JSON front matter is read only (H-layouts, issue 12)."""
    if note.header_end:
        message = "its TOML or JSON front matter is read only; convert it to YAML to edit"
        raise NoteEditError(message, path=note.rel)
    fields = {k: v for k, v in updates.items() if v is not DELETE}
    text = new_note_text(fields, "", note.newline) + note.text if fields else note.text
    return (BOM if note.bom else b"") + text.encode("utf-8")


def new_note_text(header: Mapping[str, Any], body: str, newline: str = "\n") -> str:
    """A fresh note: header fields in the given order, then the body."""
    fields = {k: v for k, v in header.items() if v is not DELETE and v is not None and v != ""}
    body = body if body.endswith("\n") or not body else body + "\n"
    return f"---{newline}{dump_header(fields, newline)}---{newline}{body}"
