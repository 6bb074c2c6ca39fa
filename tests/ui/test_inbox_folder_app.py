"""The app's Inbox reads the drafts folder palace.toml names (`[palace] inbox`, issue 33): a
draft captured there is listed, promoted from the app, and brought back there by undo."""

from __future__ import annotations

import pytest
from palacehelpers import DEFAULT_TOML, MakePalace, RunCli, git, note_text
from uihelpers import apply_plan, make_app, settle, wait_until

from curator.ui.screens.inbox import InboxScreen
from curator.ui.widgets.promote_form import PromoteForm
from curator.writer.capture import capture

pytestmark = [pytest.mark.anyio]


async def test_the_app_promotes_from_the_drafts_folder_palace_toml_names(
    make_palace: MakePalace, run_cli: RunCli
) -> None:
    mine = "---\nname: My own inbox note\n---\nnot a draft\n"
    root = make_palace({"notes/project/a.md": note_text("A"), "inbox/mine.md": mine})
    (root / "palace.toml").write_text(DEFAULT_TOML + 'inbox = "drafts"\n')
    (root / ".gitignore").write_text("/drafts/\n/.curator/\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "drafts live in drafts/")
    draft = capture(root, type="project", name="Rotate keys", body="Monthly.\n", description="r")
    assert draft.path.startswith("drafts/")

    app = make_app(root, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InboxScreen)
        assert [d.rel for d in screen.drafts] == [draft.path]  # inbox/mine.md is no draft
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, PromoteForm))
        await pilot.press("ctrl+s")
        await apply_plan(pilot)
        await wait_until(pilot, lambda: not screen.drafts)
    message = git(root, "log", "-1", "--format=%B").stdout
    assert message.startswith("promote") and f"={draft.path}" in message  # Curator-Took
    assert not (root / draft.path).exists()

    code, _, err = run_cli("--palace", root, "undo", "--yes")
    assert code == 0, err
    assert (root / draft.path).is_file()  # back in drafts/, still out of git
    assert git(root, "status", "--porcelain").stdout == ""
    assert (root / "inbox" / "mine.md").read_text() == mine
