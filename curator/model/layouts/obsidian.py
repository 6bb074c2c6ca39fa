"""An Obsidian vault: the vault folder is the notes root; links resolve as Obsidian does.

A wikilink `[[Note]]` and a markdown link `[x](Note.md)` (percent-decoded) resolve alike and
without regard to case: a path starting `./` or `../` from the linking note's folder; else
the exact path from the vault root, then the linking note's own folder, then every file
whose path ends with the name, the shortest path first (see `Obsidian.find`). `.md` is
appended to a link unless a file with the name as written exists, so
`[[Notes/v1.2 Release]]` reaches `Notes/v1.2 Release.md` and
`[[diagram.png]]` the picture. A note's `aliases` are names for search and `show` only: a raw
`[[Alias]]` stays unresolved, as in Obsidian, which writes `[[Note|Alias]]`.
`[[Note#Heading]]` is compared after Obsidian strips the characters a link cannot hold
(`[[b#Setup Config]]` reaches `## Setup & Config?`); `[[Note#^block]]` checks block ids.
Links in properties (`up: "[[Home]]"`) are links. An unresolved link is a warning: in Obsidian
a click on it creates the note. Files in the Templates plugin's folder are templates, not notes.
Dot-folders (`.obsidian/`, `.trash/`, `.github/`) are not part of the vault (see `Layout.excluded`).
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from curator.model.layouts.base import (
    Entry,
    Layout,
    Resolver,
    Severity,
    stem,
    str_list,
    title_stem,
)

# what Obsidian replaces with a space in a heading before comparing it with a link's heading
_HEADING_STRIP = re.compile(r"[!\"#$%&()*+,.:;<=>?@^`{|}~/\[\]\\]")
TEMPLATES_DEFAULT = "Templates"
# the properties Obsidian (and Obsidian Publish) define, with the identity fields curator reads
# from any layout; curator's other fields go under `curator:`
NATIVE = frozenset(
    {"name", "title", "description", "type", "tags", "tag", "aliases", "alias", "cssclasses"}
    | {"publish", "permalink", "image", "cover"}
)


def obsidian_heading(text: str) -> str:
    """A heading as Obsidian compares it: the characters a link cannot hold become spaces,
    whitespace collapses, case is ignored (backticks go too: `` `code` `` matches `code`)."""
    return " ".join(_HEADING_STRIP.sub(" ", text).split()).casefold()


def link_names(target: str) -> list[str]:
    """The file names a wikilink target may mean, in order: `.md` is appended unless the
    last segment has an extension, in which case the name as written comes first."""
    if target.lower().endswith(".md"):
        return [target]
    if "." in posixpath.basename(target):
        return [target, f"{target}.md"]
    return [f"{target}.md", target]


def templates_folder(vault: Path) -> str | None:
    """The folder of the Templates core plugin, relative to the vault: the one named in
    `.obsidian/templates.json`, else `Templates` when the plugin is on; None without it."""
    config = vault / ".obsidian"
    try:
        folder = json.loads((config / "templates.json").read_text(encoding="utf-8")).get("folder")
    except (OSError, ValueError, AttributeError):
        folder = None
    if isinstance(folder, str) and folder.strip("/ "):
        return folder.strip("/ ")
    try:
        plugins = json.loads((config / "core-plugins.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    enabled = plugins.get("templates") is True if isinstance(plugins, dict) else False
    if isinstance(plugins, list):
        enabled = "templates" in plugins
    return TEMPLATES_DEFAULT if enabled and (vault / TEMPLATES_DEFAULT).is_dir() else None


@dataclass(frozen=True)
class Obsidian(Layout):
    name: str = "obsidian"
    notes: str = "."
    lenient: bool = True
    default_confidence: float | None = 0.75
    dangling: Severity = "warning"
    tool_properties: bool = True
    native: frozenset[str] | None = NATIVE
    property_links: bool = True
    bare_md_links: bool = True
    rooms_by_folder: bool = True

    def file_stem(self, name: str, type: str) -> str:
        """Obsidian names a note by its file: the title itself, less what a link cannot hold."""
        return title_stem(name)

    def aliases(self, header: Mapping[str, Any]) -> tuple[str, ...]:
        return tuple(str_list(header.get("aliases")) or str_list(header.get("alias")))

    def keys(self, entry: Entry) -> Iterator[str]:
        yield stem(entry.rel)  # Obsidian links by file name, never by a title property
        yield from entry.aliases

    def heading_key(self, text: str) -> str:
        return obsidian_heading(text)

    def templates_folder(self, vault: Path) -> str | None:
        return templates_folder(vault)

    def find(self, table: Resolver, source_rel: str, target: str, kind: str) -> str | None:
        """Obsidian's `getFirstLinkpathDest`, for a wikilink and a (decoded) markdown link
        alike: a path written relative (`./`, `../`) from the note's folder; otherwise the
        exact path from the vault root, then the note's own folder, then any path ending
        with it, the shortest first (observed on Obsidian 1.13: `[[Note]]` from `zzzz/`
        reaches `zzzz/Note.md` over a shorter `b/Note.md`; from elsewhere `a/b/Note.md`
        over `zzzz/Note.md`)."""
        folder = posixpath.dirname(source_rel)
        if target.startswith(("./", "../")):
            return next(
                (
                    f
                    for name in link_names(target)
                    if (f := table.file(posixpath.join(folder, name)))
                ),
                None,
            )
        names = link_names(target.lstrip("/"))
        for base in (table.root, f"{folder}/" if folder else table.root):
            for name in names:
                found = table.file(base + name)
                if found is not None:
                    return found
        for name in names:
            found = self.by_name(table, name)
            if found is not None:
                return found
        return None

    def by_name(self, table: Resolver, name: str) -> str | None:
        """The file a name reaches anywhere in the vault: the shortest path wins."""
        return table.shortest(name)

    def unresolved(
        self, table: Resolver, target: str, written: str = ""
    ) -> tuple[Severity, str, str]:
        severity, code, message = self.dangling_problem(target, written)
        plain = target[:-3] if target.lower().endswith(".md") else target
        aliased = table.by_key.get(plain.casefold(), [])
        if aliased:
            rel = aliased[0]
            others = f" (also {', '.join(aliased[1:])})" if len(aliased) > 1 else ""
            message += (
                f"; it is an alias of {rel}{others}, which Obsidian links as "
                f"[[{stem(rel)}|{target}]]"
            )
        return severity, code, message


LAYOUT = Obsidian()
