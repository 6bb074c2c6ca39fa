"""The index job's bar takes an update at any point of its life: right after it is mounted
(before it has composed its label and bar) and while it is being removed (its children gone).
Both once raised "No nodes match 'Label' on JobProgress" from the app's job updates."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Label, ProgressBar, Static

from curator.ui.progress import JobProgress

pytestmark = pytest.mark.anyio


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("body")


async def test_show_before_compose_keeps_the_values() -> None:
    app = Host()
    async with app.run_test(size=(60, 5)) as pilot:
        bar = JobProgress("Building the search index")
        mounted = app.screen.mount(bar)
        bar.show("Building the search index", 3, 10)  # before its children exist
        await mounted
        await pilot.pause()
        assert str(bar.query_one(Label).render()) == "Building the search index"
        progress = bar.query_one(ProgressBar)
        assert (progress.progress, progress.total) == (3, 10)
        bar.show("Reindexing", 7, 10)
        await pilot.pause()
        assert str(bar.query_one(Label).render()) == "Reindexing"
        assert progress.progress == 7


async def test_show_while_removed_does_not_raise() -> None:
    app = Host()
    async with app.run_test(size=(60, 5)) as pilot:
        bar = JobProgress("Building the search index")
        await app.screen.mount(bar)
        removed = bar.remove()
        bar.show("Building the search index", 5, 10)  # a job update racing the removal
        await removed
        bar.show("Building the search index", 6, 10)  # and one after it
        await pilot.pause()
        assert not app.screen.query(JobProgress)
