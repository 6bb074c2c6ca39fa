"""The app's sync (key S): the plan first, a conflict settled on screen (keep this clone's
text), then the sync as one commit; the palace reloads after it (issue 22)."""

from __future__ import annotations

from pathlib import Path

import pytest
from synchelpers import clean, edited_on_both, head, make_team, remote_head
from uihelpers import make_app, settle, wait_until

pytestmark = pytest.mark.anyio


async def test_sync_key_shows_the_plan_settles_a_conflict_and_syncs(tmp_path: Path) -> None:
    from curator.ui.screens.sync import SyncDialog

    # the hash embedder: the app's first index build stays quick
    remote, (a, b) = make_team(tmp_path, clones=2, embedder="hash")
    rel = edited_on_both(a, b)
    before = head(b)
    app = make_app(b, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("S")
        await wait_until(pilot, lambda: isinstance(app.screen, SyncDialog))
        dialog = app.screen
        assert isinstance(dialog, SyncDialog)
        await wait_until(pilot, lambda: dialog.plan is not None, timeout=30)
        assert [c.path for c in dialog.plan.conflicts] == [rel]
        assert head(b) == before  # the plan changed nothing
        await pilot.press("y")  # refused while a conflict is open
        await pilot.pause(0.1)
        assert head(b) == before and isinstance(app.screen, SyncDialog)
        await pilot.press("m")
        await wait_until(pilot, lambda: not dialog.busy and not dialog.plan.conflicts, timeout=30)
        await pilot.press("y")
        await wait_until(pilot, lambda: not isinstance(app.screen, SyncDialog), timeout=30)
        await settle(pilot)
    assert head(b) == remote_head(remote) and clean(b)
    assert (b / rel).read_text().endswith("Beta's text.\n")
