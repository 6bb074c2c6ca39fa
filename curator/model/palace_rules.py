"""A layout's rules over a loaded palace: the link and permalink findings check reports,
the generated index (Claude Code's MEMORY.md), and where a promoted note goes and in which
format.

The rules that palace.toml alone answers (which files are notes, rooms, the link table) are
in `layouts.rules`, which the palace itself uses; these read a whole `Palace`, so they live
beside it rather than in `layouts/`, below it.
"""

from __future__ import annotations

from curator.model.finding import Finding
from curator.model.layouts import basic_memory, claude_code, walk
from curator.model.layouts.base import Layout
from curator.model.layouts.rules import index_name, layout_of, notes_prefix
from curator.model.links import RawLink
from curator.model.note import Note, new_note_text, parse_note
from curator.model.palace import Palace


# -- links ---------------------------------------------------------------------------------
def link_problem(palace: Palace, source_rel: str, link: RawLink) -> str | None:
    """What the layout says about one link that reaches nothing or a missing anchor."""
    problem = palace.link_table().resolve(source_rel, link).problem
    return problem[2] if problem is not None else None


def templates(palace: Palace) -> list[str]:
    """The files the layout's tool keeps as templates (read for links, never notes)."""
    return walk.templates(palace.root, layout_of(palace.config), palace.loaded.attachments)


def link_findings(palace: Palace) -> list[Finding]:
    """Broken links and anchors as the layout reports them (orphans are curator's rule only:
    a vault's daily notes or a project's leaves are not defects)."""
    resolver = palace.link_table()
    palace.read_links()
    out: list[Finding] = []
    for note in palace.notes:
        for link in note.links:
            problem = resolver.resolve(note.rel, link).problem
            if problem is not None:
                out.append(Finding(note.rel, link.line, problem[0], problem[1], problem[2]))
    return out


def permalink_findings(palace: Palace) -> list[Finding]:
    """Two notes holding one permalink: a link by it reaches neither (basic-memory would
    rename one on its next sync)."""
    entries = palace.link_table().entries
    holders: dict[str, list[str]] = {}
    for entry in entries.values():
        if entry.permalink:
            holders.setdefault(entry.permalink.casefold(), []).append(entry.rel)
    out: list[Finding] = []
    for rels in holders.values():
        for rel in rels[1:]:
            note = palace.by_rel[rel]
            message = f"permalink {entries[rel].permalink!r} is also {rels[0]}'s"
            out.append(
                Finding(rel, note.line_of("permalink"), "warning", "permalink.duplicate", message)
            )
    return out


# -- the generated index -------------------------------------------------------------------
def _current(palace: Palace) -> dict[str, Note]:
    """The memories MEMORY.md should name: every note not superseded, also one whose header
    does not parse (it exists; its header is its own finding)."""
    return {n.rel: n for n in palace.notes if not n.superseded}


def index_findings(palace: Palace, data: bytes | None) -> list[Finding]:
    """For Claude Code: what it would silently lose (see `claude_code.index_findings`)."""
    layout = layout_of(palace.config)
    if not isinstance(layout, claude_code.ClaudeCode):
        return []
    rel = index_name(palace.config)
    found = claude_code.index_findings(
        data,
        _current(palace),  # superseded ones leave MEMORY.md
        folder=notes_prefix(layout).rstrip("/"),
        max_lines=layout.max_lines,
        max_bytes=layout.max_bytes,
        retired=[n.rel for n in palace.notes if n.superseded],
        files=palace.loaded.attachments,
    )
    out: list[Finding] = []
    for severity, code, line, message in found:
        path = message.split(" ", 1)[0] if code == "memory-index.unlisted" else rel
        out.append(Finding(path, line, severity, code, message))
    return out


# -- promoted notes -------------------------------------------------------------------------------
def promote_path(palace: Palace, name: str, type: str) -> str:
    """Where a promoted note goes, named the layout's way, never over an existing file."""
    layout = layout_of(palace.config)
    stem = layout.file_stem(name, type)
    prefix = notes_prefix(layout)
    taken = {rel.casefold() for rel in palace.by_rel}
    candidate, counter = f"{prefix}{stem}.md", 2
    while candidate.casefold() in taken or (palace.root / candidate).exists():
        candidate = f"{prefix}{stem}-{counter}.md"
        counter += 1
    return candidate


