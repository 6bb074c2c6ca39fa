"""Layouts: where a palace's notes live and how the tool that owns them reads them.

`[palace] layout = "curator" | "claude-code" | "obsidian" | "basic-memory" | "folder"` in
palace.toml picks one; `detect(path)` guesses one for `curator init --adopt`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

from curator.errors import ConfigError
from curator.model.layouts import basic_memory, claude_code, curator, folder, obsidian
from curator.model.layouts.base import Entry, Layout, Resolved, Resolver

LAYOUTS: dict[str, Layout] = {
    m.LAYOUT.name: m.LAYOUT for m in (curator, claude_code, obsidian, basic_memory, folder)
}
_SCAN_LIMIT = 200  # files read to guess a layout


def get_layout(name: str = "curator", *, notes: str | None = None) -> Layout:
    """The layout named in palace.toml, its notes root overridden when one is given."""
    layout = LAYOUTS.get(name)
    if layout is None:
        raise ConfigError(f"unknown layout {name!r} (known: {', '.join(LAYOUTS)})")
    return layout if notes is None else replace(layout, notes=notes)


@dataclass(frozen=True)
class Detected:
    layout: str
    notes: str
    reason: str


def detect(root: Path) -> Detected:
    """The layout a folder of memory already has, with the reason, for `init --adopt`."""
    root = Path(root)
    if (root / ".obsidian").is_dir():
        return Detected("obsidian", ".", "it has an .obsidian/ folder")
    if (root / ".basic-memory").exists():
        return Detected("basic-memory", ".", "it has a .basic-memory marker")
    if (root / claude_code.INDEX).is_file():
        return Detected("claude-code", ".", f"it has {claude_code.INDEX}, Claude Code's index")
    if (root / "notes").is_dir() and (root / "INDEX.md").is_file():
        return Detected("curator", "notes", "it has notes/ and INDEX.md")
    heads = _heads(root)
    if heads and sum("permalink:" in h for h in heads) * 2 >= len(heads):
        return Detected("basic-memory", ".", "most notes have a permalink, as basic-memory writes")
    return Detected("folder", ".", "a folder of markdown")


def _heads(root: Path) -> list[str]:
    found: list[str] = []
    for where, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if name.endswith(".md") and len(found) < _SCAN_LIMIT:
                try:
                    with open(os.path.join(where, name), "rb") as handle:
                        found.append(handle.read(2048).decode("utf-8", "replace"))
                except OSError:
                    continue
        if len(found) >= _SCAN_LIMIT:
            break
    return found


__all__ = ["LAYOUTS", "Detected", "Entry", "Layout", "Resolved", "Resolver", "detect", "get_layout"]
