"""Every action through the UI: plan dialog, commit, files, INDEX.md and git log."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Input
from uihelpers import git_log, make_app, messages_of, settle, wait_until

from curator.ui.screens.inbox import InboxScreen
from curator.ui.widgets.dialogs import AskDialog
from curator.ui.widgets.plan_dialog import PlanDialog
from curator.ui.widgets.promote_form import PromoteForm

pytestmark = [pytest.mark.slow, pytest.mark.anyio]


async def _confirm(pilot, app) -> None:  # type: ignore[no-untyped-def]
    await wait_until(pilot, lambda: isinstance(app.screen, PlanDialog))
    before = len(git_log(app.root))
    await pilot.press("y")
    await wait_until(pilot, lambda: len(git_log(app.root)) == before + 1)
    await settle(pilot)


async def _select_draft(pilot, app, name_part: str) -> str:  # type: ignore[no-untyped-def]
    screen = app.screen
    assert isinstance(screen, InboxScreen)
    index = next(i for i, d in enumerate(screen.drafts) if name_part in d.rel)
    screen.query_one("#inbox-drafts", DataTable).move_cursor(row=index)
    rel = str(screen.drafts[index].rel)
    await wait_until(pilot, lambda: (d := screen.current()) is not None and d.rel == rel)
    return rel


async def test_promote_via_form(sample_palace: Path, planners: object) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        rel = await _select_draft(pilot, app, "invoice-pdf-shows-customer-vat-id")
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, PromoteForm))
        name = app.screen.query_one("#promote-name", Input)
        name.value = "Invoice PDFs show the customer VAT id"
        await pilot.pause()  # the change handled before the save
        await pilot.press("enter")
        await _confirm(pilot, app)
        assert not (sample_palace / rel).exists()
        assert git_log(sample_palace)[0].startswith("promote")
        assert "Invoice PDFs show the customer VAT id" in (sample_palace / "INDEX.md").read_text()
        # the notification names the commit (sent as soon as git has it, before the index)
        head = git_log(sample_palace, "%H")[0]
        messages = messages_of(app)
        assert any(m.startswith(f"Committed {head[:10]}: promote") for m in messages), messages


async def test_reject_then_undo(sample_palace: Path, planners: object) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        rel = await _select_draft(pilot, app, "render-autoscaling")
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, AskDialog))
        await pilot.press(*"not true", "enter")
        await _confirm(pilot, app)
        assert not (sample_palace / rel).exists()
        assert git_log(sample_palace)[0].startswith("reject")
        await pilot.press("5")
        await settle(pilot)
        await pilot.press("u")
        await _confirm(pilot, app)
        assert (sample_palace / rel).exists()
        assert git_log(sample_palace)[0].startswith("undo")


async def test_cancel_changes_nothing(sample_palace: Path, planners: object) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        before = git_log(sample_palace)
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, AskDialog))
        await pilot.press(*"dup", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PlanDialog))
        await pilot.press("n")
        await settle(pilot)
        assert git_log(sample_palace) == before


async def test_audit_mark_reviewed_and_retire(sample_palace: Path, planners: object) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        screen = app.screen
        first = screen.selected()  # type: ignore[attr-defined]
        assert first is not None
        await pilot.press("r")
        await _confirm(pilot, app)
        assert git_log(sample_palace)[0].startswith("review")
        note = screen.selected()  # type: ignore[attr-defined]
        assert note is not None
        await pilot.press("t")
        await wait_until(pilot, lambda: isinstance(app.screen, AskDialog))
        await pilot.press(*"obsolete", "enter")
        await _confirm(pilot, app)
        assert git_log(sample_palace)[0].startswith("retire")
