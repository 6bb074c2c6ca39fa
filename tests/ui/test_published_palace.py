"""The app publishes each palace it loads (its `palace` reactive): the screen on show redraws
from it at once, a screen out of sight once it is shown again."""

from __future__ import annotations

from pathlib import Path

import pytest
from uihelpers import make_app, settle, show_screen, wait_until

from curator.ui.screens.inbox import InboxScreen
from curator.ui.screens.rooms import RoomsScreen

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

NOTE = "notes/project/stripe-webhook-handler.md"


async def test_a_screen_out_of_sight_redraws_once_shown(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        rooms = await show_screen(pilot, "2", RoomsScreen)
        rooms.open_note(NOTE)
        before = list(rooms.notes)
        inbox = await show_screen(pilot, "1", InboxScreen)
        drafts = len(inbox.drafts)
        text = (sample_palace / NOTE).read_text(encoding="utf-8")
        copy = "notes/project/stripe-webhook-handler-copy.md"
        (sample_palace / copy).write_text(
            text.replace("name: Stripe webhooks enter", "name: Stripe webhooks also enter"),
            encoding="utf-8",
        )
        draft = "inbox/published-draft.md"
        (sample_palace / draft).write_text(
            "---\nname: A draft from outside\ntype: project\n---\nbody\n", encoding="utf-8"
        )
        first = app.palace
        app.action_reload()  # ctrl+r: the inbox lists the drafts that arrived meanwhile
        await wait_until(pilot, lambda: app.palace is not first)
        assert draft in (inbox.listed or [])  # the screen on show drew at once
        assert len(inbox.drafts) == drafts + 1
        assert copy not in {n.rel for n in rooms.notes}  # out of sight: not drawn yet
        await show_screen(pilot, "2", RoomsScreen)
        await wait_until(pilot, lambda: copy in {n.rel for n in rooms.notes})
        assert len(rooms.notes) == len(before) + 1
