"""The detail panes of Audit and History show the whole of what matters at 80×24 (issue 15:
"Audit's reason and since-date visible with a detail pane"; History's files, reason and
undone-by), read off the screen as drawn, not off the widget's text."""

from __future__ import annotations

from typing import Any

import pytest
from palacehelpers import note_text
from uihelpers import git_log, make_app, show_screen, shown_in, wait_until

from curator.model.palace import Palace
from curator.session import Session
from curator.ui import services
from curator.ui.screens.audit import AuditScreen
from curator.ui.screens.history import HistoryScreen

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

REASON = (
    "the file config/feature_flags.yaml it names was moved to config/flags/production.yaml in "
    "the March refactor, and the key billing.new_invoices no longer exists there either"
)


async def test_audit_detail_shows_the_whole_reason_and_since_at_80x24(make_palace: Any) -> None:
    rel = "notes/project/flags.md"
    root = make_palace(
        {
            rel: note_text(
                "Feature flags live in feature_flags.yaml and are read at start",
                extra=f"stale: {{reason: '{REASON}', since: 2026-11-20}}\n",
            )
        }
    )
    app = make_app(root, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await show_screen(pilot, "3", AuditScreen)
        shown = shown_in(app, "#audit-detail")
        assert REASON in shown, shown
        assert "since 2026-11-20" in shown and rel in shown


async def test_history_detail_shows_files_reason_and_undone_by_at_80x24(
    make_palace: Any,
) -> None:
    rel = "notes/project/flags.md"
    root = make_palace({rel: note_text("Flags", extra="reviewed: 2026-01-01\n")})
    reason = "read it again against the repository and it holds in every detail that matters"
    palace = Palace.open(root)
    Session(palace).commit(services.plan_retire(palace, rel, reason))
    action = git_log(root, "%H")[0]
    palace = Palace.open(root)
    Session(palace).commit(services.plan_undo(palace, action))
    undo = git_log(root, "%H")[0]
    app = make_app(root, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await show_screen(pilot, "5", HistoryScreen)
        table = screen.query_one("#history-table")
        table.move_cursor(row=table.get_row_index(action))
        want = [f"undone by {undo[:10]}", rel, "INDEX.md", f"reason: {reason}"]
        await wait_until(pilot, lambda: all(w in shown_in(app, "#history-detail") for w in want))
