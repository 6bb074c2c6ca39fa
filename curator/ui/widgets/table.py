"""The app's tables: row cursor, j/k and Home/End, marks for bulk actions, and one flexible
column that takes the width the others leave (no horizontal scrollbar).

A list table (`Table.show`) also filters its rows in place (`filter`) and sorts them by a
column (`cycle_sort`, shown as ▲/▼ in the header); the screen reads the rows shown, in their
order, from `shown`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import zip_longest
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual.binding import Binding
from textual.events import Resize
from textual.message import Message
from textual.widgets import DataTable, Input
from textual.widgets.data_table import ColumnKey, DuplicateKey, RowKey
from textual.widgets.data_table import Row as TableRow

MARK = "●"
ARROWS = {False: " ▲", True: " ▼"}


class RowTable(DataTable[Any]):
    """A table of rows: j/k move the cursor, Home and End go to the first and last row
    (DataTable's own Home and End scroll sideways, which a row cursor never needs)."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("home", "scroll_top", "First", show=False),
        Binding("end", "scroll_bottom", "Last", show=False),
    ]

    def on_resize(self, _event: Resize) -> None:
        # DataTable's own handler (run before this one) only marks its cached rows stale, but
        # the repaint at the new size has already drawn them as cached at the old width (the
        # header of a table with no rows kept its old shading): draw them again.
        self.refresh()
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


@dataclass(frozen=True)
class Row:
    """One row of a list table: its key, its cells (but the mark), the words `/` finds it by
    (lower case) and, per column key, a sort value where the cell's text would sort wrong
    ("10d" < "2d")."""

    key: str
    cells: tuple[Any, ...]
    words: str = ""
    order: dict[str, Any] = field(default_factory=dict)
    kinds: frozenset[str] = frozenset()  # what a screen's own filter picks by (Audit's flags)


def matches(words: str, query: str) -> bool:
    """Every word of the query is in the row's words (case-insensitive)."""
    return all(term in words for term in query.lower().split())


def _text(cell: Any) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)


