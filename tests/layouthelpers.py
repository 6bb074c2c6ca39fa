"""Reading a fixture folder through a layout's pure rules (no palace, no git)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from palacehelpers import git_init_commit

from curator.model.layouts import Layout, Resolved, Resolver, get_layout
from curator.model.layouts.frontmatter import read_note
from curator.model.layouts.walk import walk
from curator.model.note import Note

FIXTURES = Path(__file__).parent / "fixtures"
TYPES = ("user", "feedback", "project", "reference")


@dataclass
class Folder:
    layout: Layout
    notes: dict[str, Note]
    files: list[str]
    table: Resolver

    def links(self, rel: str) -> list[tuple[str, str, Resolved]]:
        note = self.notes[rel]
        return [(link.target, link.heading, self.table.resolve(rel, link)) for link in note.links]

    def problems(self) -> list[tuple[str, str, str]]:
        return [
            (rel, target, resolved.problem[1])
            for rel in self.notes
            for target, _, resolved in self.links(rel)
            if resolved.problem is not None
        ]


def read_folder(root: Path, layout: str | Layout) -> Folder:
    lay = get_layout(layout) if isinstance(layout, str) else layout
    files = list(walk(root, lay))
    notes = {
        rel: read_note(rel, (root / rel).read_bytes(), lay, TYPES) for rel, is_md in files if is_md
    }
    entries = [lay.entry(n.rel, n.header, n.header, n.text[n.header_end :]) for n in notes.values()]
    return Folder(
        lay, notes, [rel for rel, _ in files], lay.resolver(entries, [r for r, _ in files])
    )


def adopt_copy(fixture: Path, dest: Path, layout: str) -> Path:
    """A copy of a fixture folder adopted as a palace of `layout`, committed to git."""
    shutil.copytree(fixture, dest)
    (dest / "palace.toml").write_text(
        f'[palace]\nlayout = "{layout}"\n[index]\nembedder = "hash"\n'
    )
    (dest / ".gitignore").write_text("inbox/\n.curator/\n")
    git_init_commit(dest)
    return dest
