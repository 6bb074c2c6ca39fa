"""Any folder of markdown: frontmatter optional (YAML, TOML `+++` or JSON), name from the title
or the file name, links by relative path or by file name.

Many such folders are Obsidian vaults that keep `.obsidian/` out of git, so links resolve by
Obsidian's rules (`[[Name]]` and `![[file.png]]` by file name anywhere in the folder), except
that two files of one name make a bare `[[Name]]` ambiguous (an error naming both), where
Obsidian would silently take the shortest path; `[[Sub/Name]]` still reaches one of them.
"""

from __future__ import annotations

from dataclasses import dataclass

from curator.model.layouts.base import Resolver, Severity
from curator.model.layouts.obsidian import Obsidian, link_names


@dataclass(frozen=True)
class Folder(Obsidian):
    name: str = "folder"
    dangling: Severity = "error"
    native: frozenset[str] | None = None  # no tool owns the header: curator's fields as written

    def by_name(self, table: Resolver, name: str) -> str | None:
        found = table.ending_with(name)
        return found[0] if len(found) == 1 else None

    def unresolved(
        self, table: Resolver, target: str, written: str = ""
    ) -> tuple[Severity, str, str]:
        for name in link_names(target):
            found = table.ending_with(name)
            if len(found) > 1:
                shown = ", ".join(found)
                message = f"link to {target!r} matches {len(found)} files ({shown}): give the path"
                return self.dangling, "link.ambiguous", message
        return self.dangling_problem(target, written)


LAYOUT = Folder()
