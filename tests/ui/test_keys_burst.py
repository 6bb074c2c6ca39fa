"""Keys typed in one burst (a fast typist, a paste, tmux send-keys) are handled in order by the
screen they were meant for: the reason typed after a reject key goes into the reason, and a
"y" right after the Enter that closes the reason prompt answers the plan dialog."""

from __future__ import annotations

from typing import Any

import pytest
from textual import events
from uihelpers import git_log, make_app, settle, wait_until

from curator.ui.widgets.plan_dialog import PlanDialog

pytestmark = [pytest.mark.slow, pytest.mark.anyio]


def burst(app: Any, *keys: str) -> None:
    """Post every key at once, as a terminal read of several keys does (Pilot's press waits
    for the app to go idle between keys, which hides the race)."""
    for key in keys:
        char = key if len(key) == 1 else ("\r" if key == "enter" else None)
        app.post_message(events.Key(key, char))


async def test_a_burst_rejects_with_its_reason_and_applies(make_palace: Any) -> None:
    from test_review_flow import drafts

    root = make_palace(drafts(3))
    app = make_app(root, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        before = len(git_log(root))
        burst(app, "x", *"dup of d1", "enter", "y")
        await wait_until(pilot, lambda: len(git_log(root)) == before + 1, timeout=60)
        body = git_log(root, "%B")
        assert git_log(root)[0].startswith("reject")
        assert "dup of d1" in "\n".join(body)
        assert "dup of d1y" not in "\n".join(body)
        assert not isinstance(app.screen, PlanDialog)


async def test_keys_after_an_action_go_to_its_dialog(make_palace: Any) -> None:
    from test_review_flow import drafts

    root = make_palace(drafts(3))
    app = make_app(root, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        burst(app, "p", *"Renamed")  # typed before the promote form is up
        # the form is on show before it has composed its fields: wait for the one typed into
        await wait_until(
            pilot,
            lambda: (
                type(app.screen).__name__ == "PromoteForm"
                and bool(app.screen.query("#promote-name"))
            ),
        )
        field = app.screen.query_one("#promote-name")
        # one key at a time, each once the one before is handled: slow on a loaded machine
        await wait_until(pilot, lambda: app.typeahead.idle)
        await pilot.pause()  # idle: the last key handled
        assert field.value == "Draft 2Renamed", field.value  # every key, in order, once


async def test_a_key_after_a_priority_binding_is_not_stuck(sample_palace: Any) -> None:
    """Enter is a priority binding in Rooms (the app handles it in its own turn, no widget
    sees it, no dialog follows): the keys held behind it must still go on."""
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        burst(app, "down", "enter", "down", "question_mark")  # the last one opens the key help
        await wait_until(pilot, lambda: bool(app.screen.query("HelpPanel")))
        assert not app.typeahead.held
