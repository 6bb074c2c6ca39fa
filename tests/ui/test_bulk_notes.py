"""Bulk actions in Rooms and Audit (issue 15): mark several notes (space, shift+arrows, * for
all like this) and review or retire them in one plan and one commit; a cancelled plan keeps
the marks. Real app (Pilot), real palace and git repo; asserts on files and commits."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml
from palacehelpers import note_text
from textual.widgets import DataTable
from uihelpers import (
    apply_plan,
    commit_files,
    git_log,
    make_app,
    settle,
    show_screen,
    wait_until,
)

from curator.ui.app import CuratorApp
from curator.ui.screens.audit import AuditScreen
from curator.ui.screens.note_actions import NoteActions
from curator.ui.screens.rooms import RoomsScreen
from curator.ui.widgets.dialogs import AskDialog
from curator.ui.widgets.plan_dialog import PlanDialog
from curator.ui.widgets.table import MARK

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

DUE = [f"notes/project/due-{n}.md" for n in range(4)]  # reviewed long ago: due
STALE = "notes/project/stale.md"
FRESH = "notes/project/fresh.md"


def header(path: Path) -> dict[str, Any]:
    return dict(yaml.safe_load(path.read_text(encoding="utf-8").split("---\n", 2)[1]))


@pytest.fixture
def palace(make_palace: Any) -> Path:
    files = {
        rel: note_text(f"Due note {n}", extra="created: 2025-01-01\nreviewed: 2025-06-01\n")
        for n, rel in enumerate(DUE)
    }
    files[STALE] = note_text(
        "Stale note",
        extra="created: 2026-11-01\nreviewed: 2026-11-01\n"
        "stale: {reason: the file it names is gone, since: 2026-11-20}\n",
    )
    files[FRESH] = note_text("Fresh note", extra="created: 2026-11-25\nreviewed: 2026-11-25\n")
    return make_palace(files)


def marks_shown(screen: NoteActions) -> set[str]:
    """The rows whose mark cell shows the mark."""
    table = screen.query_one(screen.TABLE, DataTable)
    return {str(key.value) for key in table.rows if MARK in str(table.get_cell(key, "mark"))}


async def go(pilot: Any, key: str, cls: type[NoteActions]) -> NoteActions:
    screen = await show_screen(pilot, key, cls)
    screen.query_one(screen.TABLE).focus()
    await wait_until(pilot, lambda: screen.focused is screen.query_one(screen.TABLE))
    return screen  # type: ignore[no-any-return]


async def to_row(pilot: Any, screen: NoteActions, rel: str) -> None:
    table = screen.query_one(screen.TABLE, DataTable)
    table.move_cursor(row=table.get_row_index(rel))
    await wait_until(pilot, lambda: (n := screen.selected()) is not None and n.rel == rel)
    assert (note := screen.selected()) is not None and note.rel == rel


async def plan_shown(pilot: Any, app: CuratorApp) -> PlanDialog:
    await wait_until(pilot, lambda: isinstance(app.screen, PlanDialog))
    dialog = app.screen
    assert isinstance(dialog, PlanDialog)
    await wait_until(pilot, lambda: dialog.plan is not None)  # type: ignore[attr-defined]
    return dialog


async def test_audit_all_like_this_then_review_in_one_commit(palace: Path) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await go(pilot, "3", AuditScreen)
        assert {n.rel for n in screen.listed()} == {*DUE, STALE}
        await to_row(pilot, screen, DUE[1])
        await pilot.press("asterisk")  # every due note, not the stale one
        assert screen.marked == set(DUE) and marks_shown(screen) == set(DUE)
        assert "4 marked" in str(screen.query_one("#audit-table").border_title)
        start = len(git_log(palace))
        await pilot.press("r")
        dialog = await plan_shown(pilot, app)
        assert set(dialog.plan.paths()) >= set(DUE)  # type: ignore[union-attr]
        await apply_plan(pilot)
        assert len(git_log(palace)) == start + 1  # one commit for the four
        assert git_log(palace)[0].startswith("review")
        assert set(commit_files(palace)) == {*DUE, "INDEX.md"}
        today = date.today().isoformat()  # the planners date by the clock
        assert all(str(header(palace / rel)["reviewed"]) == today for rel in DUE)
        assert str(header(palace / STALE)["reviewed"]) == "2026-11-01"
        await wait_until(pilot, lambda: not screen.marked)
        assert {n.rel for n in screen.listed()} == {STALE}  # reviewed: no longer due
        assert marks_shown(screen) == set()


async def test_audit_cancelled_bulk_keeps_the_marks_then_retires_them(palace: Path) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await go(pilot, "3", AuditScreen)
        await to_row(pilot, screen, screen.listed()[0].rel)
        first, second = (n.rel for n in screen.listed()[:2])
        await pilot.press("space", "space")
        assert screen.marked == {first, second}
        before = git_log(palace)
        await pilot.press("t")
        await wait_until(pilot, lambda: isinstance(app.screen, AskDialog))
        assert "2 marked notes" in str(app.screen.query_one("Label").render())
        await pilot.press(*"moved to the wiki", "enter")
        await plan_shown(pilot, app)
        await pilot.press("n")
        await settle(pilot)
        assert git_log(palace) == before
        # cancelled: the marks the reviewer sees are still the ones the next key acts on
        assert screen.marked == {first, second} and marks_shown(screen) == {first, second}
        await pilot.press("t")
        await wait_until(pilot, lambda: isinstance(app.screen, AskDialog))
        await pilot.press(*"moved to the wiki", "enter")
        dialog = await plan_shown(pilot, app)
        assert set(dialog.plan.paths()) >= {first, second}  # type: ignore[union-attr]
        await apply_plan(pilot)
        assert len(git_log(palace)) == len(before) + 1
        assert git_log(palace)[0].startswith("retire")
        assert set(commit_files(palace)) == {first, second, "INDEX.md"}
        for rel in (first, second):
            head = header(palace / rel)
            assert head["status"] == "retired"
            assert head["retired"]["reason"] == "moved to the wiki"
        assert not {first, second} & {n.rel for n in screen.listed()}


async def test_rooms_shift_arrows_mark_a_run_and_retire_it_in_one_commit(palace: Path) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await go(pilot, "2", RoomsScreen)
        assert isinstance(screen, RoomsScreen) and screen.room == "project"
        rels = [n.rel for n in screen.listed()]
        await to_row(pilot, screen, rels[1])
        await pilot.press("shift+down", "shift+down")  # rows 1, 2 and 3
        assert screen.marked == set(rels[1:4]) and marks_shown(screen) == set(rels[1:4])
        await pilot.press("up", "up", "up", "shift+up")  # and row 0 (from row 0: itself)
        assert screen.marked == set(rels[0:4])
        await pilot.press("space")  # space on a marked row unmarks it
        assert screen.marked == set(rels[1:4])
        assert "3 marked" in str(screen.query_one("#rooms-notes").border_title)
        before = len(git_log(palace))
        await pilot.press("t")
        await wait_until(pilot, lambda: isinstance(app.screen, AskDialog))
        await pilot.press(*"old project", "enter")
        await plan_shown(pilot, app)
        await apply_plan(pilot)
        assert len(git_log(palace)) == before + 1
        assert set(commit_files(palace)) == {*rels[1:4], "INDEX.md"}
        assert all(header(palace / rel)["status"] == "retired" for rel in rels[1:4])
        assert header(palace / rels[0]).get("status") != "retired"
        # retired notes leave the room for Superseded; nothing stays marked
        assert [n.rel for n in screen.listed()] == [rels[0], *rels[4:]]
        assert not screen.marked and marks_shown(screen) == set()
        index = (palace / "INDEX.md").read_text().split("## Superseded", 1)[1]
        assert all(rel in index for rel in rels[1:4])


async def test_rooms_bulk_review_in_one_commit(palace: Path) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await go(pilot, "2", RoomsScreen)
        await to_row(pilot, screen, DUE[0])
        await pilot.press("asterisk")  # the due ones (the same flags)
        assert screen.marked == set(DUE)
        before = len(git_log(palace))
        await pilot.press("r")
        await plan_shown(pilot, app)
        await apply_plan(pilot)
        assert len(git_log(palace)) == before + 1
        assert git_log(palace)[0].startswith("review")
        assert set(commit_files(palace)) == {*DUE, "INDEX.md"}
        await wait_until(pilot, lambda: not screen.marked)
        assert marks_shown(screen) == set()  # still listed (reviewed, not moved), unmarked
