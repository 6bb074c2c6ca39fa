"""A layout's rules applied to a loaded palace: which files are notes, how links resolve,
what check reports, and what the generated index is.

The palace, the loader and check call these; everything a layout decides is answered here,
so curator's own layout keeps its behaviour and the others differ only where their tools do.
"""

from __future__ import annotations

import posixpath
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from curator.config import TypeSpec
from curator.model.finding import Finding
from curator.model.layouts import LAYOUTS, basic_memory, claude_code, get_layout, walk
from curator.model.layouts.base import Layout, Resolver
from curator.model.layouts.frontmatter import adapt, body_of
from curator.model.links import RawLink
from curator.model.note import Kind, Note

if TYPE_CHECKING:
    from curator.model.palace import Palace

# header findings a lenient layout does not make: its notes need no name, description or
# type, and a type or scope curator does not know is the owning tool's own word
LENIENT_SKIPS = frozenset({"header.missing", "type.unknown", "scope.unknown", "header.reserved"})
_TABLES: weakref.WeakKeyDictionary[Any, Resolver] = weakref.WeakKeyDictionary()


def layout_of(config: Any) -> Layout:
    """The layout palace.toml names (curator's when it names none)."""
    name = getattr(config, "layout", None) or "curator"
    layout = get_layout(name, notes=getattr(config, "notes", None) or None)
    lines = getattr(config, "memory_index_lines", None)
    size = getattr(config, "memory_index_kb", None)
    if isinstance(layout, claude_code.ClaudeCode) and (lines or size):
        layout = replace(
            layout,
            max_lines=lines or layout.max_lines,
            max_bytes=(size * 1024) if size else layout.max_bytes,
        )
    return layout


def foreign(config: Any) -> bool:
    """The notes are not in curator's own layout (another tool's, or another notes root)."""
    layout = getattr(config, "layout", "curator")
    return layout != "curator" or getattr(config, "notes", None) not in (None, "notes")


def default_confidence(config: Any) -> float:
    """The confidence of a note that states none and has no type to take it from."""
    layout = LAYOUTS.get(getattr(config, "layout", "curator"))  # asked once a note: no copy
    return (layout.default_confidence if layout is not None else None) or 0.0


def kind_of(config: Any, rel: str) -> Kind | None:
    return kind_in(layout_of(config), rel, excludes_of(config))


def excludes_of(config: Any) -> tuple[str, ...]:
    return tuple(getattr(config, "exclude", None) or ())


def notes_prefix(layout: Layout) -> str:
    return "" if layout.notes in ("", ".") else layout.notes.strip("/") + "/"


def kind_in(layout: Layout, rel: str, excludes: Iterable[str] = ()) -> Kind | None:
    """ "note" for a markdown file the layout reads, "draft" under inbox/, else None."""
    if not rel.lower().endswith(".md"):
        return None
    if rel.startswith("inbox/"):
        return "draft"
    prefix = notes_prefix(layout)
    if not rel.startswith(prefix):
        return None
    return None if layout.excluded(rel[len(prefix) :], tuple(excludes)) else "note"


def adapt_all(notes: Iterable[Note], config: Any) -> list[Note]:
    layout = layout_of(config)
    if not layout.lenient:
        return list(notes)
    types = tuple(config.types)
    return [adapt(n, layout, types) for n in notes]


# -- rooms ---------------------------------------------------------------------------------
ROOT_ROOM = "/"  # the room key of the notes at the root of a layout with folder rooms


def room_rule(config: Any) -> Callable[[Note], str | None]:
    """Which room a current note is in (None: Unfiled), the one rule behind `Palace.rooms()`.

    By type in curator's and Claude Code's layouts: a type palace.toml lists, from a header that
    parsed. By top-level folder where the owning tool groups notes by folder (Obsidian, a folder
    of markdown, basic-memory): "Books/" for Books/Dune.md, ROOT_ROOM for a note at the root;
    a note whose header did not parse still sits in its folder, as it does in the tool."""
    layout = layout_of(config)
    if not layout.rooms_by_folder:
        types = config.types

        def by_type(note: Note) -> str | None:
            kind = note.header.get("type") if note.ok else None
            return kind if isinstance(kind, str) and kind in types else None

        return by_type
    prefix = notes_prefix(layout)

    def by_folder(note: Note) -> str:
        rel = note.rel[len(prefix) :] if note.rel.startswith(prefix) else note.rel
        folder, nested, _ = rel.partition("/")
        return folder + "/" if nested else ROOT_ROOM

    return by_folder