def promoted_bytes(palace: Palace, rel: str, data: bytes) -> bytes:
    """A promoted note's bytes rewritten into the layout's format (a new file: nothing kept
    but what it says)."""
    note = parse_note(rel, data, "note")
    if not note.ok:
        return data
    header = layout_of(palace.config).new_header(rel, note.header)
    if isinstance(header.get("permalink"), str):  # an id to link by: never one a note holds
        others = [e for e in palace.link_table().entries.values() if e.rel != rel]
        # written the way the project's notes write theirs (`<project>/<path>` or `<path>`),
        # or its basic-memory config says when it has none
        # a note with no permalink of its own says nothing: basic-memory gives it one by its config
        notes = ((e.rel, e.permalink) for e in others if _own_permalink(palace, e.rel))
        prefix = basic_memory.project_prefix(notes, basic_memory.configured_prefix(palace.root))
        desired = f"{prefix}/{header['permalink']}" if prefix else header["permalink"]
        held = (e.permalink for e in others)
        header["permalink"] = basic_memory.unique_permalink(desired, held)
    return new_note_text(header, note.body, note.newline).encode("utf-8")


def _own_permalink(palace: Palace, rel: str) -> bool:
    note = palace.by_rel.get(rel)
    return note is not None and isinstance(note.header.get("permalink"), str)


def generated_index(
    palace: Palace, after: Palace, *, complete: bool = False
) -> tuple[str, bytes | None, bytes] | None:
    """(rel, bytes now, bytes after) of the layout's own generated index when it has one
    curator keeps (Claude Code's MEMORY.md); None otherwise.

    MEMORY.md is edited, never regenerated: an action adds the entries of the memories it
    adds (or brings back) and removes those of the memories it removes or supersedes; every
    other line stays as it is. `complete` (`curator index`) adds every memory MEMORY.md does
    not name and removes the entries of every superseded one."""
    layout = layout_of(palace.config)
    if not isinstance(layout, claude_code.ClaudeCode):
        return None
    rel = index_name(palace.config)
    try:
        existing: bytes | None = (palace.root / rel).read_bytes()
    except FileNotFoundError:
        existing = None
    if complete or existing is None:
        return rel, existing, render_memory_index(after, existing)
    now, later = _current(palace), _current(after)
    added = [n for r, n in later.items() if r not in now]
    return rel, existing, _edit_memory_index(after, existing, added, set(now) - set(later))


def render_memory_index(after: Palace, existing: bytes | None) -> bytes:
    """MEMORY.md for the palace `after`, edited from the file as it is: every current memory
    named, the entries of every superseded one gone, every other line kept (`curator index`,
    and sync when it replays a commit onto a teammate's MEMORY.md)."""
    later = _current(after)
    removed = {n.rel for n in after.notes if n.rel not in later}
    return _edit_memory_index(after, existing, list(later.values()), removed)


def _edit_memory_index(
    after: Palace, existing: bytes | None, added: list[Note], removed: set[str]
) -> bytes:
    layout = layout_of(after.config)
    caps = _caps(layout)
    return claude_code.edit_index(
        existing,
        [(n.rel, n.name, n.description) for n in added if n.ok],
        removed,
        folder=notes_prefix(layout).rstrip("/"),
        memories=len(after.notes),
        max_lines=caps[0],
        max_bytes=caps[1],
    )


def _caps(layout: Layout) -> tuple[int, int]:
    if isinstance(layout, claude_code.ClaudeCode):
        return layout.max_lines, layout.max_bytes
    return claude_code.MAX_LINES, claude_code.MAX_BYTES


def index_cap_notice(palace: Palace, before: bytes | None, after: bytes) -> str | None:
    """What a plan says when the layout's index is past what its tool loads (MEMORY.md)."""
    return claude_code.cap_notice(before, after, *_caps(layout_of(palace.config)))
