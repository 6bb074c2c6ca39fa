"""The app follows a `curator sync` run from the CLI in another process, as it follows a local
action: a teammate's promote pulled by the CLI leaves the app's inbox and shows in its rooms
with no key pressed (the file watcher reloads the palace; issue 22)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from palacehelpers import index_now
from synchelpers import head, make_team, promote_new, remote_head, share_inbox
from uihelpers import make_app, settle, show_screen, wait_until

from curator.model.palace import Palace
from curator.writer.actions.promote import plan_promote
from curator.writer.capture import capture
from curator.writer.session import commit
from curator.writer.sync import sync

pytestmark = pytest.mark.anyio


async def cli_sync(root: Path) -> None:
    """`curator sync --yes` in a process of its own (the app's loop keeps running)."""
    argv = [sys.executable, "-m", "curator", "--palace", str(root), "sync", "--yes"]
    done = await asyncio.to_thread(subprocess.run, argv, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def rows(app: object, selector: str) -> set[str]:
    table = app.screen.query_one(selector)  # type: ignore[attr-defined]
    return {str(key.value) for key in table.rows}


async def test_a_teammates_promote_pulled_by_the_cli_shows_without_a_key(tmp_path: Path) -> None:
    from curator.ui.screens.rooms import RoomsScreen

    remote, (a, b) = make_team(tmp_path, clones=2, embedder="hash")
    promote_new(a, "Base fact")  # a room with a note in it, on both clones
    share_inbox([a, b])
    draft = capture(a, type="project", name="Shared draft", body="Text.\n", description="d").path
    sync(a)
    sync(b)  # the draft reaches b's inbox
    assert (b / draft).is_file()
    index_now(b)  # built here, not by the app in a child process (that is not this test's)
    app = make_app(b)  # watching the palace, as the app always does
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await wait_until(pilot, lambda: draft in rows(app, "#inbox-drafts"))
        # a promotes the shared draft and pushes; b's CLI pulls it
        palace = Palace.open(a)
        plan = plan_promote(palace, draft, confidence=0.8)
        commit(a, plan, palace=palace)
        note = next(p for p in plan.paths() if p.startswith("notes/"))
        sync(a)
        await cli_sync(b)
        assert head(b) == remote_head(remote) and (b / note).is_file()
        await wait_until(pilot, lambda: draft not in rows(app, "#inbox-drafts"))
        assert app.palace is not None and note in app.palace.by_rel
        # on the rooms screen: the next note a teammate promotes shows there on its own
        screen = await show_screen(pilot, "2", RoomsScreen)
        assert note in rows(app, "#rooms-notes")
        second = promote_new(a, "Second fact")
        sync(a)
        await cli_sync(b)
        await wait_until(pilot, lambda: second in rows(app, "#rooms-notes"))
        assert app.screen is screen
