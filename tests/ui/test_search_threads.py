"""Search runs its queries in one thread: typing while the index is busy (a sync holds the
search session) queues only the newest query, so the worker pool that planning and commits
need stays free, and the results shown are the last query's."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList
from uihelpers import make_app, settle, wait_until

from curator.ui.screens.search import DEBOUNCE, SearchScreen
from curator.ui.widgets.plan_dialog import PlanDialog
from curator.ui.widgets.promote_form import PromoteForm

pytestmark = [pytest.mark.slow, pytest.mark.anyio]


async def test_typing_during_a_sync_leaves_the_app_free(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        lock = app.session.index.lock  # held as a long index sync holds it
        lock.acquire()
        try:
            await pilot.press("4")
            await wait_until(pilot, lambda: isinstance(app.screen, SearchScreen))
            search = app.screen
            for ch in "webhooks":  # each key a query of its own (the debounce runs out)
                await pilot.press(ch)
                await pilot.pause(DEBOUNCE + 0.05)
            busy = [w for w in app.workers if w.group == "search" and not w.is_finished]
            assert len(busy) <= 1, busy
            await pilot.press("escape", "1")
            await pilot.press("p")
            await wait_until(pilot, lambda: isinstance(app.screen, PromoteForm))
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: isinstance(app.screen, PlanDialog))
            dialog = app.screen
            await wait_until(pilot, lambda: dialog.plan is not None)  # not stuck
            await pilot.press("n")
        finally:
            lock.release()
        await pilot.press("4")
        await wait_until(pilot, lambda: app.screen is search)
        results = search.query_one("#search-results", OptionList)
        await wait_until(pilot, lambda: search.shown is not None and search.shown[0] == "webhooks")
        assert results.option_count > 0
