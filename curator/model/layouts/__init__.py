"""Layouts: where a palace's notes live and how the tool that owns them reads them.

`[palace] layout = "curator" | "claude-code" | "obsidian" | "basic-memory" | "folder"` in
palace.toml picks one; `detect(path)` guesses one for `curator init --adopt`.
"""

from __future__ import annotations

from dataclasses import replace

from curator.errors import ConfigError
from curator.model.layouts import basic_memory, claude_code, curator, folder, obsidian
from curator.model.layouts.base import Entry, Layout, Resolved, Resolver
from curator.model.layouts.detection import Detected, detect

LAYOUTS: dict[str, Layout] = {
    m.LAYOUT.name: m.LAYOUT for m in (curator, claude_code, obsidian, basic_memory, folder)
}


def get_layout(
    name: str = "curator", *, notes: str | None = None, inbox: str | None = None
) -> Layout:
    """The layout named in palace.toml, its notes root and drafts folder overridden when
    given."""
    layout = LAYOUTS.get(name)
    if layout is None:
        raise ConfigError(f"unknown layout {name!r} (known: {', '.join(LAYOUTS)})")
    if notes is not None and notes != layout.notes:
        layout = replace(layout, notes=notes)
    if inbox is not None and inbox != layout.inbox:
        layout = replace(layout, inbox=inbox)
    return layout


__all__ = ["LAYOUTS", "Detected", "Entry", "Layout", "Resolved", "Resolver", "detect", "get_layout"]
