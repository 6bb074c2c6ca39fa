"""The plan dialog shows a bounded diff: a plan that rewrites INDEX.md at 10k notes has a
60k-line diff, which the dialog cuts per file (every file's name still shown). Each file's git
header is one line, so at 80×24 the diff starts with the content; a reject shows its reason
and its prompt names the draft."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Label, Static
from uihelpers import make_app, settle, shown_in, wait_until

from curator.ui.widgets.dialogs import AskDialog
from curator.ui.widgets.plan_dialog import PlanDialog, diff_text
from curator.writer.diff import file_diff


def _diff(path: str, lines: int) -> str:
    body = "".join(f"+line {i}\n" for i in range(lines))
    head = f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
    return f"{head}@@ -0,0 +1,{lines} @@\n{body}"


def test_small_diffs_are_shown_whole_and_coloured() -> None:
    text = diff_text(_diff("notes/a.md", 3))
    assert text.plain.splitlines()[-1] == "+line 2"
    assert "more" not in text.plain
    assert any(span.style == "green" for span in text.spans)


def test_each_file_is_cut_and_every_header_kept() -> None:
    diff = _diff("INDEX.md", 60_000) + _diff("notes/a.md", 2)
    text = diff_text(diff, file_lines=100)
    lines = text.plain.splitlines()
    assert len(lines) == 1 + 100 + 1 + 4
    assert "… 59,901 more lines of this file's diff not shown" in lines
    assert "── notes/a.md" in lines
    assert lines[-1] == "+line 1"


def test_the_whole_diff_is_cut_too() -> None:
    diff = "".join(_diff(f"notes/n{i}.md", 10) for i in range(100))
    lines = diff_text(diff, file_lines=100, total=50).plain.splitlines()
    assert len(lines) == 51
    assert lines[-1] == f"… {100 * 14 - 60:,} more diff lines not shown"


def test_a_files_git_header_is_one_line() -> None:
    renamed = file_diff(
        "inbox/a.md", "notes/a.md", b"name: A\nhello\n", b"name: A\nhi\n", rename=True
    )
    added = file_diff("notes/b.md", "notes/b.md", None, b"b\n")
    gone = file_diff("notes/c.md", "notes/c.md", b"c\n", None)
    lines = diff_text(renamed + added + gone).plain.splitlines()
    assert lines[0] == "── inbox/a.md → notes/a.md"
    assert lines[1].startswith("@@") and lines[2:5] == [" name: A", "-hello", "+hi"]
    assert "── notes/b.md (new file)" in lines and "── notes/c.md (deleted)" in lines
    assert not [ln for ln in lines if ln.startswith(("rename ", "diff --git", "+++", "---"))]


@pytest.mark.slow
@pytest.mark.anyio
async def test_reject_names_the_draft_and_its_plan_shows_the_reason(sample_palace: Path) -> None:
    app: Any = make_app(sample_palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        draft = app.palace.by_rel[app.screen.current().rel]
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, AskDialog))
        prompt = str(app.screen.query_one(Label).render())
        assert prompt.startswith("Reject this draft: why? (") and draft.name[:20] in prompt
        await pilot.press(*"[b]dup[/b] of the deploy note", "enter")
        await wait_until(pilot, lambda: getattr(app.screen, "plan", None) is not None)
        assert isinstance(app.screen, PlanDialog)
        why = app.screen.query_one("#plan-why", Static)
        await wait_until(
            pilot, lambda: "[b]dup[/b] of the deploy note" in shown_in(app, "#plan-why")
        )
        assert why.region.y < app.screen.query_one("#plan-diff").region.y
        await wait_until(pilot, lambda: "→ .curator/rejected/" in shown_in(app, "#plan-diff"))
