"""A Claude Code auto-memory folder: flat memory files, MEMORY.md as their index.

Each memory has `name`, `description` and `type` (user, feedback, project, reference) in its
frontmatter; some versions nest the type as `metadata: {type: ...}`, and the file name
usually starts with it (`feedback_testing.md`). MEMORY.md lists them one a line as
`- [Title](file.md) — hook`, and Claude Code loads only its first 200 lines or 25 KB: what
lies beyond is silently lost, so `index_findings` reports it, with memories MEMORY.md does not
name (in an entry, a link mid-line or a file name in backticks) and entries that point at
missing files. MEMORY.md is the person's and Claude's file: `edit_index` adds and removes
only the entry lines of the memories an action adds or removes. `[[name]]` resolves by name,
by file name and by file name without its type prefix; a dangling one is a warning (Claude
Code ignores it).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from curator.errors import CuratorError
from curator.model.layouts.base import Entry, Layout, Severity, stem

INDEX = "MEMORY.md"
MAX_LINES = 200
MAX_BYTES = 25 * 1024
TYPES = ("user", "feedback", "project", "reference")
_ENTRY = re.compile(
    r"^[ \t]*[-*+][ \t]+\[(?P<title>[^\]\n]*)\]\((?P<href>[^()\s]+)\)"
    r"(?:[ \t]*(?:—|–|-|:)[ \t]*(?P<hook>.*?))?[ \t]*$"
)
_PREFIX = re.compile(r"([a-z]+)[_-](.+)")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")  # http:, mailto: ... (not a memory)
_LINK = re.compile(r"\[[^\]\n]*\]\((?P<href>[^()\s]+)\)")
_CODE = re.compile(r"`(?P<href>[^`\s]+\.md)`")


class MemoryIndexRefused(CuratorError):
    """MEMORY.md would be rewritten although no memory was read (a failed read, not an edit)."""


@dataclass(frozen=True)
class IndexEntry:
    line: int  # 1-based
    title: str
    href: str
    hook: str


@dataclass(frozen=True)
class ClaudeCode(Layout):
    name: str = "claude-code"
    notes: str = "."
    index_name: str = INDEX
    lenient: bool = True
    default_confidence: float | None = 0.75
    dangling: Severity = "warning"
    native: frozenset[str] | None = frozenset({"name", "description", "type", "metadata"})
    loose_headers: bool = True
    max_lines: int = MAX_LINES
    max_bytes: int = MAX_BYTES

    def dangling_problem(self, target: str, written: str = "") -> tuple[Severity, str, str]:
        return (
            "warning",
            "link.dangling",
            f"{written or f'[[{target}]]'} names no memory (Claude Code ignores it)",
        )

    def type_of(self, rel: str, header: Mapping[str, Any]) -> str | None:
        for source in (header, header.get("metadata")):
            if isinstance(source, Mapping) and isinstance(source.get("type"), str):
                return str(source["type"]).strip().lower()
        prefix = _PREFIX.fullmatch(stem(rel))
        return prefix.group(1) if prefix else self.default_type

    def keys(self, entry: Entry) -> Iterator[str]:
        yield stem(entry.rel)
        yield entry.name
        prefix = _PREFIX.fullmatch(stem(entry.rel))
        if prefix and prefix.group(1) in TYPES:
            yield prefix.group(2)

    def file_stem(self, name: str, type: str) -> str:
        """Claude Code's own naming: the type, then the topic (`feedback_testing`)."""
        words = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")[:60].rstrip("_") or "memory"
        return f"{type}_{words}" if type else words


LAYOUT = ClaudeCode()


# -- MEMORY.md -----------------------------------------------------------------------------
def parse_index(text: str) -> list[IndexEntry]:
    """The `- [Title](file.md) — hook` lines of MEMORY.md, in order."""
    found: list[IndexEntry] = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = _ENTRY.match(line)
        if match and not _SCHEME.match(match.group("href")):
            href = match.group("href").split("#", 1)[0]
            found.append(IndexEntry(number, match.group("title"), href, match.group("hook") or ""))
    return found


def _rel(folder: str, href: str) -> str:
    return posixpath.normpath(posixpath.join(folder, href.split("#", 1)[0]))


