"""Indexing never delays keystrokes: the palette takes keys and lists notes while the first
index build is in progress (its child process held stopped from its start, so the build is
running for as long as the test types), and the palette's note matching scores the notes
Textual's matcher would (a hypothesis property over untrusted names)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from palacehelpers import note_text
from textual.command import CommandList
from textual.fuzzy import Matcher
from textual.widgets import Input
from uihelpers import make_app, wait_until

from curator.model.text import one_line
from curator.ui.commands import MAX_HITS, CuratorPalette, _matches

pytestmark = pytest.mark.anyio


async def test_palette_keys_are_handled_while_the_index_builds(make_palace: Any) -> None:
    root = make_palace(
        {
            "notes/project/deploy.md": note_text("Deploy pipeline runs nightly"),
            "notes/project/other.md": note_text("Billing retries"),
        }
    )
    shutil.rmtree(root / ".curator", ignore_errors=True)  # the app builds the index
    app = make_app(root, watch=False)
    session = app.session.index
    started = session._started
    held = threading.Event()

    def stop_at_start(proc: subprocess.Popen[str]) -> None:
        started(proc)
        os.kill(proc.pid, signal.SIGSTOP)  # the build stays in progress until SIGCONT
        held.set()

    session._started = stop_at_start  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, held.is_set, timeout=60)
        child = session._child
        assert child is not None
        try:
            assert app.indexing
            await pilot.press("ctrl+p")
            await wait_until(
                pilot,
                lambda: CuratorPalette.is_open(app) and bool(app.screen.query(Input)),  # type: ignore[arg-type]
            )
            box = app.screen.query_one(Input)
            for char in "deploy":
                expected = box.value + char
                await pilot.press(char)
                await wait_until(pilot, lambda e=expected: box.value == e)  # type: ignore[misc]
            commands = app.screen.query_one(CommandList)

            def listed() -> list[str]:
                return [
                    str(commands.get_option_at_index(i).prompt)
                    for i in range(commands.option_count)
                ]

            await wait_until(pilot, lambda: any("Deploy pipeline" in p for p in listed()))
            assert app.indexing and child.poll() is None  # all of it while the build ran
        finally:
            os.kill(child.pid, signal.SIGCONT)
        await wait_until(pilot, lambda: not app.indexing and session.ready, timeout=120)


class _Note:
    def __init__(self, number: int, name: str) -> None:
        self.rel = f"notes/n{number}.md"
        self.name = name


class _Palace:
    def __init__(self, names: list[str]) -> None:
        self.notes = [_Note(i, name) for i, name in enumerate(names)]


@settings(deadline=None)
@given(
    names=st.lists(st.text(min_size=1, max_size=30), min_size=1, max_size=60),
    query=st.text(min_size=1, max_size=4),
)
def test_matching_scores_what_textual_would(names: list[str], query: str) -> None:
    """With fewer names than it scores, the palette's matching finds exactly the names
    Textual's matcher gives a score, best first."""
    matcher = Matcher(query)
    found = _matches(_Palace(names), query, matcher)  # type: ignore[arg-type]
    shown = [one_line(name, 80) for name in names]
    scores = sorted((s for s in map(matcher.match, shown) if s > 0), reverse=True)
    assert [score for score, _name, _note in found] == scores[:MAX_HITS]
