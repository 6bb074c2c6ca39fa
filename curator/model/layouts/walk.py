"""The files a layout reads: every file under its notes root that no exclude names.

Markdown files are the notes; the others (attachments, and the tool's templates, which are
markdown full of placeholders) are there for links to reach. Symbolic links are not followed,
so a note can never be read from outside the palace.
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
    templates = layout.templates_folder(base)
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
            is_note = name.lower().endswith(".md") and not in_folder(rel, templates)
            found.append((prefix + rel, is_note))
    found.sort()
    return iter(found)


def in_folder(rel: str, folder: str | None) -> bool:
    """Whether `rel` (relative to the notes root) lies in `folder` (case-insensitive)."""
    return folder is not None and rel.casefold().startswith(folder.casefold().strip("/") + "/")


def templates(root: Path, layout: Layout, files: Iterable[str]) -> list[str]:
    """Of `files` (rels from the palace root), the tool's templates."""
    prefix = "" if layout.notes in ("", ".") else layout.notes.strip("/") + "/"
    folder = layout.templates_folder(root / layout.notes if prefix else root)
    return [
        rel
        for rel in files
        if rel.lower().endswith(".md") and in_folder(rel[len(prefix) :], folder)
    ]


def outside(root: Path, layout: Layout, excludes: Iterable[str] = ()) -> list[str]:
    """Markdown files in the palace folder the layout will not read (for `init` to warn)."""
    read = {rel for rel, _ in walk(root, layout, excludes)}
    skipped: list[str] = []
    for folder, dirs, files in os.walk(root):
        top = Path(folder) == Path(root)  # drafts live at the top; deeper, that name holds notes
        dirs[:] = [d for d in dirs if not d.startswith(".") and not (top and d == layout.inbox)]
        for name in files:
            rel = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
            if name.lower().endswith(".md") and rel not in read and rel != layout.index_name:
                skipped.append(rel)
    return sorted(skipped)
