"""An Obsidian vault: the vault folder is the notes root; links resolve as Obsidian does.

A wikilink `[[Note]]` is case-insensitive and tries the exact path from the vault root, then
the linking note's folder, then every note of that file name, taking the shortest path when
two folders hold one (Obsidian's own tie-break); `aliases` in the frontmatter are names too.
`[[Note#Heading]]` and `[[Note#^block]]` are checked against the target's headings and block
ids. Embeds (`![[diagram.png]]`) and links to any existing file resolve like notes.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from curator.model.layouts.base import Entry, Layout, Resolver, stem, str_list, title_stem


@dataclass(frozen=True)
class Obsidian(Layout):
    name: str = "obsidian"
    notes: str = "."
    lenient: bool = True
    default_confidence: float | None = 0.75
    excludes: tuple[str, ...] = ("inbox",)

    def file_stem(self, name: str, type: str) -> str:
        """Obsidian names a note by its file: the title itself, less what a link cannot hold."""
        return title_stem(name)

    def aliases(self, header: Mapping[str, Any]) -> tuple[str, ...]:
        return tuple(str_list(header.get("aliases")) or str_list(header.get("alias")))

    def keys(self, entry: Entry) -> Iterator[str]:
        yield stem(entry.rel)  # Obsidian links by file name, never by a title property
        yield from entry.aliases

    def find(self, table: Resolver, source_rel: str, target: str, kind: str) -> str | None:
        folder = posixpath.dirname(source_rel)
        if kind == "md":
            found = table.file(posixpath.join(folder, target)) or table.file(table.root + target)
            return found or table.shortest(target)
        plain = target[:-3] if target.lower().endswith(".md") else target
        has_ext = "." in posixpath.basename(plain) and plain == target
        names = [target] if has_ext else [f"{plain}.md", plain]
        for name in names:
            for candidate in (table.root + name, posixpath.join(folder, name)):
                found = table.file(candidate)
                if found is not None:
                    return found
        for name in names:
            found = table.shortest(name)
            if found is not None:
                return found
        aliased = table.by_key.get(plain.casefold(), [])
        return aliased[0] if aliased else None


LAYOUT = Obsidian()
