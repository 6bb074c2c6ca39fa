"""The plan dialog shows a bounded diff: a plan that rewrites INDEX.md at 10k notes has a
60k-line diff, which the dialog cuts per file (every file's header still shown)."""

from __future__ import annotations

from curator.ui.widgets.plan_dialog import diff_text


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
    assert len(lines) == 100 + 1 + 6
    assert "… 59,904 more lines of this file's diff not shown" in lines
    assert "diff --git a/notes/a.md b/notes/a.md" in lines
    assert lines[-1] == "+line 1"


def test_the_whole_diff_is_cut_too() -> None:
    diff = "".join(_diff(f"notes/n{i}.md", 10) for i in range(100))
    lines = diff_text(diff, file_lines=100, total=50).plain.splitlines()
    assert len(lines) == 51
    assert lines[-1] == f"… {100 * 14 - 50:,} more diff lines not shown"
