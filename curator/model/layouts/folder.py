"""Any folder of markdown: frontmatter optional (YAML, TOML `+++` or JSON), name from the title
or the file name, links by relative path or by file name."""

from __future__ import annotations

from dataclasses import dataclass

from curator.model.layouts.base import Layout


@dataclass(frozen=True)
class Folder(Layout):
    name: str = "folder"
    notes: str = "."
    lenient: bool = True
    default_confidence: float | None = 0.75
    excludes: tuple[str, ...] = ("inbox",)


LAYOUT = Folder()
