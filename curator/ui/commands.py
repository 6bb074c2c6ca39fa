"""Command palette: "open note…" over every note, matched on plain (never markup) titles; and
a palette whose Enter acts on the row the person sees."""

from __future__ import annotations

import asyncio
import re
import time
import weakref
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from textual.command import Command, CommandList, CommandPalette, DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from curator.model.text import one_line
from curator.ui.shell import Shell

if TYPE_CHECKING:
    from curator.model.note import Note
    from curator.model.palace import Palace

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


MAX_SCORED = 100  # names given Textual's fuzzy score on each key
YIELD_EVERY = 500  # names looked at between two turns of the event loop's thread


_NAMES: weakref.WeakKeyDictionary[Palace, list[tuple[str, str, Note]]] = weakref.WeakKeyDictionary()


def _names(palace: Palace) -> list[tuple[str, str, Note]]:
    """Each note's name as the palette shows it, and lowered, made once per palace."""
    named = _NAMES.get(palace)
    if named is None:
        named = []
        for note in palace.notes:
            name = one_line(note.name or note.rel, 80)  # the note's name, not the command's words
            named.append((name, name.lower(), note))
        _NAMES[palace] = named
    return named


def _matches(palace: Palace, query: str, matcher: Any) -> list[tuple[float, str, Note]]:
    """The best MAX_HITS notes by Textual's fuzzy score of their names (what the palette sorts
    by), the score given to MAX_SCORED names at most. Textual's matcher is Python (a fraction of
    a millisecond a name): scoring all 10k names on every key held the event loop from echoing
    the keys. The names it would score at all hold the query's letters in order (a regex, in
    C); those holding the query as one piece come first (Textual scores them highest), where a
    word starts with it first, then the shortest. Benchmark row: bench_app.py --echo-only."""
    wanted = query.lower()
    if not wanted:
        return []
    first, *rest = map(re.escape, wanted)
    in_order = re.compile(first + "".join(f"[^{c}]*{c}" for c in rest))  # no backtracking
    ranked: list[tuple[tuple[int, int], str, Note]] = []
    for number, (name, lowered, note) in enumerate(_names(palace)):
        if number % YIELD_EVERY == YIELD_EVERY - 1:
            time.sleep(0)  # the event loop's turn to take the GIL: keys echo meanwhile
        at = lowered.find(wanted)
        if at >= 0:
            word = at == 0 or not lowered[at - 1].isalnum()
            ranked.append(((0 if word else 1, len(name)), name, note))
        elif in_order.search(lowered):
            ranked.append(((2, len(name)), name, note))
    ranked.sort(key=lambda r: r[0])
    found = []
    for _rank, name, note in ranked[:MAX_SCORED]:
        score = matcher.match(name)
        if score > 0:
            found.append((score, name, note))
    found.sort(key=lambda f: -f[0])
    return found[:MAX_HITS]


class OpenNoteProvider(Provider):
    async def discover(self) -> Hits:
        yield DiscoveryHit(OPEN_NOTE, self._pick, help="Find a note by name")

    def _pick(self) -> None:
        cast(Shell, self.app).pick_note()

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
                yield Hit(score, matcher.highlight(OPEN_NOTE), self._pick, text=OPEN_NOTE)
            return
        matcher = self.matcher(query)
        # matched in a thread, all at once: keys typed meanwhile echo at once
        found = await asyncio.to_thread(_matches, app.palace, query, matcher)
        prefix = "open note… "
        for score, name, note in found:
            _, offsets = matcher.fuzzy_search.match(query, name)
            title = prefix + name
            display = Content(title)
            for offset in offsets:
                start = len(prefix) + offset
                display = display.stylize("bold reverse", start, start + 1)
            yield Hit(score, display, partial(app.open_note, note.rel), text=title)
