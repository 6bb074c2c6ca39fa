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
        await wait_until(pilot, lambda: app.session.index.ready and not app.indexing, 60)
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


async def test_footer_keys_are_freed_when_the_footer_rebuilds(sample_palace: Path) -> None:
    """Moving focus rebuilds the footer's keys; the old ones must not stay reachable (Textual
    keeps a watcher per key on the footer until `compact` changes: see KeyFooter)."""
    from textual.widgets._footer import FooterKey

    def detached_keys() -> int:
        gc.collect()
        return sum(1 for o in gc.get_objects() if isinstance(o, FooterKey) and not o.is_attached)

    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(110, 34)) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await wait_until(pilot, lambda: app.current_mode == "search")
        await settle(pilot)
        query = app.screen.query_one("#search-query", Input)
        for _ in range(10):  # each focus change changes the bindings, so the footer rebuilds
            app.screen.set_focus(None)
            await pilot.pause()  # idle: the footer has followed the focus
            query.focus()
            await wait_until(pilot, lambda: app.focused is query)
            await pilot.pause()
        await settle(pilot)
        assert detached_keys() <= 40  # at most the last rebuild's, not ten rebuilds' worth
