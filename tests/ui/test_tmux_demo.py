"""benchmarks/tmux_demo.py's screen reading and decision table, on the shipped demo inbox
(the tmux run itself is a benchmark: `bench_tmux_review.py --demo`)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

from tmux_demo import DEMO_DECISIONS, draft_labels, top_draft, which  # noqa: E402

# the inbox at 80x24 as tmux captured it from the demo palace
SCREEN = """\
[1 Inbox] 2 Rooms  3 Audit  4 Search  5 History  6 Tasks
╭─ Inbox (8) ──────────────────────────────────────────────────────────────────╮
│    Age  Source            Draft                                              │
│    6d   session …29-33aa  Always run the test suite before reporting a task… │
│    7d   session …28-f00…  Flaky test output pasted from a terminal session   │
│    ?    –                 2026-11-27-render-autoscaling-notes                │
╰──────────────────────────────────────────────────────────────────────────────╯
"""


def test_every_demo_draft_has_a_decision() -> None:
    labels = draft_labels(REPO / "sample_palace" / "inbox")
    assert set(labels) == set(DEMO_DECISIONS)
    # the broken header's draft is listed by its stem; the others by their names
    assert labels["2026-11-27-render-autoscaling-notes"].startswith("Render autoscaling")


def test_the_top_row_names_one_draft() -> None:
    labels = draft_labels(REPO / "sample_palace" / "inbox")
    shown = top_draft(SCREEN)
    assert shown == "Always run the test suite before reporting a task…"
    assert which(shown, labels) == "2026-11-29-always-run-tests-before-finishing"
    assert which("2026-11-27-render-autoscaling-notes", labels).endswith("render-autoscaling-notes")


def test_an_empty_or_ambiguous_list_is_no_guess() -> None:
    empty = "│    Age  Source            Draft      │\n╰──────────────╯\n"
    assert top_draft(empty) is None
    assert top_draft("no list here") is None
    with pytest.raises(AssertionError):
        which("Stripe…", draft_labels(REPO / "sample_palace" / "inbox"))
