"""The app's sync (key S): the plan first, a conflict settled in the Conflicts view (keep this
clone's text, the remote's, or a merge edited from both sides), then the sync as one commit;
the palace reloads after it (issue 22)."""

from __future__ import annotations

from pathlib import Path

import pytest
from palacehelpers import git, index_now
from synchelpers import clean, edited_on_both, head, make_team, remote_head
from textual.pilot import Pilot
from textual.widgets import Label, ProgressBar
from uihelpers import make_app, settle, wait_until

from curator.ui.screens.sync import SyncDialog

pytestmark = pytest.mark.anyio


async def open_sync(pilot: Pilot[None], rel: str) -> SyncDialog:
    """Press S once the app has loaded; the sync dialog once its plan lists the one conflict."""
    app = pilot.app
    await settle(pilot)
    await pilot.press("S")
    await wait_until(pilot, lambda: isinstance(app.screen, SyncDialog))
    dialog = app.screen
    assert isinstance(dialog, SyncDialog)
    await wait_until(pilot, lambda: dialog.plan is not None)
    assert [c.path for c in dialog.plan.conflicts] == [rel]
    return dialog


@pytest.mark.parametrize(("key", "kept"), [("m", "Beta's text."), ("t", "Alpha's text.")])
async def test_sync_key_shows_the_plan_settles_a_conflict_and_syncs(
    tmp_path: Path, key: str, kept: str
) -> None:
    remote, (a, b) = make_team(tmp_path, clones=2, embedder="hash")
    rel = edited_on_both(a, b)
    before = head(b)
    index_now(b)  # built here, not by the app in a child process (that is not this test's)
    app = make_app(b, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await open_sync(pilot, rel)
        assert head(b) == before  # the plan changed nothing
        # the plan's fetch showed git's progress on the dialog's bar, to its end
        bar = dialog.query_one("#sync-progress", ProgressBar)
        assert bar.display and bar.total and bar.progress == bar.total
        assert str(dialog.query_one("#sync-stage", Label).render()).startswith("fetch: ")
        await pilot.press("y")  # refused while a conflict is open
        await pilot.pause()  # idle: a sync the key started would be under way
        assert head(b) == before and isinstance(app.screen, SyncDialog)
        await pilot.press(key)  # m: keep this clone's text (b's), t: the remote's (a's)
        await wait_until(pilot, lambda: not dialog.busy and not dialog.plan.conflicts)
        await pilot.press("y")
        await wait_until(pilot, lambda: not isinstance(app.screen, SyncDialog))
        await settle(pilot)
    assert head(b) == remote_head(remote) and clean(b)
    assert dialog.transfer.direction == "push" and dialog.transfer.fraction == 1.0
    assert (b / rel).read_text().endswith(f"{kept}\n")
    assert app.palace is not None and app.palace.by_rel[rel].body.endswith(f"{kept}\n")


async def test_a_merge_edited_in_the_conflicts_view_settles_it_as_one_commit(
    tmp_path: Path,
) -> None:
    from textual.widgets import Static

    from curator.ui.widgets.dialogs import EditDialog, SafeTextArea
    from curator.ui.widgets.zoom import ZoomDialog
    from curator.writer.sync import sync

    remote, (a, b) = make_team(tmp_path, clones=2, embedder="hash")
    rel = edited_on_both(a, b)
    theirs, before = remote_head(remote), head(b)
    index_now(b)
    app = make_app(b, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await open_sync(pilot, rel)
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EditDialog))
        area = app.screen.query_one(SafeTextArea)
        start = area.raw
        # both sides, between git's markers naming them
        assert "<<<<<<< this clone\nBeta's text.\n=======\nAlpha's text.\n>>>>>>> the remote\n" in (
            start
        )
        await pilot.press("ctrl+s")  # the markers are still there: refused, the editor stays
        await pilot.pause()
        assert isinstance(app.screen, EditDialog)
        problems = app.screen.query_one("#edit-problems", Static)
        assert "conflict marker" in str(problems.render())
        head_end = start.index("<<<<<<<")
        merged = start[:head_end] + "Alpha's and Beta's text.\n"
        area.load_text(merged)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: app.screen is dialog)
        await wait_until(pilot, lambda: not dialog.busy and not dialog.plan.conflicts)
        assert head(b) == before and (b / rel).read_text().endswith("Beta's text.\n")
        # z: the text merged by hand, what will be replayed (not the old conflict)
        await pilot.press("z")
        await wait_until(pilot, lambda: isinstance(app.screen, ZoomDialog))
        zoomed = str(app.screen.query_one("#zoom-text", Static).render())
        assert f"merged: {rel}" in zoomed and "Alpha's and Beta's text." in zoomed
        assert "<<<<<<<" not in zoomed
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is dialog)
        await pilot.press("y")
        await wait_until(pilot, lambda: not isinstance(app.screen, SyncDialog))
        await settle(pilot)
    assert head(b) == remote_head(remote) and clean(b)
    assert (b / rel).read_bytes() == merged.encode()
    # one commit on top of the remote's: the replayed edit, with the merged text
    assert git(b, "rev-list", f"{theirs}..HEAD").stdout.split() == [head(b)]
    message = git(b, "log", "-1", "--format=%B").stdout
    assert f"Curator-Resolved: {rel} (merged)" in message
    sync(a)
    assert (a / rel).read_bytes() == merged.encode()
