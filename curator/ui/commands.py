"""Command palette: "open note…" over every note, matched on plain (never markup) titles."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from curator.model.text import one_line

if TYPE_CHECKING:
    from curator.ui.app import CuratorApp

MAX_HITS = 40


class OpenNoteProvider(Provider):
    async def discover(self) -> Hits:
        yield DiscoveryHit("Open note…", self._focus_search, help="Find a note by name")

    async def _focus_search(self) -> None:
        cast("CuratorApp", self.app).action_show_screen("search")

    async def search(self, query: str) -> Hits:
        app = cast("CuratorApp", self.app)
        if app.palace is None:
            return
        # "open note money" and "money" both look for notes named like "money"
        query = query.strip()
        for lead in ("open note…", "open note", "open"):
            if query.casefold().startswith(lead):
                query = query[len(lead) :].strip()
                break
        if not query:
            return
        matcher = self.matcher(query)
        found = 0
        prefix = "open note… "
        for note in app.palace.notes:
            name = one_line(note.name or note.rel, 80)
            score = matcher.match(name)  # the note's name, not the command's words
            if score <= 0:
                continue
            _, offsets = matcher.fuzzy_search.match(query, name)
            title = prefix + name
            display = Content(title)
            for offset in offsets:
                start = len(prefix) + offset
                display = display.stylize("bold reverse", start, start + 1)
            yield Hit(score, display, partial(app.open_note, note.rel), text=title)
            found += 1
            if found >= MAX_HITS:
                return
