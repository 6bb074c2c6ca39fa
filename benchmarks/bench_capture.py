"""Capture benchmark: `curator capture` as a whole process on the given palace (target 300 ms).

Baseline, measured in the same run: `python -c pass` (the interpreter's own start, the floor).
Also reported: `capture()` in-process (search, secret scan, atomic write), warm.
Each run writes a real draft into the palace's inbox/ (the palace is a scratch copy).
"""

from __future__ import annotations

import sys
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
    return [
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


if __name__ == "__main__":
    main_for(run)
