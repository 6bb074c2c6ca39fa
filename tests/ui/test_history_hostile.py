"""History shows what git holds, and git holds what anyone committed: a hand-made commit with
curator's trailers and hostile text in its subject, author, reason, note and restore paths is
shown literally (no escape sequence reaches the terminal, markup stays text), clicked all over
runs no action, and Enter and u on it answer with a message, not a crash."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from palacehelpers import note_text
from test_safety import MARKUP, ScreenSpy, assert_no_raw_escapes, click_all_over
from uihelpers import messages_of, settle, show_screen, shown_in, wait_until

from curator.ui.screens.history import HistoryScreen

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

EVIL = "\x1b]0;pwned\x07\x1b[31m\x9b2J\u202e"


def hostile_commit(root: Path) -> str:
    message = (
        f"reject: {EVIL}{MARKUP}\n\n"
        f"Why {EVIL}\n\n"
        "Curator-Action: reject\n"
        f"Curator-Note: inbox/{EVIL}x.md\n"
        f"Curator-Reason: {MARKUP} {EVIL}red\n"
        f"Curator-Restore: inbox/a{EVIL}.md=.curator/rejected/[bold]a.md\n"
    )
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": f"Mallory {EVIL}[@click=app.quit]x[/]",
        "GIT_AUTHOR_EMAIL": "m@example.invalid",
    }
    subprocess.run(
        ["git", "commit", "-q", "--allow-empty", "--no-verify", "-F", "-"],
        input=message.encode("utf-8"),
        cwd=root,
        env=env,
        check=True,
    )
    out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True)
    return out.stdout.strip()


async def test_a_hostile_commit_in_history_is_shown_literally(make_palace: Any) -> None:
    root = make_palace({"notes/project/a.md": note_text("A")})
    sha = hostile_commit(root)
    app = ScreenSpy(root)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await show_screen(pilot, "5", HistoryScreen)
        assert [e.sha for e in screen.entries] == [sha]
        await wait_until(pilot, lambda: "files: …" not in shown_in(app, "#history-detail"))
        shown = shown_in(app, "#history-detail")
        assert "[@click=app.quit]x[/]" in shown and "[BOLD]loud[/BOLD]" in shown
        assert "[bold]a.md" in shown  # the restore path, as text
        assert_no_raw_escapes(app)
        before = list(app.actions)
        for selector in ("#history-table", "#history-detail"):
            await click_all_over(pilot, screen.query_one(selector), rows=6)
        await settle(pilot)  # what the clicks started has run
        assert not [a for a in app.actions[len(before) :] if "quit" in a or "click" in a]
        assert not app.exits and app.is_running
        screen.query_one("#history-table").focus()
        await pilot.press("enter")  # its note is not in the palace: a message
        await pilot.press("u")  # not undoable as it stands: the writer's message
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, HistoryScreen)
        said = messages_of(app)
        assert any("Nothing to open" in m for m in said), said
        assert all(c not in m for m in said for c in ("\x1b", "\x9b", "\x07", "\u202e"))
        assert_no_raw_escapes(app)
