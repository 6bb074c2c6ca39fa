"""The app speaks in its own keys (issue 36): a core message naming a CLI flag the app cannot
pass is worded for the app in one place (`curator.ui.wording`), and the Sync dialog offers no
sync or settle keys when there is no remote, saying how to add one."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Footer, Static
from textual.widgets._footer import FooterKey
from uihelpers import make_app, settle, wait_until

from curator.errors import CuratorError
from curator.ui.screens.sync import SyncDialog
from curator.writer.actions.promote import plan_promote

pytestmark = pytest.mark.anyio

SECRET_DRAFT = "inbox/2026-11-26-rotate-stripe-restricted-key.md"


async def test_messages_name_the_apps_keys_not_cli_flags(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.palace is not None
        # the promote planner's own refusal, through the app's one door for errors
        with pytest.raises(CuratorError) as refused:
            plan_promote(app.palace, SECRET_DRAFT)
        assert "--allow-secret" in str(refused.value)  # what the CLI says
        app.error(refused.value)
        shown = app.message_log.messages[-1].text
        assert "--allow-secret" not in shown and "e edits the draft" in shown

        # no remote: the dialog says how to add one, and offers Close only
        await pilot.press("S")
        await wait_until(pilot, lambda: isinstance(app.screen, SyncDialog))
        dialog = app.screen
        plan = dialog.query_one("#sync-plan", Static)
        await wait_until(pilot, lambda: "Cannot sync" in str(plan.render()))
        said = str(plan.render())
        assert "git remote add origin URL" in said and "--remote" not in said
        await pilot.pause()
        keys = {k.action for k in dialog.query_one(Footer).query(FooterKey)}
        assert not {"sync", "keep('mine')", "keep('theirs')", "merge"} & keys, keys
        assert "cancel" in keys
