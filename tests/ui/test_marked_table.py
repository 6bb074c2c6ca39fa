"""MarkedTable on its own, in a bare app: the marks a list's keys set, the MarksChanged it
posts for each change, the targets of a bulk action in list order, and what it says."""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.app import App, ComposeResult

from curator.ui.widgets.marked_table import MarkedTable
from curator.ui.widgets.table import Row

pytestmark = pytest.mark.anyio

KINDS = ["a", "b", "a", "b", "a"]


class OneList(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.changes = 0
        self.said: list[str] = []

    def compose(self) -> ComposeResult:
        yield MarkedTable(
            flex="name",
            id="t",
            what="draft",
            alike=lambda key, other: KINDS[int(key[1:])] == KINDS[int(other[1:])],
            name_of=lambda key: f"draft {key}",
        )

    def on_mount(self) -> None:
        table = self.query_one(MarkedTable)
        table.add_fixed(" ", "mark", 1)
        table.add_flex("Draft")
        table.show([Row(f"d{i}", (Text(f"draft {i}"),), f"d{i} {k}") for i, k in enumerate(KINDS)])

    def on_marked_table_marks_changed(self, _event: MarkedTable.MarksChanged) -> None:
        self.changes += 1

    def notify(self, message: str, *args: object, **kwargs: object) -> None:
        self.said.append(message)


async def test_marks_follow_the_cursor_and_are_announced() -> None:
    app = OneList()
    async with app.run_test(size=(40, 12)) as pilot:
        table = app.query_one(MarkedTable)
        table.toggle()  # d0, the cursor moves on to d1
        table.mark_move(1)  # d1 and d2
        await pilot.pause()
        assert table.marked == {"d0", "d1", "d2"} and table.cursor_row == 2
        assert app.changes == 2
        assert table.get_row_at(1)[0].plain == "●"
        assert table.targets() == ["d0", "d1", "d2"]
        table.unmark(["d1"])
        table.toggle()  # d2 again: unmarked
        await pilot.pause()
        assert table.marked == {"d0"} and app.changes == 4
        assert table.get_row_at(2)[0].plain == " "


async def test_all_alike_and_the_targets_in_list_order_with_the_filter_on() -> None:
    app = OneList()
    async with app.run_test(size=(40, 12)) as pilot:
        table = app.query_one(MarkedTable)
        table.move_cursor(row=2, animate=False)
        table.mark_like()  # every "a": d0, d2, d4
        assert table.marked == {"d0", "d2", "d4"}
        table.filter("d4")  # the filter hides d0 and d2: a bulk action still takes them
        await pilot.pause()
        assert table.shown == ["d4"]
        assert table.targets("Reject") == ["d0", "d2", "d4"]
        assert app.said[-1] == "Reject the 3 marked drafts: draft d0, draft d2, draft d4"
        table.one_row("Edit")
        stay = "(the 3 marked drafts stay marked)"
        assert app.said[-1] == f"Edit the cursor row only: draft d4 {stay}"
        table.keep_only({"d4"})  # the rows listed anew
        table.unmark()
        assert table.marked == set() and table.targets() == ["d4"]  # none marked: the cursor's


async def test_mark_sets_many_rows_at_once_as_if_marked_by_hand() -> None:
    """A script or a group marks rows by key (bench_app's bulk reject does): the cells show
    it, one MarksChanged, and the bulk action takes them in list order."""
    app = OneList()
    async with app.run_test(size=(40, 12)) as pilot:
        table = app.query_one(MarkedTable)
        table.mark({"d3", "d1"})
        await pilot.pause()
        assert table.marked == {"d1", "d3"} and app.changes == 1
        assert [table.get_row_at(i)[0].plain for i in range(5)] == [" ", "●", " ", "●", " "]
        assert table.targets() == ["d1", "d3"]
