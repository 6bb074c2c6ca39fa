"""The filter line of a list: `/` on the list opens it under the screen's panes, each key
filters the list in place (by name, path and tag), Enter goes back to the list with the
filter kept, Escape clears it and goes back."""

from __future__ import annotations

from textual import on
from textual.binding import Binding
from textual.widgets import Input

from curator.ui.widgets.table import Table


class ListFilter(Input):
    DEFAULT_CSS = """
    ListFilter {
        display: none;
        height: 1;
        border: none;
        padding: 0 1;
    }
    ListFilter:focus {
        border: none;
    }
    """
    BINDINGS = [
        Binding("escape", "clear", "Clear", id="filter.clear", tooltip="Clear the filter"),
        Binding("enter", "done", "Keep", id="filter.keep", tooltip="Back to the list"),
    ]

    def __init__(self, table: str, *, id: str | None = None) -> None:
        super().__init__(placeholder="filter: name, path or tag", id=id)
        self.table_id = table

    def table(self) -> Table:
        return self.screen.query_one(self.table_id, Table)

    def on_mount(self) -> None:
        self.table().filter_line = self

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self.table().filter(event.value)
        self._title()

    def _title(self) -> None:
        table = self.table()
        table.border_subtitle = f"/{self.value}" if self.value else ""

    def action_done(self) -> None:
        self.display = bool(self.value)
        self.table().focus()

    def action_clear(self) -> None:
        table = self.table()
        table.action_unfilter()
        table.focus()
