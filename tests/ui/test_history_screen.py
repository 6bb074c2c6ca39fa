"""History (issue 15): each action with its files, reason and whether it was undone (by which
commit); undo of an undone action says so and commits nothing; undo of another one commits.
Real app (Pilot) at 80×24 on a real palace whose actions went through the writer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from palacehelpers import note_text
from textual.widgets import DataTable, Static
from uihelpers import (
    apply_plan,
    commit_files,
    git_log,
    make_app,
    messages_of,
    settle,
    show_screen,
    wait_until,
)

from curator.model.palace import Palace
from curator.session import Session
from curator.ui import services
from curator.ui.screens.history import HistoryScreen
from curator.ui.widgets.plan_dialog import PlanDialog

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

A = "inbox/2026-11-20-a.md"
B = "inbox/2026-11-21-b.md"


def draft(name: str) -> str:
    return note_text(name, extra="status: draft\ncreated: 2026-11-20\n")


@pytest.fixture
def palace(make_palace: Any) -> tuple[Path, dict[str, str]]:
    """Two rejects, the first undone: {'a': sha, 'b': sha, 'undo': sha}."""
    root = make_palace({A: draft("Draft A"), B: draft("Draft B")})
    shas: dict[str, str] = {}
    for key, rel, reason in (("a", A, "a duplicate of billing"), ("b", B, "not true")):
        palace = Palace.open(root)
        Session(palace).commit(services.plan_reject(palace, rel, reason))
        shas[key] = git_log(root, "%H")[0]
    palace = Palace.open(root)
    Session(palace).commit(services.plan_undo(palace, shas["a"]))
    shas["undo"] = git_log(root, "%H")[0]
    return root, shas


def detail(screen: HistoryScreen) -> str:
    return str(screen.query_one("#history-detail", Static).render())


async def open_history(pilot: Any) -> HistoryScreen:
    screen = await show_screen(pilot, "5", HistoryScreen)
    assert isinstance(screen, HistoryScreen)
    return screen


async def select(pilot: Any, screen: HistoryScreen, sha: str) -> str:
    """Select the entry of `sha` and wait for its files to show; its detail text."""
    table = screen.query_one("#history-table", DataTable)
    table.move_cursor(row=table.get_row_index(sha))
    mine = f"\n{sha[:10]}  · "  # the detail's second line: this entry's, not the one before
    await wait_until(pilot, lambda: "files: …" not in detail(screen) and mine in detail(screen))
    return detail(screen)


async def test_history_shows_files_reason_and_undone_by(
    palace: tuple[Path, dict[str, str]],
) -> None:
    root, shas = palace
    app = make_app(root, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_history(pilot)
        table = screen.query_one("#history-table", DataTable)
        assert [e.sha for e in screen.entries] == [shas["undo"], shas["b"], shas["a"]]
        assert "undone" in str(table.get_cell(shas["a"], "undone"))
        assert str(table.get_cell(shas["b"], "undone")).strip() == ""

        shown = await select(pilot, screen, shas["a"])
        assert "reason: a duplicate of billing" in shown
        assert f"undone by {shas['undo'][:10]}" in shown
        assert commit_files(root, shas["a"]) and all(
            f in shown for f in commit_files(root, shas["a"])
        )

        shown = await select(pilot, screen, shas["b"])
        assert "reason: not true" in shown and "undone by" not in shown
        assert all(f in shown for f in commit_files(root, shas["b"]))

        shown = await select(pilot, screen, shas["undo"])
        assert f"{shas['undo'][:10]}  · undoes {shas['a'][:10]}  · by Test" in shown
        assert all(f in shown for f in commit_files(root, shas["undo"]))

        # all of it on screen at 80×24: the Undone column and the detail pane
        undone = table.columns[next(k for k in table.columns if k.value == "undone")]
        assert sum(c.get_render_width(table) for c in table.columns.values()) <= table.size.width
        assert undone.width >= len("undone")
        pane = screen.query_one("#history-detail")
        assert pane.region.height >= 3 and pane.region.bottom <= 24


async def test_undo_of_an_undone_action_says_so(palace: tuple[Path, dict[str, str]]) -> None:
    root, shas = palace
    app = make_app(root, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_history(pilot)
        await select(pilot, screen, shas["a"])
        before = git_log(root)
        await pilot.press("u")
        await settle(pilot)
        assert not isinstance(app.screen, PlanDialog)
        assert git_log(root) == before
        said = messages_of(app)
        assert any(
            "already undone" in m and shas["undo"][:10] in m and shas["a"][:10] in m for m in said
        ), said
        assert (root / A).exists()  # back in the inbox since the undo, and stays there


async def test_undo_from_history_commits_and_shows_it_undone(
    palace: tuple[Path, dict[str, str]],
) -> None:
    root, shas = palace
    app = make_app(root, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_history(pilot)
        await select(pilot, screen, shas["b"])
        before = len(git_log(root))
        await pilot.press("u")
        await apply_plan(pilot)
        assert git_log(root)[0].startswith("undo")
        assert (root / B).exists()  # the rejected draft is back in the inbox
        new = git_log(root, "%H")[0]
        await wait_until(pilot, lambda: len(screen.entries) == 4)
        table = screen.query_one("#history-table", DataTable)
        assert "undone" in str(table.get_cell(shas["b"], "undone"))
        shown = await select(pilot, screen, shas["b"])
        assert f"undone by {new[:10]}" in shown
        await pilot.press("u")  # again: it says so, nothing more is committed
        await settle(pilot)
        assert len(git_log(root)) == before + 1
        assert any("already undone" in m for m in messages_of(app))


async def test_a_draft_moved_outside_git_is_listed_as_moved(sample_palace: Path) -> None:
    """The sample palace ignores inbox/ in git: a reject's commit lists no file, the move is in
    its Curator-Restore trailer. History lists the move (and the undo's move back), never a
    "files: …" that stays as if still loading."""
    palace = Palace.open(sample_palace)
    rel = sorted(d.rel for d in palace.drafts)[0]
    Session(palace).commit(services.plan_reject(palace, rel, "dup"))
    reject = git_log(sample_palace, "%H")[0]
    assert commit_files(sample_palace, reject) == []  # git itself shows nothing
    palace = Palace.open(sample_palace)
    Session(palace).commit(services.plan_undo(palace, reject))
    undo = git_log(sample_palace, "%H")[0]
    kept = ".curator/rejected/" + Path(rel).name
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_history(pilot)
        assert f"files: {rel} → {kept}" in await select(pilot, screen, reject)
        assert f"files: {kept} → {rel}" in await select(pilot, screen, undo)


async def test_an_undone_undo_puts_the_action_back_in_effect(make_palace: Any) -> None:
    """review A, undo it (U), undo the undo (U2): A is in effect again, so History does not
    call it undone (it says both undos), and u on A is the writer's answer, not "already
    undone"; U is the one undone now."""
    rel = "notes/project/a.md"
    root = make_palace({rel: note_text("A thing", extra="reviewed: 2026-01-01\n")})
    shas = []
    for step in range(3):
        palace = Palace.open(root)
        plan = services.plan_review(palace, rel) if step == 0 else services.plan_undo(palace)
        Session(palace).commit(plan)
        shas.append(git_log(root, "%H")[0])
    action, undo, redo = shas
    app = make_app(root, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_history(pilot)
        table = screen.query_one("#history-table", DataTable)
        assert str(table.get_cell(action, "undone")).strip() == ""
        assert "undone" in str(table.get_cell(undo, "undone"))
        shown = await select(pilot, screen, action)
        assert f"undone by {undo[:10]}, redone by {redo[:10]}" in shown
        before = git_log(root)
        await pilot.press("u")
        await wait_until(
            pilot,
            lambda: any("later commits touched" in m for m in messages_of(app)),
            timeout=30,
        )
        await settle(pilot)
        assert git_log(root) == before
        assert not any("already undone" in m for m in messages_of(app))


async def test_the_time_shows_as_the_cli_shows_it(
    palace: tuple[Path, dict[str, str]], run_cli: Any
) -> None:
    root, shas = palace
    code, out, _err = run_cli("history", cwd=root)
    assert code == 0
    cli_when = {line.split()[0]: " ".join(line.split()[1:3]) for line in out.splitlines() if line}
    app = make_app(root, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_history(pilot)
        table = screen.query_one("#history-table", DataTable)
        await wait_until(pilot, lambda: table.row_count >= 3)
        for key in ("a", "b", "undo"):
            cell = str(table.get_cell(shas[key], "date"))
            assert cell == cli_when[shas[key][:10]], (cell, out)
            assert ":" in cell  # the hour and minute, not the date alone


async def test_slash_filters_history_by_reviewer(make_palace: Any) -> None:
    """`/` in History finds a teammate's actions by their name (issue 22: a filter by
    reviewer); the selected entry and its undo follow the rows shown."""
    import subprocess

    root = make_palace({A: draft("Draft A"), B: draft("Draft B")})
    shas: dict[str, str] = {}
    for who, rel in (("Ana Reviewer", A), ("Bo Teammate", B)):
        subprocess.run(["git", "-C", str(root), "config", "user.name", who], check=True)
        palace = Palace.open(root)
        Session(palace).commit(services.plan_reject(palace, rel, "not true"))
        shas[who] = git_log(root, "%H")[0]
    app: Any = make_app(root, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await open_history(pilot)
        table = screen.query_one("#history-table", DataTable)
        await wait_until(pilot, lambda: screen.loaded and shas["Bo Teammate"] in table.shown)
        every = len(table.shown)
        await pilot.press("slash", *"ana")
        await wait_until(pilot, lambda: table.shown == [shas["Ana Reviewer"]])
        assert table.border_title == f"History (1 of {every})"
        await pilot.press("enter")
        await wait_until(pilot, lambda: shas["Ana Reviewer"][:10] in detail(screen))
        assert screen.selected().sha == shas["Ana Reviewer"]
        assert "by Ana Reviewer" in detail(screen)
        await pilot.press("escape")
        await wait_until(pilot, lambda: len(table.shown) == every)
