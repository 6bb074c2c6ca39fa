"""Table.add_lines, the batch `Table.show` fills a list with: the same table as DataTable's
add_row one row at a time (cells, order, the cursor row announced, a column sized to its cells
measured, a repeated key refused)."""

from __future__ import annotations

from typing import Any

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import DataTable
from textual.widgets.data_table import DuplicateKey

from curator.ui.widgets.table import Row, Table

pytestmark = pytest.mark.anyio


class OneTable(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.highlighted: list[str | None] = []

    def compose(self) -> ComposeResult:
        yield Table(flex="name", id="t")

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.highlighted.append(event.row_key.value)


def rows(count: int) -> list[Row]:
    return [Row(f"n{i}", (Text(f"{i:>3}"), Text(f"note {i}"))) for i in range(count)]


async def test_show_fills_the_table_as_add_row_would() -> None:
    app = OneTable()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(Table)
        table.add_fixed(" ", "mark", 1)
        table.add_fixed("No.", "no", 3)
        table.add_flex("Note")
        table.show(rows(500))
        await pilot.pause()
        assert table.row_count == 500
        assert table.shown == [f"n{i}" for i in range(500)]
        assert [c.plain for c in table.get_row_at(499)[1:]] == ["499", "note 499"]
        assert table.get_row_at(0)[0].plain == " "  # the mark column, nothing marked
        assert app.highlighted[:1] == ["n0"]  # the first row got the cursor and said so
        table.move_cursor(row=table.row_count - 1, animate=False)
        await pilot.pause()
        assert table.cursor_row == 499  # every row is one line of the virtual height
        assert table.virtual_size.height == 500 + table.header_height


async def test_a_column_sized_to_its_cells_is_measured() -> None:
    app = OneTable()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(Table)
        table.add_column("Auto", key="auto")  # no width: as wide as its widest cell
        table.add_lines([("a", ("x",)), ("b", ("a much longer cell",))])
        await pilot.pause()
        assert table.columns[next(iter(table.columns))].content_width == len("a much longer cell")


async def test_a_repeated_key_is_refused() -> None:
    app = OneTable()
    async with app.run_test(size=(60, 12)):
        table = app.query_one(Table)
        table.add_fixed("No.", "no", 3)
        cells: Any = ("1",)
        with pytest.raises(DuplicateKey):
            table.add_lines([("same", cells), ("same", cells)])
