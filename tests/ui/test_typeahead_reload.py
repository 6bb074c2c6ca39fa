"""Keys typed while something they are meant for is on its way each act once, in order: the
list a commit leaves (the inbox reloads after it), and a screen switched to by its number."""

from __future__ import annotations

from typing import Any

import pytest
from test_keys_burst import burst
from uihelpers import git_log, make_app, settle, wait_until

from curator.ui.screens.inbox import InboxScreen

pytestmark = [pytest.mark.slow, pytest.mark.anyio]


@pytest.mark.parametrize("when", ["with the yes", "once committed"])
async def test_marks_typed_during_the_reload_after_a_commit_all_act(
    make_palace: Any, when: str
) -> None:
    """Space typed while the commit runs or the palace reloads marks the drafts the commit
    leaves, not the row of the draft just rejected (the key was lost with its mark)."""
    from test_review_flow import drafts

    root = make_palace(drafts(8))
    app = make_app(root, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InboxScreen)
        rejected = screen.listed[0]
        before = len(git_log(root))
        if when == "with the yes":
            burst(app, "x", *"dup", "enter", "y", "space", "space", "space")
        else:
            burst(app, "x", *"dup", "enter", "y")
            await wait_until(pilot, lambda: len(git_log(root)) == before + 1, timeout=60)
            burst(app, "space", "space", "space")
        await wait_until(pilot, lambda: len(git_log(root)) == before + 1, timeout=60)
        await wait_until(pilot, lambda: rejected not in screen.listed)
        await wait_until(pilot, lambda: len(screen.marked) >= 3 and app.typeahead.idle)
        await settle(pilot)
        assert screen.marked == set(screen.listed[:3]), (screen.marked, screen.listed)
        assert "3 marked" in str(screen.query_one("#inbox-drafts").border_title)


async def test_screen_numbers_typed_fast_end_on_the_last_and_the_next_key_acts(
    sample_palace: Any,
) -> None:
    """Screen keys in a burst (screens not visited yet, so each is made and mounted on the
    way: this once ended the app with "No Tab with id 'tab-tasks'") end on the last one typed,
    and the keys after them move that screen's cursor."""
    from curator.ui.screens.rooms import RoomsScreen

    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        burst(app, "2", "3", "6", "5", "4", "1", "down", "down")
        # the burst is still in the app's queue here: wait for it to start, then to end
        await wait_until(pilot, lambda: not app.typeahead.idle)
        await wait_until(pilot, lambda: app.typeahead.idle, timeout=60)
        await settle(pilot)
        assert isinstance(app.screen, InboxScreen), app.screen
        table = app.screen.query_one("#inbox-drafts")
        assert app.screen.focused is table
        assert table.cursor_row == 2
        burst(app, "5", "2", "1", "up", "2")  # every screen made already
        await wait_until(pilot, lambda: not app.typeahead.idle)
        await wait_until(pilot, lambda: app.typeahead.idle, timeout=60)
        await settle(pilot)
        assert isinstance(app.screen, RoomsScreen), app.screen
        assert app.get_screen_stack("inbox")[-1].query_one("#inbox-drafts").cursor_row == 1
