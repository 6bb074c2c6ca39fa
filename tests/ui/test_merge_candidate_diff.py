"""The candidate diff beside the draft before a merge: word-level, the draft banner left out,
and drawn at once whatever the text (a pasted log, a run of one word, a megabyte)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Indel
from rich.text import Text
from textual.widgets import DataTable, Static
from uihelpers import make_app, settle, wait_until

from curator.model.note import DRAFT_BANNER
from curator.model.text import clean
from curator.ui.screens.inbox import InboxScreen
from curator.ui.widgets.candidate_diff import LEFT_STYLE, RIGHT_STYLE, SHOWN, word_diff

WORD = re.compile(r"\w+|[^\w\s]")


def split(text: Text, style: str) -> tuple[list[str], list[str]]:
    """(the words highlighted in `style`, the words that are not), in order."""
    marked = set()
    for span in text.spans:
        if span.style == style:
            marked.update(range(span.start, span.end))
    hit, kept = [], []
    for word in WORD.finditer(text.plain):
        (hit if word.start() in marked else kept).append(word.group())
    return hit, kept


PIECES = [*"ab c.\n\t", "\x1b[31m", "é", "[b]", "word"]
texts = st.lists(st.sampled_from(PIECES), max_size=60).map("".join)


@settings(deadline=None)
@given(texts, texts)
def test_word_diff_marks_exactly_the_words_one_side_lacks(left: str, right: str) -> None:
    """Both texts shown whole (escapes cleaned); the unmarked words are a common subsequence
    of both, and a longest one: the marked words are as few as can be."""
    out_left, out_right = word_diff(left, right)
    assert out_left.plain == clean(left) and out_right.plain == clean(right)
    gone, kept_left = split(out_left, LEFT_STYLE)
    added, kept_right = split(out_right, RIGHT_STYLE)
    assert kept_left == kept_right
    words_left = WORD.findall(clean(left))
    words_right = WORD.findall(clean(right))
    assert len(gone) + len(added) == Indel.distance(words_left, words_right)
    same_left, _ = word_diff(left, left)
    assert not [s for s in same_left.spans if s.style == LEFT_STYLE]


def _log(lines: int, worker: int, shift: int) -> str:
    return "\n".join(
        f"2026-11-30T12:{i % 60:02d}:00Z INFO worker-{i % worker} processed job {i + shift}"
        for i in range(lines)
    )


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("x " * 5000, "x  " * 5000),  # every word equal, every space not
        ("a b " * 250_000, "b a " * 250_000),  # a megabyte a side
        (_log(900, 7, 0), _log(900, 5, 3)),
    ],
    ids=["one-word-run", "megabyte", "pasted-log"],
)
def test_word_diff_is_quick_on_any_text(left: str, right: str) -> None:
    """Quick because only the first SHOWN characters of a side are diffed: that size bound is
    what is checked (the time it takes is the benchmarks' to measure)."""
    out_left, out_right = word_diff(left, right)
    for text, out in ((left, out_left), (right, out_right)):
        full = clean(text)
        head = out.plain.split("\n… ", 1)[0]
        assert full.startswith(head) and len(head) <= SHOWN
        if len(full) > SHOWN:  # what is left out is said, in characters
            assert out.plain.endswith(f"… {len(full) - len(head):,} more characters not shown")
        else:
            assert out.plain == full


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_pasted_log_draft_is_diffed_at_once(sample_palace: Path) -> None:
    """A draft holding a long pasted log beside the note it repeats: the diff is drawn as soon
    as the candidate is listed and the cursor moves on at once."""
    note = sample_palace / "notes" / "reference" / "worker-job-log.md"
    note.write_text(
        "---\nname: Worker job log of the night run\ndescription: What the workers logged.\n"
        f"type: reference\n---\n{_log(300, 7, 0)}\n",
        encoding="utf-8",
    )
    draft = sample_palace / "inbox" / "2026-11-30-worker-job-log-again.md"
    draft.write_text(
        "---\nname: Worker job log, seen again\ndescription: The workers logged this.\n"
        "type: reference\nstatus: draft\ncreated: 2026-11-30T10:00:00Z\n"
        f"source: {{session: s1}}\n---\n{DRAFT_BANNER}\n\n{_log(300, 5, 3)}\n",
        encoding="utf-8",
    )
    subprocess.run(["git", "add", "-A"], cwd=sample_palace, check=True)
    subprocess.run(["git", "commit", "-qm", "log"], cwd=sample_palace, check=True)
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InboxScreen)
        rel = "inbox/2026-11-30-worker-job-log-again.md"
        table = screen.query_one("#inbox-drafts", DataTable)
        row = screen.listed.index(rel)
        table.move_cursor(row=row)
        await wait_until(pilot, lambda: screen.selected == rel and screen.chosen() is not None)
        assert screen.chosen().path == "notes/reference/worker-job-log.md"  # type: ignore[union-attr]
        left = screen.query_one("#diff-left", Static)
        await wait_until(pilot, lambda: bool(left.render().spans))  # type: ignore[union-attr]
        assert DRAFT_BANNER not in left.render().plain  # type: ignore[union-attr]
        await pilot.press("down", "up", "down")
        assert table.cursor_row == min(row + 1, len(screen.listed) - 1)
