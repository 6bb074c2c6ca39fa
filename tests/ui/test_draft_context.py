"""The Inbox shows the text a draft came from (its `context:`), dim beside the draft, on one
cleaned line; a draft without one shows no context line. Real app through Pilot."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static
from uihelpers import make_app, settle, wait_until

from curator.writer.capture import capture

pytestmark = [pytest.mark.slow, pytest.mark.anyio]


async def test_the_inbox_shows_a_drafts_context(sample_palace: Path) -> None:
    capture(
        sample_palace,
        type="project",
        name="Zz context draft",
        body="Invoices go to the slow queue.\n",
        context="Ana: which queue takes the invoices?\n\x1b[31mBo\x1b[0m: the slow one.",
    )
    app = make_app(sample_palace)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        box = app.screen.query_one("#inbox-warnings", Static)
        table = app.screen.query_one("#inbox-drafts")
        for _ in range(len(app.palace.drafts) if app.palace else 0):  # to the new draft
            if "Ana: which queue" in str(box.render()):
                break
            table.action_cursor_down()  # type: ignore[attr-defined]
            await pilot.pause()
        await wait_until(pilot, lambda: "Ana: which queue" in str(box.render()))
        shown = str(box.render())
        assert "context: Ana: which queue takes the invoices? Bo: the slow one." in shown
        assert "\x1b" not in shown