def room_specs(config: Any, root: Any, rooms: Mapping[str, list[Note]]) -> list[TypeSpec]:
    """The rooms in order, given the notes by room key: every type palace.toml lists in its
    order, or the folders that hold notes (the root's first, named for the notes root's
    folder, then by name)."""
    if not layout_of(config).rooms_by_folder:
        return list(config.types.values())
    confidence = default_confidence(config)
    root_name = posixpath.basename(notes_prefix(layout_of(config)).rstrip("/")) or root.name
    specs = []
    for key in sorted((k for k, notes in rooms.items() if notes), key=_folder_order):
        title = root_name if key == ROOT_ROOM else key.rstrip("/")
        purpose = "notes at the root" if key == ROOT_ROOM else f"notes under {key}"
        specs.append(TypeSpec(key, title, purpose, (0.0, 1.0), confidence))
    return specs


def _folder_order(key: str) -> tuple[bool, str, str]:
    return key != ROOT_ROOM, key.casefold(), key


# -- links ---------------------------------------------------------------------------------
def table(palace: Palace) -> Resolver:
    """The palace's link table under its layout (built once per palace object)."""
    found = _TABLES.get(palace)
    if found is None:
        layout = layout_of(palace.config)
        entries = [layout.entry(n.rel, n.header, n.header, body_of(n)) for n in palace.notes]
        files = [*getattr(palace, "attachments", ()), *(n.rel for n in palace.notes)]
        found = _TABLES[palace] = layout.resolver(entries, files, layout.notes)
    return found


def resolve(palace: Palace, source_rel: str, link: RawLink) -> str | None:
    return table(palace).resolve(source_rel, link).target


def link_problem(palace: Palace, source_rel: str, link: RawLink) -> str | None:
    """What the layout says about one link that reaches nothing or a missing anchor."""
    problem = table(palace).resolve(source_rel, link).problem
    return problem[2] if problem is not None else None


def templates(palace: Palace) -> list[str]:
    """The files the layout's tool keeps as templates (read for links, never notes)."""
    return walk.templates(palace.root, layout_of(palace.config), palace.attachments)


def link_findings(palace: Palace) -> list[Finding]:
    """Broken links and anchors as the layout reports them (orphans are curator's rule only:
    a vault's daily notes or a project's leaves are not defects)."""
    resolver = table(palace)
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
    holders: dict[str, list[str]] = {}
    for entry in table(palace).entries.values():
        if entry.permalink:
            holders.setdefault(entry.permalink.casefold(), []).append(entry.rel)
    out: list[Finding] = []
    for rels in holders.values():
        for rel in rels[1:]:
            note = palace.by_rel[rel]
            message = f"permalink {table(palace).entries[rel].permalink!r} is also {rels[0]}'s"
            out.append(
                Finding(rel, note.line_of("permalink"), "warning", "permalink.duplicate", message)
            )
    return out


def header_findings(findings: Iterable[Finding], layout: Layout) -> list[Finding]:
    """Header findings as a lenient layout makes them: the fields curator requires are
    optional, and what curator would call an error in a field it does not own is a warning."""
    if not layout.lenient:
        return list(findings)
    return [replace(f, severity="warning") for f in findings if f.code not in LENIENT_SKIPS]


# -- the generated index -------------------------------------------------------------------
def index_name(config: Any) -> str:
    layout = layout_of(config)
    return notes_prefix(layout) + layout.index_name


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
        files=getattr(palace, "attachments", ()),
    )
    out: list[Finding] = []
    for severity, code, line, message in found:
        path = message.split(" ", 1)[0] if code == "memory-index.unlisted" else rel
        out.append(Finding(path, line, severity, code, message))
    return out


def index_inbound(palace: Palace, data: bytes | None) -> set[str]:
    """Notes the generated index links to (MEMORY.md's links count as inbound links)."""
    if data is None or not isinstance(layout_of(palace.config), claude_code.ClaudeCode):
        return set()
    prefix = notes_prefix(layout_of(palace.config)).rstrip("/")
    return claude_code.index_targets(data.decode("utf-8", "replace"), prefix)


# -- writing -------------------------------------------------------------------------------
def route(config: Any, note: Note, updates: dict[str, Any]) -> dict[str, Any]:
    """Header updates as the layout can hold them (fields its tool lacks go under `curator:`)."""
    return layout_of(config).route(note.header, updates)


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
    from curator.model.note import new_note_text, parse_note

    note = parse_note(rel, data, "note")
    if not note.ok:
        return data
    header = layout_of(palace.config).new_header(rel, note.header)
    if isinstance(header.get("permalink"), str):  # an id to link by: never one a note holds
        held = (e.permalink for e in table(palace).entries.values() if e.rel != rel)
        header["permalink"] = basic_memory.unique_permalink(header["permalink"], held)
    return new_note_text(header, note.body, note.newline).encode("utf-8")


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
    return claude_code.edit_index(
        existing,
        [(n.rel, n.name, n.description) for n in added if n.ok],
        removed,
        folder=notes_prefix(layout_of(after.config)).rstrip("/"),
        memories=len(after.notes),
    )
