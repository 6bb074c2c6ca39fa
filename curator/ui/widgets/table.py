"""The app's tables: row cursor, Home/End to the first and last row, marks for bulk actions,
and one flexible column that takes the width the others leave (no horizontal scrollbar)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.events import Resize
from textual.widgets import DataTable

MARK = "●"


class RowTable(DataTable[Any]):
    """A table of rows: Home and End go to the first and last row (DataTable's own Home and End
    scroll sideways, which a row cursor never needs)."""

    BINDINGS = [
        Binding("home", "scroll_top", "First", show=False),
        Binding("end", "scroll_bottom", "Last", show=False),
    ]

    def on_resize(self, _event: Resize) -> None:
        # a pane beside the table grew (a detail filled in late): the cursor row stays in view
        self.call_after_refresh(self.keep_cursor_in_view)

    def keep_cursor_in_view(self) -> None:
        """Scroll so the cursor row is among the visible rows (rows are one line high)."""
        rows = self.scrollable_content_region.height - self.header_height
        if self.row_count == 0 or rows <= 0:
            return
        top = int(self.scroll_y)
        if self.cursor_row >= top + rows:
            self.scroll_to(y=self.cursor_row - rows + 1, animate=False, force=True)
        elif self.cursor_row < top:
            self.scroll_to(y=self.cursor_row, animate=False, force=True)


class Table(RowTable):
    """A row table. `flex` names the column that shrinks or grows with the table's width."""

    def __init__(self, *, flex: str, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False)
        self.flex = flex
        self.fixed: dict[str, int] = {}

    def add_fixed(self, label: str, key: str, width: int) -> None:
        self.fixed[key] = width
        self.add_column(label, key=key, width=width)

    def add_flex(self, label: str) -> None:
        self.add_column(label, key=self.flex, width=20)
        self.call_after_refresh(self.fit)

    def on_resize(self, event: Resize) -> None:
        super().on_resize(event)
        self.fit()

    def fit(self) -> None:
        """Give the flexible column what the fixed ones leave of the visible width."""
        from textual.widgets.data_table import ColumnKey

        column = self.columns.get(ColumnKey(self.flex))
        if column is None or not self.size.width:
            return
        pad = 2 * self.cell_padding * len(self.columns)
        # room for a vertical scrollbar whether or not it shows yet: the same widths either way
        inner = self.size.width - self.styles.gutter.width - self.styles.scrollbar_size_vertical
        width = max(8, inner - sum(self.fixed.values()) - pad - 1)
        if column.width != width:
            column.width = width
            column.auto_width = False
            self._clear_caches()  # the rendered rows hold the old width
            self._require_update_dimensions = True
            self.refresh()


def mark_cell(marked: bool) -> Text:
    return Text(MARK if marked else " ", style="bold magenta")
