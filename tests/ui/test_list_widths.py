"""Names take the width the other columns leave (issue 21): in every list (Inbox drafts, Rooms,
Audit, the duplicate candidates) the name column ends at the table's edge, an empty column is
no wider than its label, and a name that does not fit ends in "…"; dialog titles and the merge
editor's instruction are cut with "…" too. At 80×24 and 120×40, on real palaces."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from listhelpers import drawn_lines, long_names_palace
from textual.widgets import DataTable, OptionList
from uihelpers import make_app, settle, wait_until

from curator.ui.screens.audit import AuditScreen
from curator.ui.screens.rooms import RoomsScreen
from curator.ui.widgets.dialogs import AskDialog, EditDialog

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

SIZES = [(80, 24), (120, 40)]
TABLES = {"inbox": "#inbox-drafts", "rooms": "#rooms-notes", "audit": "#audit-table"}


@pytest.fixture
def palace(make_palace: Any) -> Path:
    return long_names_palace(make_palace)


def no_room_left(table: DataTable[Any]) -> None:
    """The columns fill the table: nothing sits empty right of the name."""
    used = sum(c.get_render_width(table) for c in table.columns.values())
    bar = table.styles.scrollbar_size_vertical if table.show_vertical_scrollbar else 0
    assert used + bar == table.size.width, (table.id, used, bar, table.size.width)


def cut_names_end_in_ellipsis(app: Any, selector: str) -> int:
    """Every name cell too long for its column shows "…" on its row; how many were cut."""
    table = app.screen.query_one(selector, DataTable)
    width = table.columns[next(k for k in table.columns if k.value == "name")].width
    lines = drawn_lines(app, selector)
    cut = 0
    for row, key in enumerate(table.rows):
        name = table.get_cell(key, "name").plain
        line = lines[1 + table.header_height + row]  # under the border and the header
        if len(name) > width:
            cut += 1
            assert name[: width - 1].rstrip() in line and "…" in line, (line, name)
        else:
            assert name in line, (line, name)
    return cut


@pytest.mark.parametrize("size", SIZES)
async def test_the_name_column_takes_the_free_width(palace: Path, size: tuple[int, int]) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for mode, selector in TABLES.items():
            app.action_show_screen(mode)
            await settle(pilot)
            table = app.screen.query_one(selector, DataTable)
            await wait_until(pilot, lambda t=table: t.row_count > 0 and t.size.width > 0)
            await pilot.pause()
            no_room_left(table)
            columns = {c.key.value: c for c in table.columns.values()}
            if mode == "rooms":  # as wide as its widest badges (" stale "), not 9
                assert columns["flags"].width == len(" stale ")
            if mode == "inbox":  # "1d"-style ages, short sources: no wider than they need
                assert columns["age"].width == len("Age") and columns["source"].width == len(
                    "session 1"
                )
            cuts = cut_names_end_in_ellipsis(app, selector)
            assert cuts <= table.row_count
            if size == (80, 24):
                assert cuts > 0, mode  # the long names are cut, and say so


@pytest.mark.parametrize("size", SIZES)
async def test_candidates_stay_one_line_each_and_end_in_an_ellipsis(
    palace: Path, size: tuple[int, int]
) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = app.screen
        options = screen.query_one("#inbox-candidates", OptionList)
        await wait_until(pilot, lambda: screen.searched and options.option_count > 0)
        await pilot.pause()
        lines = [line for line in drawn_lines(app, "#inbox-candidates")[1:-1] if line.strip()]
        assert len(lines) == min(options.option_count, options.size.height)
        long = [line for line in lines if "deploy pipeline" in line]
        assert long, lines
        if size == (80, 24):
            assert all("…" in line for line in long), long


async def test_dialog_titles_and_the_merge_instruction_end_in_an_ellipsis(palace: Path) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, AskDialog))
        await pilot.pause()
        title = drawn_lines(app, ".dialog-box Label")[0]
        assert title.startswith("Reject this draft: why? (Where to find") and "…" in title
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, AskDialog))
        screen = app.screen
        await wait_until(pilot, lambda: screen.searched and bool(screen.candidates))
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(app.screen, EditDialog))
        await pilot.pause()
        title = drawn_lines(app, ".dialog-box Label")[0].strip()
        assert title == "Merge into Where to find the deploy …: remove what repeats", title


async def test_a_long_room_or_audit_name_is_cut_with_an_ellipsis(palace: Path) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for mode, cls in (("rooms", RoomsScreen), ("audit", AuditScreen)):
            app.action_show_screen(mode)
            await wait_until(pilot, lambda c=cls: isinstance(app.screen, c))
            await settle(pilot)
            assert cut_names_end_in_ellipsis(app, TABLES[mode]) > 0
