"""History: curator actions from git log; undo the selected one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable

from curator.model.palace import Palace
from curator.ui import core
from curator.ui.safe import plain
from curator.ui.screens.base import PalaceScreen
from curator.ui.widgets.footer import KeyFooter


class HistoryScreen(PalaceScreen):
    MAIN = "#history-table"
    BINDINGS = [
        Binding("u", "undo", "Undo", id="history.undo", tooltip="Undo the selected action"),
    ]

    def compose(self) -> ComposeResult:
        table: DataTable[Any] = DataTable(id="history-table", cursor_type="row")
        table.loading = True
        yield table
        yield KeyFooter()

    def on_mount(self) -> None:
        table = self.query_one("#history-table", DataTable)
        table.border_title = "History"
        table.add_column("Commit", key="sha", width=10)
        table.add_column("Date", key="date", width=10)
        table.add_column("Action", key="action", width=10)
        table.add_column("Subject", key="subject")
        self.sync()

    def palace_changed(self, palace: Palace) -> None:
        self.load(palace.root)  # a path, not the palace: see CuratorApp._index_job

    @work(thread=True, exclusive=True, group="history", exit_on_error=False)
    def load(self, root: Path) -> None:
        try:
            entries = core.history(root)
        except Exception as exc:
            self.app.call_from_thread(self.curator.error, exc)
            entries = []
        self.app.call_from_thread(self._show, entries)

    def _show(self, entries: list[Any]) -> None:
        table = self.query_one("#history-table", DataTable)
        table.loading = False
        table.clear()
        for entry in entries:
            table.add_row(
                Text(entry.sha[:10], style="yellow"),
                plain(str(entry.date)[:10]),
                plain(entry.action, "bold"),
                plain(entry.subject),
                key=entry.sha,
            )
        self.focus_main()

    def action_undo(self) -> None:
        table = self.query_one("#history-table", DataTable)
        if table.row_count == 0:
            self.notify("No action to undo", severity="warning", markup=False)
            return
        sha = str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
        root = self.curator.root
        self.curator.run_plan(lambda _palace: core.plan_undo(root, sha))
