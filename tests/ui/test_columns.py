"""Columns fit at every width from 80 to 200: no table scrolls sideways, draft and note names
stay readable (the source is what gets abbreviated), Rooms' badges and Audit's reason and
since-date are on screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable
from uihelpers import make_app, settle, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

WIDTHS = (80, 100, 120, 140, 160, 200)
SCREENS = ("inbox", "rooms", "audit", "history", "tasks")


def _columns(table: DataTable[Any]) -> dict[str, int]:
    return {str(c.label).strip(): c.get_render_width(table) for c in table.columns.values()}


async def _show(pilot: Any, mode: str) -> None:
    pilot.app.action_show_screen(mode)
    await settle(pilot)
    # the flexible column is fitted after the first refresh, its width taken at an idle
    await pilot.pause()
    tables = pilot.app.screen.query(DataTable)
    await wait_until(pilot, lambda: not any(t._require_update_dimensions for t in tables))


@pytest.mark.parametrize("width", WIDTHS)
async def test_no_table_scrolls_and_names_badges_and_reasons_are_readable(
    sample_palace: Path, width: int
) -> None:
    """One app a width (at 24 rows: the rows overflow sooner, and a table leaves room for
    its vertical scrollbar) walks every screen."""
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(width, 24)) as pilot:
        await settle(pilot)
        for mode in SCREENS:
            await _show(pilot, mode)
            _no_sideways_scroll(app, mode, width)
            if mode in READABLE:
                READABLE[mode](app)
        if width == 80:
            await _panes_at_80(pilot)


def _no_sideways_scroll(app: Any, mode: str, width: int) -> None:
    tables = list(app.screen.query(DataTable))
    assert tables, mode
    for table in tables:
        if not table.display or not table.columns:
            continue
        where = f"{mode} #{table.id} at {width} columns"
        assert not table.show_horizontal_scrollbar, where
        assert table.virtual_size.width <= table.size.width, where


def _drafts_readable(app: Any) -> None:
    drafts = _columns(app.screen.query_one("#inbox-drafts", DataTable))
    assert drafts["Draft"] >= 30, drafts  # the name, not the source, gets the room
    assert drafts["Source"] <= 18, drafts  # in words, at most 16 cells and its padding


def _notes_readable(app: Any) -> None:
    notes = _columns(app.screen.query_one("#rooms-notes", DataTable))
    assert notes["Note"] >= 20, notes
    # the badges fit whole: the Flags column is as wide as the widest row's badges
    table = app.screen.query_one("#rooms-notes", DataTable)
    widest = max(len(table.get_cell(key, "flags").plain) for key in table.rows)
    assert notes["Flags"] >= max(widest, len("Flags")) + 2, notes


def _audit_readable(app: Any) -> None:
    audit = _columns(app.screen.query_one("#audit-table", DataTable))
    assert audit["Reason"] >= 20 and audit["Since"] >= 10 and audit["Note"] >= 20, audit
    assert app.screen.query_one("#audit-detail").region.height > 0


READABLE = {"inbox": _drafts_readable, "rooms": _notes_readable, "audit": _audit_readable}


async def _panes_at_80(pilot: Any) -> None:
    """Issue 36 at 80x24: the inbox list as tall as its drafts (all 8 of the demo, not 5),
    the groups' Into no wider than 24 cells; `w` (wide mode, on every screen) gives the list
    the whole screen: Rooms' names whole (Enter on one shows it: wide mode ends), Audit's
    table alone; `w` again brings the panes."""
    app = pilot.app
    await _show(pilot, "inbox")
    drafts = app.screen.query_one("#inbox-drafts", DataTable)
    assert drafts.row_count == 8
    assert drafts.region.height - 2 - drafts.header_height >= 8  # inside its border
    await pilot.press("w")
    await _show(pilot, "rooms")
    table = app.screen.query_one("#rooms-notes", DataTable)
    notes = _columns(table)
    assert notes["Note"] >= 60 and not app.screen.query_one("#rooms-list").region, notes
    names = [table.get_cell(key, "name").plain for key in table.rows]
    assert max(map(len, names)) <= notes["Note"] - 2, names  # no name cut
    table.focus()
    await pilot.press("enter")  # a note asked for is seen: wide mode ends
    await wait_until(pilot, lambda: app.screen.query_one("#rooms-note").region.height > 0)
    await pilot.press("w")
    await _show(pilot, "audit")
    assert not app.screen.query_one("#audit-detail").region
    assert app.screen.query_one("#audit-table").region.width == 80
    await pilot.press("w")
    await wait_until(pilot, lambda: app.screen.query_one("#audit-detail").region.height > 0)
    await _show(pilot, "inbox")
    await pilot.press("G")
    screen = app.screen
    await wait_until(pilot, lambda: bool(screen.groups) and not screen.grouping)  # type: ignore[attr-defined]
    # the flexible column is fitted after the first refresh
    await wait_until(
        pilot, lambda: _columns(screen.query_one("#inbox-drafts", DataTable))["Best draft"] >= 36
    )
    groups = _columns(screen.query_one("#inbox-drafts", DataTable))
    assert groups["Into"] <= 24 + 2 and groups["Best draft"] >= 36, groups
