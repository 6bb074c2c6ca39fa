"""A Claude Code auto-memory folder: flat memory files, MEMORY.md as their index.

Each memory has `name`, `description` and `type` (user, feedback, project, reference) in its
frontmatter; some versions nest the type as `metadata: {type: ...}`, and the file name
usually starts with it (`feedback_testing.md`). MEMORY.md lists them one a line as
`- [Title](file.md) — hook`, and Claude Code loads only its first 200 lines or 25 KB: what
lies beyond is silently lost, so `index_findings` reports it, with memories MEMORY.md does not
list and entries that point at missing files. `[[name]]` resolves by name, by file name and
by file name without its type prefix; a dangling one is a warning (Claude Code ignores it).
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
_PREFIX = re.compile(r"^([a-z]+)[_-](.+)$")


class MemoryIndexRefused(CuratorError):
    """MEMORY.md would be rebuilt empty over one that lists memories (or with none listed)."""


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
    excludes: tuple[str, ...] = ("inbox",)
    native: frozenset[str] | None = frozenset({"name", "description", "type", "metadata"})
    max_lines: int = MAX_LINES
    max_bytes: int = MAX_BYTES

    def dangling_problem(self, target: str) -> tuple[Severity, str, str]:
        return (
            "warning",
            "link.dangling",
            f"[[{target}]] names no memory (Claude Code ignores it)",
        )

    def type_of(self, rel: str, header: Mapping[str, Any]) -> str | None:
        for source in (header, header.get("metadata")):
            if isinstance(source, Mapping) and isinstance(source.get("type"), str):
                return str(source["type"]).strip().lower()
        prefix = _PREFIX.match(stem(rel))
        return prefix.group(1) if prefix else self.default_type

    def keys(self, entry: Entry) -> Iterator[str]:
        yield stem(entry.rel)
        yield entry.name
        prefix = _PREFIX.match(stem(entry.rel))
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
        if match and not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", match.group("href")):
            href = match.group("href").split("#", 1)[0]
            found.append(IndexEntry(number, match.group("title"), href, match.group("hook") or ""))
    return found


def index_targets(text: str, folder: str = "") -> set[str]:
    """The rels MEMORY.md links to: inbound links for the orphan check."""
    return {posixpath.normpath(posixpath.join(folder, e.href)) for e in parse_index(text)}


Finding = tuple[Severity, str, int, str]  # severity, code, line, message


def index_findings(
    data: bytes | None,
    memories: Iterable[str],
    *,
    folder: str = "",
    max_lines: int = MAX_LINES,
    max_bytes: int = MAX_BYTES,
    retired: Iterable[str] = (),
) -> list[Finding]:
    """What Claude Code would silently lose: MEMORY.md over its load limit, memories it does
    not list, entries pointing at files that do not exist. `memories` are the current ones'
    rels; `retired` the superseded ones (still listed: a warning, not a missing file)."""
    present, gone = set(memories), set(retired)
    if data is None:
        if present:
            return [("warning", "memory-index.missing", 0, f"no {INDEX}: Claude Code loads none")]
        return []
    text = data.decode("utf-8", "replace")
    entries = parse_index(text)
    out = _limits(data, text, entries, max_lines, max_bytes)
    listed: set[str] = set()
    for entry in entries:
        rel = posixpath.normpath(posixpath.join(folder, entry.href))
        listed.add(rel)
        if rel in gone:
            message = f"lists {entry.href}, which is superseded: run 'curator index'"
            out.append(("warning", "memory-index.superseded", entry.line, message))
        elif rel not in present:
            message = f"lists {entry.href}, which is missing"
            out.append(("error", "memory-index.dangling", entry.line, message))
    for rel in sorted(present - listed):
        message = f"{rel} is not in {INDEX}: Claude Code won't see it"
        out.append(("warning", "memory-index.unlisted", 0, message))
    return out


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
        cut = len(data[:max_bytes].decode("utf-8", "ignore").splitlines())
        message = (
            f"{len(data)} bytes: Claude Code loads the first {max_bytes // 1024} KB; "
            f"the rest (from line {cut + 1}) is not loaded"
        )
        out.append(("warning", "memory-index.too-large", cut + 1, message))
    return out


def render_index(
    existing: str | None, memories: Sequence[tuple[str, str, str]], folder: str = ""
) -> str:
    """MEMORY.md with one `- [name](file.md) — description` line per memory (rel, name, hook).

    Lines that are not entries are kept as they are, entries keep their place and their words,
    entries for files that are gone (or superseded) are dropped and new memories are appended.
    Refuses to produce an index without entries when there are memories, or to empty one that
    lists some.
    """
    by_rel = {rel: (name, hook) for rel, name, hook in memories}
    lines = (existing or "").splitlines()
    had_entries = bool(parse_index(existing or ""))
    out: list[str] = []
    done: set[str] = set()
    for line in lines:
        match = _ENTRY.match(line)
        if not match:
            out.append(line)
            continue
        rel = posixpath.normpath(posixpath.join(folder, match.group("href").split("#", 1)[0]))
        if rel in by_rel and rel not in done:
            out.append(line)  # an entry's words are Claude's (or the person's): kept as written
            done.add(rel)
    for rel, name, hook in memories:
        if rel not in done:
            out.append(_line(rel, name, hook, folder))
            done.add(rel)
    text = "\n".join(out).strip("\n") + "\n"
    if memories and not parse_index(text):
        raise MemoryIndexRefused(f"{INDEX} would list none of {len(memories)} memories; refused")
    if had_entries and not memories:
        raise MemoryIndexRefused(f"no memories were read: refusing to empty {INDEX}")
    return text


def _line(rel: str, name: str, hook: str, folder: str) -> str:
    href = posixpath.relpath(rel, folder or ".")
    title = " ".join(name.replace("[", "(").replace("]", ")").split())
    hook = " ".join(hook.split())
    return f"- [{title}]({href})" + (f" — {hook}" if hook else "")
