"""The app's second review (issue 36): each bug a reviewer hit, by its exact keys. Real app
(Pilot), real palace and git repository."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from palacehelpers import note_text
from textual.widgets import OptionList
from uihelpers import make_app, settle, show_screen, wait_until

from curator.ui.screens.rooms import RoomsScreen

pytestmark = [pytest.mark.slow, pytest.mark.anyio]


@pytest.fixture
def palace(make_palace: Any) -> Path:
    return make_palace(
        {
            "notes/project/hub.md": note_text("Hub", body="See [[spoke]] and [[fan]].\n"),
            "notes/project/spoke.md": note_text("Spoke", body="Plain.\n"),
            "notes/project/fan.md": note_text("Fan", body="I like [[hub]].\n"),
            "notes/feedback/rule.md": note_text("A rule", type="feedback", body="Rule.\n"),
        }
    )


async def test_j_and_k_move_in_the_room_list_and_the_links(palace: Path) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await show_screen(pilot, "2", RoomsScreen)
        rooms = screen.query_one("#rooms-list", OptionList)
        rooms.focus()
        await settle(pilot)
        start = rooms.highlighted
        assert start is not None
        await pilot.press("j")
        await wait_until(pilot, lambda: rooms.highlighted == start + 1)
        await pilot.press("k")
        await wait_until(pilot, lambda: rooms.highlighted == start)
        # the note's links move the same way
        screen.open_note("notes/project/hub.md")
        links = screen.query_one("#note-links", OptionList)
        await wait_until(pilot, lambda: links.option_count >= 2)
        links.focus()
        links.highlighted = 0
        await settle(pilot)
        await pilot.press("j")
        await wait_until(pilot, lambda: links.highlighted == 1)
        await pilot.press("k")
        await wait_until(pilot, lambda: links.highlighted == 0)