def references(text: str, folder: str = "") -> set[str]:
    """Every file MEMORY.md names, as Claude reads it: its entries, links anywhere in a line
    (`- see [Detail](project_y.md)`) and file names in backticks (`reference_z.md`)."""
    found: set[str] = set()
    for line in text.splitlines():
        for match in _LINK.finditer(line):
            if not _SCHEME.match(match.group("href")):
                found.add(_rel(folder, match.group("href")))
        found.update(_rel(folder, m.group("href")) for m in _CODE.finditer(line))
    return found


Finding = tuple[Severity, str, int, str]  # severity, code, line, message


def index_findings(
    data: bytes | None,
    memories: Iterable[str],
    *,
    folder: str = "",
    max_lines: int = MAX_LINES,
    max_bytes: int = MAX_BYTES,
    retired: Iterable[str] = (),
    files: Iterable[str] = (),
) -> list[Finding]:
    """What Claude Code would silently lose: MEMORY.md over its load limit, memories it does
    not name, entries pointing at files that do not exist. `memories` are the current ones'
    rels (a memory whose header does not parse is one: its header is its own finding);
    `retired` the superseded ones (still listed: a warning, not a missing file); `files` the
    other files in the folder, which an entry may point at (a diagram, a log)."""
    present, gone, other = set(memories), set(retired), set(files)
    if data is None:
        if present:
            return [("warning", "memory-index.missing", 0, f"no {INDEX}: Claude Code loads none")]
        return []
    text = data.decode("utf-8", "replace")
    entries = parse_index(text)
    out = _limits(data, text, entries, max_lines, max_bytes)
    for entry in entries:
        rel = _rel(folder, entry.href)
        if rel in gone:
            message = f"lists {entry.href}, which is superseded: run 'curator index'"
            out.append(("warning", "memory-index.superseded", entry.line, message))
        elif rel not in present and rel not in other:
            message = f"lists {entry.href}, which is missing"
            out.append(("error", "memory-index.dangling", entry.line, message))
    for rel in sorted(present - references(text, folder)):
        message = f"{rel} is not in {INDEX}: Claude Code won't see it"
        out.append(("warning", "memory-index.unlisted", 0, message))
    return out


def loaded_lines(data: bytes, max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES) -> int:
    """How many lines of MEMORY.md Claude Code loads: its first `max_lines` lines, cut
    shorter where the first `max_bytes` end. The one rule check's warnings and where an
    action puts a new entry both follow."""
    cut = len(data[:max_bytes].decode("utf-8", "ignore").splitlines())
    return min(max_lines, cut) if len(data) > max_bytes else max_lines


def _limits(
    data: bytes, text: str, entries: list[IndexEntry], max_lines: int, max_bytes: int
) -> list[Finding]:
    """MEMORY.md past what Claude Code loads: its first `max_lines` lines or `max_bytes`."""
    out: list[Finding] = []
    lines = text.splitlines()
    if len(lines) > max_lines:
        lost = sum(1 for e in entries if e.line > max_lines)
        message = (
            f"{len(lines)} lines: Claude Code loads the first {max_lines}; "
            f"{lost} entr{'y' if lost == 1 else 'ies'} after that are not loaded"
        )
        out.append(("warning", "memory-index.too-long", max_lines + 1, message))
    if len(data) > max_bytes:
        cut = loaded_lines(data, len(lines) + 1, max_bytes)
        message = (
            f"{len(data)} bytes: Claude Code loads the first {max_bytes // 1024} KB; "
            f"the rest (from line {cut + 1}) is not loaded"
        )
        out.append(("warning", "memory-index.too-large", cut + 1, message))
    return out


