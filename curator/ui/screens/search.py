"""Search: as-you-type search with filters; snippets with matches highlighted; Enter opens."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Checkbox, Footer, Input, OptionList, Select
from textual.widgets.option_list import Option

from curator.model.palace import Palace
from curator.ui import lookup
from curator.ui.safe import plain
from curator.ui.screens.base import PalaceScreen


def highlighted(snippet: str, spans: tuple[tuple[int, int], ...]) -> Text:
    """The snippet with the matched spans highlighted (spans index the cleaned snippet)."""
    text = plain(snippet, "dim")
    text.no_wrap = False
    if text.plain == snippet:
        for start, end in spans:
            text.stylize("bold reverse", start, end)
    return text


class SearchScreen(PalaceScreen):
    BINDINGS = [
        Binding("ctrl+f", "focus_query", "Query", id="search.focus", tooltip="Type a query"),
        Binding("ctrl+t", "focus_filters", "Filters", id="search.filters",
                tooltip="Go to the filters"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.results: list[lookup.Found] = []

    def compose(self) -> ComposeResult:
        yield Input(placeholder="search notes…", id="search-query")
        with Horizontal(id="search-filters"):
            yield Select([], prompt="type", id="search-type")
            yield Select([], prompt="scope", id="search-scope")
            yield Select(
                [(Text("active"), "active"), (Text("superseded"), "superseded")],
                prompt="status",
                id="search-status",
            )
            yield Checkbox("stale", id="search-stale")
            yield Input(placeholder="min conf", id="search-confidence", restrict=r"[0-9.]*")
        yield OptionList(id="search-results")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#search-results").border_title = "Results"
        self.query_one("#search-query").focus()
        self.sync()

    def palace_changed(self, palace: Palace) -> None:
        types = self.query_one("#search-type", Select)
        types.set_options([(plain(t), t) for t in palace.config.types])
        scopes = self.query_one("#search-scope", Select)
        scopes.set_options([(plain(s), s) for s in palace.config.scopes])
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
        try:
            out["min_confidence"] = float(self.query_one("#search-confidence", Input).value)
        except ValueError:
            pass
        return out

    @on(Input.Changed)
    @on(Select.Changed)
    @on(Checkbox.Changed)
    def refresh_results(self) -> None:
        query = self.query_one("#search-query", Input).value
        if self.palace is not None and query.strip():
            self.run_search(self.palace, query, self.filters())

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def run_search(self, palace: Palace, query: str, filters: dict[str, Any]) -> None:
        try:
            found = lookup.search(palace, query, filters)
        except Exception as exc:
            self.app.call_from_thread(self.curator.error, exc)
            return
        self.app.call_from_thread(self._show, found)

    def _show(self, found: list[lookup.Found]) -> None:
        self.results = found
        options = self.query_one("#search-results", OptionList)
        options.clear_options()
        for hit in found:
            prompt = Text(f"{hit.score:.2f} ", style="cyan")
            prompt.append_text(plain(hit.name, "bold"))
            prompt.append(f"  {hit.type}\n", style="magenta")
            prompt.append_text(highlighted(hit.snippet, hit.spans))
            options.add_option(Option(prompt, id=hit.path))
        options.border_title = f"Results ({len(found)})"

    @on(Input.Submitted, "#search-query")
    def _submitted(self) -> None:
        if self.results:
            self.curator.open_note(self.results[0].path)

    @on(OptionList.OptionSelected, "#search-results")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self.curator.open_note(event.option.id)

    def action_focus_query(self) -> None:
        self.query_one("#search-query").focus()

    def action_focus_filters(self) -> None:
        self.query_one("#search-type").focus()
