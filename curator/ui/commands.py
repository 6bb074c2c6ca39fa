"""Command palette: "open note…" over every note, matched on plain (never markup) titles; and
a palette whose Enter acts on the row the person sees."""

from __future__ import annotations

import asyncio
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from textual.command import Command, CommandList, CommandPalette, DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from curator.model.text import one_line
from curator.ui.shell import Shell

if TYPE_CHECKING:
    from curator.model.note import Note

MAX_HITS = 40
OPEN_NOTE = "Open note…"


class CuratorPalette(CommandPalette):
    """Textual's palette re-sorts its list (and highlights the first row) each time a batch of
    hits arrives while the search still runs, so Down then Enter could run a command that was
    not the one shown highlighted. Here the highlighted command stays highlighted across a
    refresh; when it is gone nothing is highlighted (Enter then picks nothing)."""

    def _refresh_command_list(
        self, command_list: CommandList, commands: list[Command], clear_current: bool
    ) -> None:
        was = None if clear_current else command_list.highlighted_option
        super()._refresh_command_list(command_list, commands, clear_current)
        if was is None:  # a new search's first rows: the first is highlighted, as shown
            return
        for index in range(command_list.option_count):
            if command_list.get_option_at_index(index) is was:  # the same search's rows
                command_list.highlighted = index
                return
        command_list.highlighted = None


def _matches(notes: list[Note], query: str, matcher: Any) -> list[tuple[float, str, Note]]:
    found = []
    for note in notes:
        name = one_line(note.name or note.rel, 80)
        score = matcher.match(name)  # the note's name, not the command's words
        if score > 0:
            found.append((score, name, note))
    found.sort(key=lambda f: -f[0])
    return found[:MAX_HITS]


class OpenNoteProvider(Provider):
    async def discover(self) -> Hits:
        yield DiscoveryHit(OPEN_NOTE, self._focus_search, help="Find a note by name")

    async def _focus_search(self) -> None:
        await self.app.run_action("show_screen('search')")

    async def search(self, query: str) -> Hits:
        app = cast(Shell, self.app)
        if app.palace is None:
            return
        # "open note money" and "money" both look for notes named like "money"
        typed = query.strip()
        query = typed
        for lead in ("open note…", "open note", "open"):
            if query.casefold().startswith(lead):
                query = query[len(lead) :].strip()
                break
        if not query:  # "open": the command itself
            matcher = self.matcher(typed)
            score = matcher.match(OPEN_NOTE)
            if score > 0:
                yield Hit(score, matcher.highlight(OPEN_NOTE), self._focus_search, text=OPEN_NOTE)
            return
        matcher = self.matcher(query)
        notes = list(app.palace.notes)
        # matched in a thread, all at once: keys typed meanwhile echo at once
        found = await asyncio.to_thread(_matches, notes, query, matcher)
        prefix = "open note… "
        for score, name, note in found:
            _, offsets = matcher.fuzzy_search.match(query, name)
            title = prefix + name
            display = Content(title)
            for offset in offsets:
                start = len(prefix) + offset
                display = display.stylize("bold reverse", start, start + 1)
            yield Hit(score, display, partial(app.open_note, note.rel), text=title)
