"""Capture benchmark: `curator capture` as a whole process on the given palace (target 300 ms).

Baseline, measured in the same run: `python -c pass` (the interpreter's own start, the floor).
Also reported: `capture()` in-process (search, secret scan, atomic write), warm; and a body
with a time word ("yesterday", resolved into the draft's `dates` with dateparser) beside the same
body without one, each run in turn with the floor of a bare `git commit` in a scratch repository.
Each run writes a real draft into the palace's inbox/ (the palace is a scratch copy).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchutil import Row, main_for, process_times, row, timed

RUNS = 10
BODY = (
    b"The billing worker gives up after five retries within a minute; the retry budget is\n"
    b"configured in config/retry.yaml and shared with the webhook handler.\n"
)
WHEN = b"We raised it yesterday, two weeks after the outage of 8 May, 2023.\n"
ARGS = [
    "capture",
    "--type",
    "project",
    "--name",
    "Retry budget of the billing worker is five per minute",
    "--description",
    "The billing worker stops after five retries a minute",
    "--source",
    "session=bench,run=1",
    "--tags",
    "billing,retries",
]


def _cli_argv(palace: Path) -> list[str]:
    return [sys.executable, "-m", "curator", "--palace", str(palace), *ARGS]


def run(palace: Path, notes: int) -> list[Row]:
    from curator.writer.capture import capture

    argv = _cli_argv(palace)
    start = time.perf_counter()
    process_times(argv, 1, stdin=BODY)  # warm-up: builds the name catalog if it is cold
    warmup_ms = (time.perf_counter() - start) * 1000
    baseline = process_times([sys.executable, "-c", "pass"], RUNS)
    whole = process_times(argv, RUNS, stdin=BODY)
    baseline_ms = sorted(baseline)[len(baseline) // 2] * 1000
    via = "python -m " + argv[2]
    note = (
        f"{via}; one warm-up run first ({warmup_ms:.0f} ms: builds .curator/cache/similar.marshal"
        " when cold); every run writes a draft"
    )

    def in_process() -> None:
        capture(
            palace,
            type="project",
            name="Retry budget of the billing worker is five per minute",
            body=BODY.decode(),
            description="The billing worker stops after five retries a minute",
            source="session=bench,run=1",
            tags=["billing", "retries"],
        )

    inproc = timed(in_process, RUNS)
    plain, when, floor = time_word_rows(argv)
    return [
        *(
            row(
                "capture",
                f"capture whole process, {label} ({notes:,} notes)",
                times,
                baseline="git commit (bare)",
                baseline_ms=sorted(floor)[len(floor) // 2] * 1000,
                note=f"{via}; runs interleaved with the floor's; {what}",
            )
            for label, times, what in (
                ("no time word", plain, "the body names no time: dateparser is never imported"),
                ("a time word", when, "the body says 'yesterday' and a date: dates resolved"),
            )
        ),
        row(
            "capture",
            f"capture whole process ({notes:,} notes)",
            whole,
            target_ms=300,
            baseline="python -c pass",
            baseline_ms=baseline_ms,
            note=note,
        ),
        row(
            "capture",
            f"capture() in-process, warm ({notes:,} notes)",
            inproc,
            note="search + secret scan + atomic write (fsync)",
        ),
    ]


def time_word_rows(argv: list[str]) -> tuple[list[float], list[float], list[float]]:
    """Whole-process captures of the body without and with a time word, and a bare `git
    commit` (the floor: what recording any change costs), one of each per round."""
    plain: list[float] = []
    when: list[float] = []
    floor: list[float] = []
    with tempfile.TemporaryDirectory(prefix="curator-bench-git-") as repo:
        subprocess.run(["git", "init", "-q", repo], check=True)
        commit = [
            "git", "-C", repo, "-c", "user.name=bench", "-c", "user.email=bench@example.invalid",
            "commit", "--allow-empty", "-q", "-m", "bench",
        ]  # fmt: skip
        for _ in range(RUNS):
            floor += process_times(commit, 1)
            plain += process_times(argv, 1, stdin=BODY)
            when += process_times(argv, 1, stdin=BODY + WHEN)
    return plain, when, floor


if __name__ == "__main__":
    main_for(run)
