"""The app on each tool's folder, opened in place: every room reachable, the notes shown."""

from __future__ import annotations

import asyncio
from datetime import date
from pathlib import Path

import pytest
from palacehelpers import index_now
from test_layout_palaces import TOOLS, adopt
from textual.pilot import Pilot

from curator.ui.app import CuratorApp
from curator.ui.screens.rooms import SUPERSEDED, UNFILED, RoomsScreen
from curator.ui.widgets.note_view import NoteView

pytestmark = pytest.mark.anyio


async def settle(pilot: Pilot[None], app: CuratorApp) -> None:
    """The palace loaded and every worker done (as tests/ui's helper waits). The deadline only
    turns a hang into a failure: at load 15 an index build here took over 30 s."""
    loop = asyncio.get_running_loop()
    end = loop.time() + 120
    while app.palace is None or not all(w.is_finished for w in app.workers):
        assert loop.time() < end, "the app did not settle"
        await pilot.pause(0.05)


async def open_rooms(pilot: Pilot[None], app: CuratorApp) -> RoomsScreen:
    """The app settled and on its Rooms screen."""
    await settle(pilot, app)
    await pilot.press("2")
    await pilot.pause()
    assert isinstance(app.screen, RoomsScreen)
    return app.screen


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize("tool", sorted(TOOLS))
async def test_the_app_opens_each_layout_and_every_room(tmp_path: Path, tool: str) -> None:
    root = adopt(tmp_path, tool)
    index_now(root)
    app = CuratorApp(root, today=date(2026, 12, 1), watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_rooms(pilot, app)
        palace = app.palace
        assert palace is not None and len(palace.notes) == TOOLS[tool][1]
        rooms = [r.spec.name for r in palace.rooms() if r.notes]
        seen: set[str] = set()
        for name in [*rooms, UNFILED, SUPERSEDED]:
            if name == UNFILED and not screen.unfiled(palace):
                continue
            screen.show_room(name)
            await pilot.pause()
            seen.update(n.rel for n in screen.notes)
        assert seen == {n.rel for n in palace.notes}  # every note is in a reachable room
        view = screen.query_one(NoteView)
        for note in palace.notes:  # links to attachments, the same note twice, none at all
            view.show(palace, note)
            await pilot.pause()
            assert view.note is not None and view.note.rel == note.rel


async def test_property_links_are_backlinks_in_the_app(tmp_path: Path) -> None:
    from palacehelpers import git_init_commit
    from textual.widgets import OptionList
    from vaultrules import make

    root = make(tmp_path / "vault", "property-links")
    git_init_commit(root)
    index_now(root)
    app = CuratorApp(root, today=date(2026, 12, 1), watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_rooms(pilot, app)
        palace = app.palace
        assert palace is not None
        view = screen.query_one(NoteView)
        view.show(palace, palace.by_rel["Home.md"])
        await pilot.pause()
        options = view.query_one(OptionList)
        ids = [options.get_option_at_index(i).id for i in range(options.option_count)]
        assert "back:Dune.md" in ids
