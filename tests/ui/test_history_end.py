"""History at 80×24: End and Home move the cursor to the last and first commit and the table
scrolls so that the highlighted row is on screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from palacehelpers import note_text
from textual.widgets import DataTable
from uihelpers import make_app, settle, show_screen, wait_until

from curator.model.palace import Palace
from curator.session import Session
from curator.ui import services
from curator.ui.screens.history import HistoryScreen

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

COUNT = 40


@pytest.fixture
def long_history(make_palace: Any) -> Path:
    rels = [f"inbox/2026-11-{1 + i % 28:02d}-d{i}.md" for i in range(COUNT)]
    extra = "status: draft\ncreated: 2026-11-20\n"
    root = make_palace({rel: note_text(f"Draft {i}", extra=extra) for i, rel in enumerate(rels)})
    # the oldest action rejects ten drafts with a long reason: its detail is the tallest, and
    # it fills in (the files from git) after the cursor has moved there
    palace = Palace.open(root)
    why = "captured from a noisy session; " * 8
    build = lambda p, rel: services.plan_reject(p, rel, why)  # noqa: E731
    plan = services.plan_bulk(palace, "reject", rels[:10], build, why)
    Session(palace).commit(plan)
    for rel in rels[10:]:
        palace = Palace.open(root)
        Session(palace).commit(services.plan_reject(palace, rel, "noise"))
    return root


def cursor_on_screen(table: DataTable[Any]) -> bool:
    """The highlighted row lies inside the table's visible rows (below the header)."""
    top = int(table.scroll_y)
    rows = table.scrollable_content_region.height - table.header_height
    return top <= table.cursor_row < top + rows


async def test_end_scrolls_the_table_to_the_last_commit(long_history: Path) -> None:
    app = make_app(long_history, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await show_screen(pilot, "5", HistoryScreen)
        table = screen.query_one("#history-table", DataTable)
        await wait_until(pilot, lambda: table.row_count == COUNT - 9)
        assert table.scrollable_content_region.height < table.row_count  # it must scroll
        await pilot.press("end")
        await wait_until(pilot, lambda: table.cursor_row == table.row_count - 1)
        await wait_until(pilot, lambda: table.scroll_y > 0 and cursor_on_screen(table))
        await pilot.press("home")
        await wait_until(pilot, lambda: table.cursor_row == 0)
        await wait_until(pilot, lambda: table.scroll_y == 0)
