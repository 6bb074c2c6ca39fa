"""A diff on the whole screen (issue 36, lazygit's `+`): z in the plan dialog shows every
file and the whole diff, scrollable; Escape goes back to the plan, which still applies."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Static
from uihelpers import make_app, settle, wait_until

from curator.ui.widgets.plan_dialog import PlanDialog
from curator.ui.widgets.zoom import ZoomDialog

pytestmark = pytest.mark.anyio


async def test_plan_diff_zooms_full_screen_and_back(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("x", *"duplicate", "enter")
        await wait_until(pilot, lambda: getattr(app.screen, "plan", None) is not None)
        plan_dialog = app.screen
        assert isinstance(plan_dialog, PlanDialog) and plan_dialog.plan is not None
        await pilot.press("z")
        await wait_until(pilot, lambda: isinstance(app.screen, ZoomDialog))
        zoom = app.screen
        text = str(zoom.query_one("#zoom-text", Static).render())
        assert all(path in text for path in plan_dialog.plan.paths())
        shown = str(plan_dialog.query_one("#plan-diff", Static).render())
        assert shown.strip() and shown.strip() in text  # the plan's whole diff
        scroll = zoom.query_one("#zoom-scroll", VerticalScroll)
        assert scroll.size.width >= 76 and scroll.size.height >= 16  # the whole screen
        await pilot.press("j")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is plan_dialog)
        await pilot.press("n")
        await wait_until(pilot, lambda: not isinstance(app.screen, PlanDialog))
