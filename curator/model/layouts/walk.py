"""The files a layout reads: every file under its notes root that no exclude names.

Markdown files are the notes; the others (attachments) are there for links to reach.
Symbolic links are not followed, so a note can never be read from outside the palace.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from curator.model.layouts.base import Layout


def walk(root: Path, layout: Layout, excludes: Iterable[str] = ()) -> Iterator[tuple[str, bool]]:
    """(rel from the palace root, is markdown) for each file the layout reads, sorted."""
    root = Path(root)
    base = root / layout.notes if layout.notes not in ("", ".") else root
    prefix = "" if layout.notes in ("", ".") else layout.notes.strip("/") + "/"
    extra = tuple(excludes)
    found: list[tuple[str, bool]] = []
    for folder, dirs, files in os.walk(base):
        rel_folder = os.path.relpath(folder, base).replace(os.sep, "/")
        rel_folder = "" if rel_folder == "." else rel_folder + "/"
        dirs[:] = [
            d
            for d in dirs
            if not os.path.islink(os.path.join(folder, d))
            and not layout.excluded(f"{rel_folder}{d}/x", extra)
        ]
        for name in files:
            rel = rel_folder + name
            if os.path.islink(os.path.join(folder, name)) or layout.excluded(rel, extra):
                continue
            found.append((prefix + rel, name.lower().endswith(".md")))
    found.sort()
    return iter(found)


def outside(root: Path, layout: Layout, excludes: Iterable[str] = ()) -> list[str]:
    """Markdown files in the palace folder the layout will not read (for `init` to warn)."""
    read = {rel for rel, is_md in walk(root, layout, excludes) if is_md}
    skipped: list[str] = []
    for folder, dirs, files in os.walk(root):
        top = Path(folder) == Path(root)  # drafts and state live at the top; deeper, notes
        dirs[:] = [d for d in dirs if not (top and d in (".curator", "inbox")) and d != ".git"]
        for name in files:
            rel = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
            if name.lower().endswith(".md") and rel not in read and rel != layout.index_name:
                skipped.append(rel)
    return sorted(skipped)
