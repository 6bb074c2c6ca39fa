"""A layout's rules read from palace.toml: which files are notes, which room a note is in,
how its links resolve, and which file is its generated index.

The palace, the loader, check and the planners call these, so curator's own layout keeps its
behaviour and the others differ only where their tools do. The rules that read a whole loaded
palace (link findings, MEMORY.md, where a promoted note goes) are in `curator.model.palace_rules`.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from curator.config import TypeSpec
from curator.model.discovery import in_inbox
from curator.model.finding import Finding
from curator.model.layouts import LAYOUTS, claude_code, get_layout
from curator.model.layouts.base import CURATOR_KEY, Layout, Resolver
from curator.model.layouts.frontmatter import adapt, body_of
from curator.model.note import Kind, Note

# header findings a lenient layout does not make: its notes need no name, description or
# type, and a type or scope curator does not know is the owning tool's own word
LENIENT_SKIPS = frozenset({"header.missing", "type.unknown", "scope.unknown", "header.reserved"})


def layout_of(config: Any) -> Layout:
    """The layout palace.toml names (curator's when it names none)."""
    name = getattr(config, "layout", None) or "curator"
    notes = getattr(config, "notes", None) or None
    layout = get_layout(name, notes=notes, inbox=getattr(config, "inbox", None))
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


def layout_confidence(config: Any) -> float | None:
    """The layout's confidence for a note that states none and has no type (None: the layout
    gives none, as curator's own, where every note has a type)."""
    layout = LAYOUTS.get(getattr(config, "layout", "curator"))  # asked once a note: no copy
    return layout.default_confidence if layout is not None else None


def default_confidence(config: Any) -> float:
    """The confidence of a note that states none and has no type to take it from."""
    return layout_confidence(config) or 0.0


def kind_of(config: Any, rel: str) -> Kind | None:
    return kind_in(layout_of(config), rel, excludes_of(config))


def excludes_of(config: Any) -> tuple[str, ...]:
    return tuple(getattr(config, "exclude", None) or ())


def notes_prefix(layout: Layout) -> str:
    return "" if layout.notes in ("", ".") else layout.notes.strip("/") + "/"


def kind_in(layout: Layout, rel: str, excludes: Iterable[str] = ()) -> Kind | None:
    """ "note" for a markdown file the layout reads, "draft" in the inbox, else None."""
    if not rel.lower().endswith(".md"):
        return None
    if in_inbox(rel, layout.inbox):
        return "draft"
    prefix = notes_prefix(layout)
    if not rel.startswith(prefix):
        return None
    return None if layout.excluded(rel[len(prefix) :], tuple(excludes)) else "note"


def adapt_all(notes: Iterable[Note], config: Any, layout: Layout | None = None) -> list[Note]:
    """The notes as the layout reads them (`layout`: the one palace.toml names, when the
    caller has it already)."""
    layout = layout or layout_of(config)
    types = tuple(config.types)
    return [adapt(n, layout, types) for n in notes]


# -- rooms ---------------------------------------------------------------------------------
ROOT_ROOM = "/"  # the room key of the notes at the root of a layout with folder rooms


def room_rule(config: Any, layout: Layout | None = None) -> Callable[[Note], str | None]:
    """Which room a current note is in (None: Unfiled), the one rule behind `Palace.rooms()`.

    By type in curator's and Claude Code's layouts: a type palace.toml lists, from a header that
    parsed. By top-level folder where the owning tool groups notes by folder (Obsidian, a folder
    of markdown, basic-memory): "Books/" for Books/Dune.md, ROOT_ROOM for a note at the root;
    a note whose header did not parse still sits in its folder, as it does in the tool.
    `layout`: palace.toml's, when the caller has it already."""
    layout = layout or layout_of(config)
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


def room_specs(
    config: Any, root: Any, rooms: Mapping[str, list[Note]], layout: Layout | None = None
) -> list[TypeSpec]:
    """The rooms in order, given the notes by room key: every type palace.toml lists in its
    order, or the folders that hold notes (the root's first, named for the notes root's
    folder, then by name). `layout`: palace.toml's, when the caller has it already."""
    layout = layout or layout_of(config)
    if not layout.rooms_by_folder:
        return list(config.types.values())
    confidence = default_confidence(config)
    root_name = posixpath.basename(notes_prefix(layout).rstrip("/")) or root.name
    specs = []
    for key in sorted((k for k, notes in rooms.items() if notes), key=_folder_order):
        title = root_name if key == ROOT_ROOM else key.rstrip("/")
        purpose = "notes at the root" if key == ROOT_ROOM else f"notes under {key}"
        specs.append(TypeSpec(key, title, purpose, (0.0, 1.0), confidence))
    return specs


def _folder_order(key: str) -> tuple[bool, str, str]:
    return key != ROOT_ROOM, key.casefold(), key


# -- links ---------------------------------------------------------------------------------
def link_table(config: Any, notes: Iterable[Note], attachments: Iterable[str]) -> Resolver:
    """The link table of these notes under the layout (`Palace.link_table` keeps it)."""
    layout = layout_of(config)
    notes = list(notes)
    entries = [layout.entry(n.rel, n.header, n.header, body_of(n)) for n in notes]
    files = [*attachments, *(n.rel for n in notes)]
    return layout.resolver(entries, files, layout.notes)


def header_findings(findings: Iterable[Finding], layout: Layout) -> list[Finding]:
    """Header findings as a lenient layout makes them: the fields curator requires are
    optional, and what curator would call an error in a field it does not own is a warning."""
    if not layout.lenient:
        return list(findings)
    return [replace(f, severity="warning") for f in findings if f.code not in LENIENT_SKIPS]


def held_header(note: Note, layout: Layout) -> dict[str, Any] | None:
    """The part of a note's header curator's schema judges. Where the owning tool owns the
    properties (`Layout.tool_properties`: Obsidian, basic-memory) the vault's own are the tool's,
    so only the fields under `curator:` are curator's (with the type the layout read, which a
    confidence range depends on); None when the note has no `curator:` mapping, so nothing of
    its header is curator's. Other layouts (Claude Code's fields are curator's own name,
    description and type, with the same rules): the whole header."""
    if not layout.tool_properties:
        return dict(note.header)
    ours = note.header.get(CURATOR_KEY)
    if not isinstance(ours, dict):
        return None
    held = {str(k): v for k, v in ours.items()}
    if "type" in note.header:
        held.setdefault("type", note.header["type"])
    return held


def index_name(config: Any) -> str:
    layout = layout_of(config)
    return notes_prefix(layout) + layout.index_name


# -- writing -------------------------------------------------------------------------------
def route(config: Any, note: Note, updates: dict[str, Any]) -> dict[str, Any]:
    """Header updates as the layout can hold them (fields its tool lacks go under `curator:`)."""
    return layout_of(config).route(note.header, updates)
