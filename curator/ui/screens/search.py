"""Search: as-you-type search with filters; snippets with matches highlighted; Enter opens;
e, r, s, t act on the highlighted result as they do in Rooms and Audit.

Each keystroke restarts a short debounce timer; the query then runs in a thread worker that a
newer query cancels, so the event loop never waits on LanceDB and the results shown are the
newest query's.
Down moves from the query into the results, Up at the top of the results goes back."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.timer import Timer
from textual.validation import Number
from textual.widgets import Checkbox, Input, OptionList, Select
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from curator.model.note import Note
from curator.model.palace import Palace
from curator.model.schema import NOTE_STATUSES
from curator.ui import services
from curator.ui.safe import badges, plain
from curator.ui.screens.note_actions import NOTE_KEYS, NoteActions
from curator.ui.screens_list import SCREENS

SCREEN_KEYS = {key: mode for mode, (_title, key, _help) in SCREENS.items()}


def highlighted(snippet: str, spans: tuple[tuple[int, int], ...]) -> Text:
    """The snippet with the matched spans highlighted (spans index the cleaned snippet)."""
    text = plain(snippet, "dim")
    text.no_wrap = False
    if text.plain == snippet:
        for start, end in spans:
            text.stylize("bold reverse", start, end)
    return text


DEBOUNCE = 0.015  # seconds of quiet typing before a query runs
LIMIT = 30  # results a query shows first; the last row asks for LIMIT more
MORE = "--more--"  # the id of that row


def stale_label(on: bool) -> str:
    """The stale filter's label says its state in words, not by the mark's colour alone."""
    return "stale: on" if on else "stale: off"


class QueryInput(Input):
    """The query: while it is empty a screen's number key switches to that screen (a digit
    typed after a word is part of the query; alt+number switches anywhere)."""

    async def _on_key(self, event: events.Key) -> None:
        mode = SCREEN_KEYS.get(event.character or "")
        if mode is not None and not self.value:
            event.stop()
            event.prevent_default()
            await self.app.run_action(f"show_screen('{mode}')")
            return
        await super()._on_key(event)


class ResultsList(OptionList):
    """The results: Up on the first result goes back to the query."""

    def action_cursor_up(self) -> None:
        if self.highlighted is None or self.highlighted <= 0:
            self.screen.query_one("#search-query").focus()
        else:
            super().action_cursor_up()


class SearchScreen(NoteActions):
    MODE = "search"
    BINDINGS = [
        Binding(
            "escape",
            "leave_query",
            "Leave query",
            id="search.leave",
            tooltip="Leave the query field (number keys then switch screens, as they do while "
            "the query is empty and with alt)",
        ),
        Binding("ctrl+f", "focus_query", "Query", id="search.focus", tooltip="Type a query"),
        Binding(
            "ctrl+t", "focus_filters", "Filters", id="search.filters", tooltip="Go to the filters"
        ),
        Binding(
            "down",
            "to_results",
            "Results",
            id="search.results",
            show=False,
            tooltip="From the query to the results",
        ),
        *NOTE_KEYS,  # on the highlighted result (while typing, the query takes the letters)
    ]

    def __init__(self) -> None:
        super().__init__()
        self.results: list[services.Found] = []
        self.shown: tuple[str, dict[str, Any]] | None = None  # the query the results are for
        self._timer: Timer | None = None
        self._choices: tuple[tuple[str, ...], tuple[str, ...]] | None = None
        self._keep: str | None = None  # the result to highlight again once the query reruns
        self.limit = LIMIT  # results asked for (the "more" row adds LIMIT)
        self._limit_for: tuple[str, dict[str, Any]] | None = None  # the query `limit` is for

    def body(self) -> ComposeResult:
        yield QueryInput(placeholder="search notes…", id="search-query")
        with Horizontal(id="search-filters"):
            yield Select([], prompt="type", id="search-type")
            yield Select([], prompt="scope", id="search-scope")
            yield Select(
                [(Text(status), status) for status in NOTE_STATUSES],
                prompt="status",
                id="search-status",
            )
            yield Checkbox(stale_label(False), id="search-stale")
            yield Input(
                placeholder="min conf",
                id="search-confidence",
                restrict=r"[0-9.]*",
                validators=[Number(0, 1)],  # out of range: marked in place, not an error toast
                valid_empty=True,
                tooltip="The least confidence a note has: 0 to 1",
            )
        yield ResultsList(id="search-results")

    def on_mount(self) -> None:
        self.query_one("#search-results").border_title = "Results"
        self.query_one("#search-query").focus()

    def palace_changed(self, palace: Palace) -> None:
        """Offer the palace's types and scopes, and run the query again on the new palace:
        the filters chosen and the highlighted result stay (after an action on it, say)."""
        choices = (tuple(palace.config.types), tuple(palace.config.scopes))
        if choices != self._choices:  # set_options clears a Select's value
            self._choices = choices
            types = self.query_one("#search-type", Select)
            types.set_options([(plain(t), t) for t in choices[0]])
            scopes = self.query_one("#search-scope", Select)
            scopes.set_options([(plain(s), s) for s in choices[1]])
        note = self.selected()
        self._keep = note.rel if note is not None else None
        self.shown = None
        self.refresh_results()

    def filters(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        type_ = self.query_one("#search-type", Select).value
        if isinstance(type_, str):
            out["types"] = [type_]
        scope = self.query_one("#search-scope", Select).value
        if isinstance(scope, str):
            out["scope"] = scope
        status = self.query_one("#search-status", Select).value
        if isinstance(status, str):
            out["status"] = status
        if self.query_one("#search-stale", Checkbox).value:
            out["stale"] = True
        confidence = self.query_one("#search-confidence", Input)
        if confidence.value and confidence.is_valid:  # (not a number from 0 to 1: left out)
            out["min_confidence"] = float(confidence.value)
        return out

    @on(Checkbox.Changed, "#search-stale")
    def _stale_label(self, event: Checkbox.Changed) -> None:
        event.checkbox.label = stale_label(event.value)

    @on(Input.Changed)
    @on(Select.Changed)
    @on(Checkbox.Changed)
    def refresh_results(self) -> None:
        """Run the query once typing pauses for DEBOUNCE seconds."""
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(DEBOUNCE, self._start_search)

    def _start_search(self) -> None:
        self._timer = None
        query = self.query_one("#search-query", Input).value
        filters = self.filters()
        if (query, filters) != self._limit_for:  # a new query starts with LIMIT results
            self.limit, self._limit_for = LIMIT, (query, filters)
        if self.palace is None or not query.strip():
            self._show(query, filters, [])
        elif (query, filters) != self.shown:
            if not self.curator.session.index.ready:
                self.query_one("#search-results").border_title = "Results (indexing…)"
            self.run_search(query, filters, self.limit)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def run_search(self, query: str, filters: dict[str, Any], limit: int) -> None:
        """Search for `query` in this thread; a newer query cancels it. A query waits while an
        index sync holds the search session: one cancelled meanwhile ends before it queries,
        so typing during a sync runs only the last query once the sync is done."""
        worker = get_current_worker()
        # the app's palace when the query runs, not an argument (see IndexJobs._run)
        palace = self.palace
        if palace is None:
            return
        session = self.curator.session
        try:
            session.searcher(palace)  # (waits for a running sync)
            if worker.is_cancelled:
                return
            found = services.search(session, palace, query, filters, limit)
        except Exception as exc:
            self.app.call_from_thread(self.curator.error, exc)
            return
        if not worker.is_cancelled:  # a newer query would replace these results at once
            self.app.call_from_thread(self._show, query, filters, found)

    def _show(self, query: str, filters: dict[str, Any], found: list[services.Found]) -> None:
        if query != self.query_one("#search-query", Input).value:
            return  # typing went on: a newer query is on its way
        self.shown = (query, filters)
        options = self.query_one("#search-results", OptionList)
        at = options.highlighted
        # the row a person in the list is on stays theirs when late results replace the list
        on_row = self.results[at].path if at is not None and at < len(self.results) else None
        had_row = at is not None
        self.results = found
        prompts = []
        palace = self.palace
        for hit in found:
            prompt = Text(f"{hit.score:.2f} ", style="cyan")
            prompt.append_text(plain(hit.name, "bold"))
            prompt.append(f"  {hit.type}", style="magenta")
            note = palace.by_rel.get(hit.path) if palace is not None else None
            if note is not None and (flags := palace.flags(note, self.curator.today)):  # type: ignore[union-attr]
                prompt.append("  ")
                prompt.append_text(badges(flags))
            folder = PurePosixPath(hit.path).parent.as_posix()
            prompt.append("  ")  # outside plain(), which trims: type and folder stay apart
            prompt.append_text(plain(f"{folder}/", "dim"))  # which v1.1.5 of the thirty
            prompt.append("\n")
            prompt.append_text(highlighted(hit.snippet, hit.spans))
            prompts.append(Option(prompt, id=hit.path))
        if len(found) >= self.limit:
            more = f"… more results: Enter here shows {LIMIT} more"
            prompts.append(Option(Text(more, style="dim italic"), id=MORE))
        options.clear_options()
        options.add_options(prompts)
        paths = [hit.path for hit in found]
        keep = self._keep or (on_row if options.has_focus else None)
        if keep in paths:
            options.highlighted = paths.index(keep)
        elif (options.has_focus or had_row) and found:  # new results under a person: a row
            options.highlighted = 0
        self._keep = None
        options.border_title = f"Results ({len(found)})" if query.strip() else "Results"
        if query.strip() and not found:
            none = "No results: try fewer words, or clear the filters (ctrl+t)."
            options.add_option(Option(Text(none, style="dim"), disabled=True))
        elif not query.strip():
            hint = "Type to search every note; Down goes to the results, Escape leaves."
            options.add_option(Option(Text(hint, style="dim"), disabled=True))

    @on(Input.Submitted, "#search-query")
    def _submitted(self) -> None:
        if self.results:
            self.curator.open_note(self.results[0].path)

    @on(OptionList.OptionSelected, "#search-results")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id == MORE:
            self.limit += LIMIT
            self._keep = self.results[-1].path if self.results else None
            self.shown = None
            self._start_search()
        elif event.option.id:
            self.curator.open_note(event.option.id)

    def selected(self) -> Note | None:
        """The highlighted result's note."""
        index = self.query_one("#search-results", OptionList).highlighted
        if index is None or not 0 <= index < len(self.results):
            return None
        return self.find(self.results[index].path)

    def listed(self) -> list[Note]:
        return []

    def action_to_results(self) -> None:
        options = self.query_one("#search-results", OptionList)
        if self.focused is self.query_one("#search-query") and self.results:
            options.focus()
            options.highlighted = 0

    def action_leave_query(self) -> None:
        results = self.query_one("#search-results", OptionList)
        if self.results:
            results.focus()
        else:
            self.set_focus(None)

    def action_focus_query(self) -> None:
        self.query_one("#search-query").focus()

    def action_focus_filters(self) -> None:
        self.query_one("#search-type").focus()
