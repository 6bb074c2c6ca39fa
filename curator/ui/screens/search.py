"""Search: as-you-type search with filters; snippets with matches highlighted; the highlighted
result's note previewed beside the results; Enter opens it in place (the whole screen's width,
its links followed there with a trail, Escape back to the results, Backspace back along the
trail); e, r, s, t act on the note highlighted or open as they do in Rooms and Audit.

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
from textual.css.query import NoMatches
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
from curator.ui.widgets.note_view import NoteView

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
            "the query is empty and with alt); from a note open, back to the results",
        ),
        Binding(
            "backspace",
            "back",
            "Back",
            id="search.back",
            tooltip="From a note open: back along the links followed, then to the results",
        ),
        Binding(
            "enter",
            "into_links",
            "Links",
            id="search.links",
            show=False,
            tooltip="From the note open: into its links (Enter on one follows it)",
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
        self.trail: list[str] = []  # the notes left along links from the note open in place

    @property
    def reading(self) -> bool:
        """A note is open in place: the results give their width to it."""
        return self.has_class("-reading")

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
        with Horizontal(id="search-main"):
            yield ResultsList(id="search-results")
            yield NoteView(id="search-note", today=self.curator.today)

    def on_mount(self) -> None:
        self.query_one("#search-results").border_title = "Results"
        self.query_one("#search-query").focus()
        self._preview_title()

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
        if self.reading and note is not None:  # the note open, as it is now (after an action)
            self._view(note.rel)

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
        if not self.reading:
            self.preview()

    @on(OptionList.OptionHighlighted, "#search-results")
    def _highlighted(self, _event: OptionList.OptionHighlighted) -> None:
        if not self.reading:
            self.preview()

    def preview(self) -> None:
        """The highlighted result's note beside the results (the first result's while none is
        highlighted: what Enter in the query opens)."""
        at = self.query_one("#search-results", OptionList).highlighted
        # nothing to preview: the hint or "no results" takes the whole width
        self.query_one(NoteView).display = bool(self.results)
        if not self.results:
            self._view(None)
        elif at is None or at < len(self.results):  # (not the "more results" row)
            self._view(self.results[at or 0].path)

    def _view(self, rel: str | None) -> None:
        view = self.query_one(NoteView)
        note = self.find(rel)
        palace = self.palace
        if palace is not None and (note is not view.note or note is None):
            view.show(palace, note)
        self._preview_title()

    def _preview_title(self) -> None:
        try:
            view = self.query_one(NoteView)
        except NoMatches:
            return
        if not self.reading:
            view.border_title = "Preview · Enter opens" if view.note is not None else "Preview"
            return
        by_rel = self.palace.by_rel if self.palace is not None else {}
        view.show_trail([by_rel[rel].name if rel in by_rel else rel for rel in self.trail])
        if not self.trail:
            view.border_title = "Note · Escape back to the results"

    def open_in_place(self, rel: str) -> None:
        """The note open on the whole width of the screen, in Search (never a switch to Rooms:
        Escape comes back to the results as they were)."""
        self.trail.clear()
        self.set_class(True, "-reading")
        self.query_one(NoteView).display = True
        self._view(rel)
        self.query_one(NoteView).focus()

    def close_note(self) -> None:
        """Back to the results, on the row of the note that was opened."""
        self.trail.clear()
        self.set_class(False, "-reading")
        results = self.query_one("#search-results", OptionList)
        if self.results:
            results.focus()
        self.preview()

    @on(NoteView.Navigate)
    def _navigate(self, event: NoteView.Navigate) -> None:
        view = self.query_one(NoteView)
        if view.note is not None:
            self.trail.append(view.note.rel)
        self._view(event.rel)
        view.focus()

    @on(Input.Submitted, "#search-query")
    def _submitted(self) -> None:
        if self.results:
            self.open_in_place(self.results[0].path)

    @on(OptionList.OptionSelected, "#search-results")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id == MORE:
            self.limit += LIMIT
            self._keep = self.results[-1].path if self.results else None
            self.shown = None
            self._start_search()
        elif event.option.id:
            self.open_in_place(event.option.id)

    def selected(self) -> Note | None:
        """The note open in place, else the highlighted result's note."""
        if self.reading:
            return self.query_one(NoteView).note
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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "back":
            return self.reading  # (the query's own Backspace deletes a character)
        return super().check_action(action, parameters)

    def action_into_links(self) -> None:
        if self.reading and not self.query_one(NoteView).into_links():
            self.notify("This note has no links or backlinks to open", markup=False)

    def action_back(self) -> None:
        if self.trail:
            self._view(self.trail.pop())
            self.query_one(NoteView).focus()
        else:
            self.close_note()

    def action_leave_query(self) -> None:
        if self.reading:
            self.close_note()
            return
        results = self.query_one("#search-results", OptionList)
        if self.results:
            results.focus()
        else:
            self.set_focus(None)

    def action_focus_query(self) -> None:
        self.query_one("#search-query").focus()

    def action_focus_filters(self) -> None:
        self.query_one("#search-type").focus()