class Table(RowTable):
    """A row table. `flex` names the column that shrinks or grows with the table's width."""

    BINDINGS = [
        Binding("slash", "filter", "Filter", id="list.filter", tooltip="Filter by name, path, tag"),
        Binding("o", "sort", "Sort", id="list.sort", tooltip="Sort by the next column"),
        Binding(
            "escape", "unfilter", "Unfilter", id="list.unfilter", show=False, tooltip="Clear /"
        ),
    ]

    class Arranged(Message):
        """The rows shown changed: filtered, sorted or shown anew."""

        def __init__(self, table: Table) -> None:
            super().__init__()
            self.table = table

        @property
        def control(self) -> Table:
            return self.table

    def __init__(self, *, flex: str, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False)
        self.flex = flex
        self.fixed: dict[str, int] = {}
        self.fitted: dict[str, int] = {}  # column key -> its most width: as wide as its cells
        self.labels: dict[str, str] = {}
        self.rows_all: list[Row] = []
        self.listing = False  # the rows come through `show`
        self.shown: list[str] = []
        self.filter_text = ""
        self.kind: str | None = None  # show only the rows of this kind (Audit's flags)
        self.is_marked: Callable[[str], bool] = lambda _key: False  # the "mark" column's cells
        self.sort_by: str | None = None  # a column key, None: the screen's order
        self.descending = False
        self.sortable: tuple[str, ...] = ()  # the column keys `o` sorts by, in turn
        self.filter_line: Input | None = None  # the ListFilter that filters this table

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # off when there is nothing to do: the key goes on to the screen (Escape backs out)
        if action == "filter":
            return self.filter_line is not None
        if action == "sort":
            return bool(self.sortable)
        if action == "unfilter":
            return bool(self.filter_text)
        return True

    def action_filter(self) -> None:
        if self.filter_line is not None:
            self.filter_line.display = True
            self.filter_line.focus()

    def action_sort(self) -> None:
        self.cycle_sort(self.sortable)

    def action_unfilter(self) -> None:
        if self.filter_line is not None:
            self.filter_line.value = ""
            self.filter_line.display = False
        self.border_subtitle = ""
        self.filter("")

    def add_fixed(self, label: str, key: str, width: int) -> None:
        self.fixed[key] = width
        self.labels[key] = label
        self.add_column(label, key=key, width=width)

    def add_fitted(self, label: str, key: str, most: int) -> None:
        """A column as wide as its widest cell (or label), up to `most`: an empty column
        leaves its width to the flexible one."""
        self.fitted[key] = most
        self.add_fixed(label, key, most)

    def add_flex(self, label: str) -> None:
        self.labels[self.flex] = label
        self.add_column(label, key=self.flex, width=20)
        self.call_after_refresh(self.fit)

    def on_resize(self, event: Resize) -> None:
        super().on_resize(event)
        self.fit()

    # -- the rows shown: filter and sort ---------------------------------------------------
    def show(self, rows: Sequence[Row]) -> None:
        """Show `rows` (in the screen's order unless sorted), filtered as now; the cursor
        stays on its row's key, else on its row number."""
        self.rows_all = list(rows)
        self.listing = True
        self.rearrange()

    def filter(self, query: str) -> None:
        if query != self.filter_text:
            self.filter_text = query
            self.rearrange()

    def only(self, kind: str | None) -> None:
        """Show only the rows of `kind` (None: every row)."""
        self.kind = kind
        self.rearrange()

    def cycle_sort(self, columns: Sequence[str]) -> None:
        """The next sort among `columns` (column keys): each ascending, then descending,
        then the screen's own order again."""
        order: list[tuple[str | None, bool]] = [(None, False)]
        order += [(key, down) for key in columns for down in (False, True)]
        at = order.index((self.sort_by, self.descending)) if self.sort_by in columns else 0
        self.sort_by, self.descending = order[(at + 1) % len(order)]
        self.rearrange()

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        """A click on a sortable column's header sorts by it: ascending, then descending, then
        the screen's own order, as `o` steps through them for that column."""
        event.stop()
        key = event.column_key.value
        if key in self.sortable:
            self.cycle_sort([key])

    def rearrange(self) -> None:
        rows = [r for r in self.rows_all if matches(r.words, self.filter_text)]
        if self.kind is not None:
            rows = [r for r in rows if self.kind in r.kinds]
        if self.sort_by is not None:
            key = self.sort_by
            at = list(self.columns).index(ColumnKey(key)) - (ColumnKey("mark") in self.columns)
            rows.sort(
                key=lambda r: r.order.get(key, _text(r.cells[at]).casefold()),
                reverse=self.descending,
            )
        before = self.shown[self.cursor_row] if 0 <= self.cursor_row < len(self.shown) else None
        row = max(self.cursor_row, 0)
        self.shown = [r.key for r in rows]
        self.clear()
        marks = ColumnKey("mark") in self.columns
        self.add_lines(
            (r.key, (mark_cell(self.is_marked(r.key)), *r.cells) if marks else r.cells)
            for r in rows
        )
        self._headers()
        if before in self.shown:
            row = self.shown.index(before)
        if rows:
            self.move_cursor(row=min(row, len(rows) - 1), animate=False)
        self.fit()
        self.post_message(self.Arranged(self))

    def add_lines(self, rows: Iterable[tuple[str, tuple[Any, ...]]]) -> None:
        """Add one-line rows (key, cells) at the bottom, as `add_row` would. `add_row`
        re-validates the cursor and queues its row to be measured, row by row: at thousands of
        rows that is most of a screen's first paint, and these columns have set widths (`fit`),
        so only a column sized to its cells needs the measuring. It writes DataTable's own row
        maps, so tests/ui/test_table_lines.py checks it against add_row on every Textual we
        install; what it buys is the row "fill and draw a list of N rows" of
        `benchmarks/bench_app.py --screens-only` (10k rows: 0.20 s against 0.59 s)."""
        order = [column.key for column in self.ordered_columns]
        measure = any(column.auto_width for column in self.ordered_columns)
        start = at = self.row_count
        for key, cells in rows:
            row_key = RowKey(key)
            if row_key in self._row_locations:
                raise DuplicateKey(f"The row key {row_key!r} already exists.")
            if len(cells) > len(order):
                raise ValueError("More values provided than there are columns.")
            self._row_locations[row_key] = at
            self._data[row_key] = dict(zip_longest(order, cells))
            self.rows[row_key] = TableRow(row_key, 1)
            if measure:
                self._new_rows.add(row_key)
            at += 1
        if at == start:
            return
        self._require_update_dimensions = True
        self.cursor_coordinate = self.cursor_coordinate  # clamped to the rows now there
        if start == 0 and order and self.show_cursor and self.cursor_type != "none":
            self._highlight_cursor()  # a cursor row where there was none: say so
        self._update_count += 1
        self.check_idle()

    def _headers(self) -> None:
        for key, label in self.labels.items():
            column = self.columns.get(ColumnKey(key))
            if column is None:
                continue
            arrow = ARROWS[self.descending] if key == self.sort_by else ""
            shown = label + arrow
            # a fitted column widens for its arrow (`fit`); a set-width one gives up letters
            width = None if key in self.fitted else self.fixed.get(key)
            if arrow and width is not None and cell_len(shown) > width:
                shown = label[: max(1, width - cell_len(arrow))] + arrow  # the arrow always shows
            column.label = Text(shown)
        self._clear_caches()

    def current_key(self) -> str | None:
        if not 0 <= self.cursor_row < len(self.shown):
            return None
        return self.shown[self.cursor_row]

    # -- widths ----------------------------------------------------------------------------
    def _fitted_width(self, key: str, most: int) -> int:
        column = ColumnKey(key)
        label = cell_len(_text(self.columns[column].label))
        widest = max((cell_len(_text(cells[column])) for cells in self._data.values()), default=0)
        return max(label, min(most, widest))  # the label (and its sort arrow) always shows

    def _yield_to_flex(self, room: int) -> None:
        """Narrow the fitted columns, widest first (never below their label), until the
        flexible one has two fifths of the room: the name is what a reviewer reads."""
        least = {k: cell_len(_text(self.columns[ColumnKey(k)].label)) for k in self.fitted}
        while room - sum(self.fixed.values()) < room * 2 // 5:
            wide = [k for k in self.fitted if self.fixed[k] > least[k]]
            if not wide:
                return
            key = max(wide, key=lambda k: self.fixed[k])
            self.fixed[key] -= 1
            self.columns[ColumnKey(key)].width = self.fixed[key]
            self._require_update_dimensions = True

    def fit(self) -> None:
        """Give the flexible column what the other columns leave of the visible width."""
        column = self.columns.get(ColumnKey(self.flex))
        if column is None or not self.size.width:
            return
        for key, most in self.fitted.items():
            self.fixed[key] = width = self._fitted_width(key, most)
            fitted = self.columns[ColumnKey(key)]
            if fitted.width != width:
                fitted.width = width
                self._require_update_dimensions = True
        pad = 2 * self.cell_padding * len(self.columns)
        inner = self.size.width  # inside the border
        # room for a vertical scrollbar when the rows overflow; a table filled row by row (not
        # through `show`, which fits again) keeps the room whether or not it shows yet
        if not self.listing or self.row_count + self.header_height > self.size.height:
            inner -= self.styles.scrollbar_size_vertical
        self._yield_to_flex(inner - pad)
        width = max(8, inner - sum(self.fixed.values()) - pad)
        if column.width != width or self._require_update_dimensions:
            column.width = width
            column.auto_width = False
            self._clear_caches()  # the rendered rows hold the old width
            self._require_update_dimensions = True
            self.refresh()


# one cell each, shared by every row (a table only reads its cells): a list of thousands of
# rows allocates none
_MARK_CELLS = (Text(" ", style="bold magenta"), Text(MARK, style="bold magenta"))


def mark_cell(marked: bool) -> Text:
    return _MARK_CELLS[marked]
