"""The app holds one palace generation at a time: after reloads and commits, the palaces it
had before are freed (textual keeps finished workers reachable, so no thread worker may take a
palace as an argument)."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest
from textual.widgets import Input, OptionList
from uihelpers import make_app, settle, wait_until

from curator.model.palace import Palace
from curator.ui.screens.inbox import InboxScreen

pytestmark = pytest.mark.anyio


def _alive(refs: list[weakref.ref[Palace]]) -> list[Palace]:
    gc.collect()
    return [p for r in refs if (p := r()) is not None]


async def test_old_palace_generations_are_freed(sample_palace: Path, planners: object) -> None:
    app = make_app(sample_palace, watch=False)
    generations: list[weakref.ref[Palace]] = []

    def seen() -> None:
        assert app.palace is not None
        if not generations or generations[-1]() is not app.palace:
            generations.append(weakref.ref(app.palace))

    async with app.run_test(size=(110, 34)) as pilot:
        await settle(pilot)
        await wait_until(pilot, lambda: app.search_session.ready and not app.indexing, 60)
        seen()
        # every kind of thread worker runs once: dupes of a draft, a search, the history
        inbox = app.screen
        assert isinstance(inbox, InboxScreen) and inbox.drafts
        inbox.show_draft(inbox.drafts[0])
        await settle(pilot)
        await pilot.press("4")
        await wait_until(pilot, lambda: app.current_mode == "search")
        await pilot.press(*"deploy")
        results = app.screen.query_one("#search-results", OptionList)
        await wait_until(pilot, lambda: results.option_count > 0)
        app.screen.query_one("#search-query", Input).value = ""
        app.screen.set_focus(None)
        await pilot.press("5")
        await wait_until(pilot, lambda: app.current_mode == "history")
        await settle(pilot)
        # new generations: reloads and a commit (which reloads, and syncs the index)
        # (the test itself holds each generation only weakly)
        for _ in range(3):
            await pilot.press("ctrl+r")
            await wait_until(pilot, lambda: app.palace is not generations[-1]())
            await settle(pilot)
            seen()
        assert app.palace is not None
        plan = planners.plan_reject(app.palace, app.palace.drafts[0].rel, "covered")  # type: ignore[attr-defined]
        await app.commit_plan(plan)
        await wait_until(pilot, lambda: app.palace is not generations[-1]())
        await settle(pilot)
        await wait_until(pilot, lambda: not app.indexing)
        seen()
        assert len(generations) == 5
        alive = _alive(generations)
        assert alive == [app.palace], f"{len(alive)} palace generations still alive"