def edit_index(
    data: bytes | None,
    add: Sequence[tuple[str, str, str]],
    remove: Iterable[str] = (),
    *,
    folder: str = "",
    memories: int,
    max_lines: int = MAX_LINES,
    max_bytes: int = MAX_BYTES,
) -> bytes:
    """MEMORY.md with the entry lines of the memories in `remove` taken out and one
    `- [name](file.md) — description` line for each of `add` (rel, name, hook) that MEMORY.md
    does not name yet, after its last entry. Every other line is kept byte for byte, its line
    end included: the file is Claude's and the person's, curator owns only those lines.

    `memories` is how many memories were read: none read while MEMORY.md lists some means
    the read failed, and it is refused rather than rewritten. When the file is at or past
    what Claude Code loads (`loaded_lines`), new entries go after the last entry it still
    loads, so they are loaded (`cap_notice` says so in the plan).
    """
    gone = set(remove)
    lines = data.splitlines(keepends=True) if data is not None else []
    had_entries = False
    kept: list[bytes] = []
    after_entries = -1  # where new entries go: after the last one kept
    for raw in lines:
        match = _ENTRY.match(raw.decode("utf-8", "replace").rstrip("\r\n"))
        if match is None or _SCHEME.match(match.group("href")):
            kept.append(raw)
            continue
        had_entries = True
        if _rel(folder, match.group("href")) in gone:
            continue
        kept.append(raw)
        after_entries = len(kept)
    if had_entries and memories == 0:
        raise MemoryIndexRefused(f"no memories were read: refusing to empty {INDEX}")
    named = references(b"".join(kept).decode("utf-8", "replace"), folder)
    new: list[bytes] = []
    newline = b"\r\n" if data is not None and b"\r\n" in data else b"\n"
    for rel, name, hook in add:
        if rel not in named:
            new.append(_line(rel, name, hook, folder).encode("utf-8") + newline)
            named.add(rel)
    if new:
        at = after_entries if after_entries >= 0 else len(kept)
        room = loaded_lines(b"".join(kept), max_lines, max_bytes) - len(new)
        if at > room:  # past the cap Claude Code never reads them: put them above it
            within = [i + 1 for i, raw in enumerate(kept[:room]) if _is_entry(raw)]
            at = within[-1] if within else max(room, 0)
        if at > 0 and not kept[at - 1].endswith((b"\n", b"\r")):
            kept[at - 1] += newline  # the last line gets a line end, its bytes stay
        kept[at:at] = new
    return b"".join(kept)


def without_new_entries(data: bytes, since: bytes) -> bytes:
    """MEMORY.md without the entry lines `since` (an older MEMORY.md) lacks: the entries
    added since, which curator renders again for the memories there are. A three-way merge
    of a person's edit then meets only the other side's own edits, not its new entries."""
    old = set(since.splitlines(keepends=True))
    lines = data.splitlines(keepends=True)
    return b"".join(raw for raw in lines if raw in old or not _is_entry(raw))


def edited_by_hand(before: bytes, after: bytes) -> bool:
    """Whether `after` differs from `before` by more than what an action's `edit_index` does
    (entry lines added for memories `before` does not name, removed for those `after` no
    longer names): a line reworded, moved, added or removed by a person."""
    old = {entry.href for entry in parse_index(before.decode("utf-8", "replace"))}
    new = {entry.href for entry in parse_index(after.decode("utf-8", "replace"))}
    moved = old ^ new

    def kept(data: bytes) -> list[bytes]:
        return [raw for raw in data.splitlines() if _href(raw) not in moved]

    return kept(before) != kept(after)


def _href(raw: bytes) -> str | None:
    """The file an entry line names (None: not an entry)."""
    match = _ENTRY.match(raw.decode("utf-8", "replace").rstrip("\r\n"))
    if match is None or _SCHEME.match(match.group("href")):
        return None
    return str(match.group("href")).split("#", 1)[0]


def _is_entry(raw: bytes) -> bool:
    return _href(raw) is not None


def cap_notice(
    before: bytes | None, after: bytes, max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES
) -> str | None:
    """What a plan says when MEMORY.md is at or past what Claude Code loads: where the new
    entries went and what now falls past the cap; None when the file is within it."""
    old = (before or b"").splitlines()
    if before is None or loaded_lines(after, max_lines, max_bytes) >= len(after.splitlines()):
        return None
    cap = loaded_lines(after, max_lines, max_bytes)
    known = set(old)
    added = [n + 1 for n, line in enumerate(after.splitlines()) if line not in known]
    if not added:
        return None
    return (
        f"{INDEX} is {len(after.splitlines())} lines, past the {cap} Claude Code loads: the new "
        f"entry is at line {added[0]}, within them; what follows line {cap} is not loaded: "
        f"trim {INDEX} ('curator check' lists what is lost)"
    )


def _line(rel: str, name: str, hook: str, folder: str) -> str:
    href = posixpath.relpath(rel, folder or ".")
    title = " ".join(name.replace("[", "(").replace("]", ")").split())
    hook = " ".join(hook.split())
    return f"- [{title}]({href})" + (f" — {hook}" if hook else "")
