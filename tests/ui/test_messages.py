"""Notifications never cover the tab bar and never vanish unread: the index progress is a line
above the key footer, a toast in a dialog sits under the tab bar, a long message shows cut with
where the rest is, and the messages log (L, listed in `?` and the palette) keeps every one."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_keys_help import _help_lines, _help_shown
from textual.widgets import Static
from textual.widgets._toast import Toast
from uihelpers import make_app, settle, shown_in, wait_until

from curator.ui.progress import JobProgress
from curator.ui.widgets.dialogs import AskDialog
from curator.ui.widgets.messages import TOAST_MORE, MessagesDialog

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

LONG = "Audit: " + ", ".join(f"note-{i} is stale" for i in range(30)) + ". The end."


async def test_progress_leaves_the_tab_bar(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        tabs = shown_in(app, "#screen-tabs")
        assert "[1 Inbox]" in tabs and "6 Tasks" in tabs  # the active tab, without colour
        app.index_jobs.job = ("Building the search index", 3, 10)
        app.index_jobs.show()
        await wait_until(pilot, lambda: bool(app.screen.query(JobProgress)))
        await pilot.pause()
        bar = app.screen.query_one(JobProgress)
        await wait_until(
            pilot, lambda: "Building the search index" in shown_in(app, "#job-progress")
        )
        assert shown_in(app, "#screen-tabs") == tabs
        assert bar.region.y > app.screen.query_one("#screen-tabs").region.bottom
        assert bar.region.bottom <= app.screen.query_one("KeyFooter").region.y


async def test_a_long_message_is_cut_in_its_toast_and_whole_in_the_log(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        app.notify(LONG, markup=False, timeout=30)
        await wait_until(pilot, lambda: bool(app.screen.query(Toast)))
        await wait_until(pilot, lambda: TOAST_MORE.strip() in shown_in(app, "Toast"))
        assert "The end." not in shown_in(app, "Toast")
        assert "Messages" in [c.title for c in app.get_system_commands(app.screen)]
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: _help_shown(app))
        assert any("Messages" in line for line in _help_lines(app))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.screen.query("HelpPanel"))
        await pilot.press("L")
        await wait_until(pilot, lambda: isinstance(app.screen, MessagesDialog))
        text = str(app.screen.query_one("#messages-text", Static).render())
        assert " ".join(LONG.split()) in " ".join(text.split())
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, MessagesDialog))


async def test_a_toast_in_a_dialog_leaves_the_tab_bar(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, AskDialog))
        app.notify("Something happened meanwhile", markup=False, timeout=30)
        await wait_until(pilot, lambda: bool(app.screen.query(Toast)))
        await pilot.pause()
        toast = app.screen.query_one(Toast)
        assert toast.region.y >= 1  # row 0 is the tab bar under the dialog
        box = app.screen.query_one(".dialog-box")
        assert toast.region.bottom <= box.region.y
