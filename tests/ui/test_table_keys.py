"""Home and End go to the first and last row of every table of the app (issue 15), on a real
palace with enough rows in each: drafts, a room's notes, audit, history, search results, tasks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Input, OptionList
from uihelpers import make_app, settle, wait_until

from curator.model.palace import Palace
from curator.session import Session
from curator.tasks import TaskService
from curator.tasks.checkpoint import SECTIONS
from curator.ui import services

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

# mode -> the table's selector
TABLES = {
    "inbox": "#inbox-drafts",
    "rooms": "#rooms-notes",
    "audit": "#audit-table",
    "history": "#history-table",
    "search": "#search-results",
    "tasks": "#tasks-table",
    "tasks-revisions": "#tasks-revisions",  # the selected task's revisions
    "rooms-list": "#rooms-list",  # the lists too: the rooms, a note's links
    "rooms-links": "#note-links",
}


@pytest.fixture
def busy_palace(sample_palace: Path) -> Path:
    """The sample palace with three curator actions in its history and four tasks."""
    for reason in ("dup", "wrong", "old"):
        palace = Palace.open(sample_palace)
        draft = sorted(d.rel for d in palace.drafts)[0]
        Session(palace).commit(services.plan_reject(palace, draft, reason))
    tasks = TaskService(sample_palace)
    for n in range(4):
        tasks.new(f"task-{n}", f"Task number {n}", "agent")
    for step in ("one", "two", "three"):
        tasks.save("task-3", "agent", {key: f"{key} {step}" for key, _title in SECTIONS})
    return sample_palace


def cursor(widget: Any) -> int | None:
    return widget.cursor_row if isinstance(widget, DataTable) else widget.highlighted


def rows(widget: Any) -> int:
    return widget.row_count if isinstance(widget, DataTable) else widget.option_count


async def test_home_and_end_go_to_the_first_and_last_row(busy_palace: Path) -> None:
    """Every table in one app run, each reached as a person reaches it (its screen shown, the
    room, note, query or task chosen): the keys act on the table that has the focus, whatever
    was shown before it."""
    app = make_app(busy_palace, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for mode in TABLES:
            await _home_and_end(pilot, mode)


async def _home_and_end(pilot: Any, mode: str) -> None:
    app = pilot.app
    app.action_show_screen(mode.split("-")[0])
    await settle(pilot)
    screen = app.screen
    if mode == "rooms":  # the room with the most notes
        palace = app.palace
        assert palace is not None
        biggest = max(palace.rooms(), key=lambda r: len(r.notes))
        screen.show_room(biggest.spec.name)
    if mode == "rooms-links":
        screen.open_note("notes/project/stripe-webhook-handler.md")
    if mode == "search":
        screen.query_one("#search-query", Input).value = "stripe"
        await wait_until(pilot, lambda: len(screen.results) >= 3)
    if mode == "tasks-revisions":
        tasks = screen.query_one("#tasks-table", DataTable)
        await wait_until(pilot, lambda: tasks.row_count == 4)
        tasks.move_cursor(row=tasks.get_row_index("task-3"))
        await wait_until(pilot, lambda: bool(screen.query("#tasks-revisions")))
    table = screen.query_one(TABLES[mode])
    await wait_until(pilot, lambda: rows(table) >= 3)
    table.focus()
    await wait_until(pilot, lambda: table.has_focus)
    if isinstance(table, OptionList):
        table.highlighted = 1
    else:
        table.move_cursor(row=1)
    await wait_until(pilot, lambda: cursor(table) == 1)
    await pilot.press("end")
    await pilot.pause()  # the key's messages handled
    assert cursor(table) == rows(table) - 1, f"{mode}: End did not go to the last row"
    await pilot.press("home")
    await pilot.pause()
    assert cursor(table) == 0, f"{mode}: Home did not go to the first row"
