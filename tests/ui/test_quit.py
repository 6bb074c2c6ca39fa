"""Quitting never waits for the app's workers: with a thread worker blocked on an Event that
nobody sets, q (or ctrl+q) still ends `App.run()`."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from textual.pilot import Pilot
from uihelpers import make_app, settle, wait_until

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("key", ["q", "ctrl+q"])
def test_quit_does_not_wait_for_a_blocked_worker(sample_palace: Path, key: str) -> None:
    release, started, returned = threading.Event(), threading.Event(), threading.Event()
    app = make_app(sample_palace, watch=False)

    def blocked() -> None:
        started.set()
        release.wait()

    async def auto_pilot(pilot: Pilot[None]) -> None:
        await settle(pilot)
        app.run_worker(blocked, thread=True, group="blocked")
        await wait_until(pilot, started.is_set)
        await pilot.press(key)

    def run() -> None:
        app.run(headless=True, size=(80, 24), auto_pilot=auto_pilot)
        returned.set()

    threading.Thread(target=run, daemon=True).start()
    try:
        # a hang guard, not a timing: without the fix run() returns only once `release` is set
        assert returned.wait(timeout=120), "App.run() waited for the blocked worker"
        assert started.is_set() and not release.is_set()
    finally:
        release.set()
