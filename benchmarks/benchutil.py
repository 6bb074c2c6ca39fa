"""Shared helpers for benchmark modules: timing, percentiles, rows, whole-process runs.

Each `bench_<area>.py` defines `run(palace: Path, notes: int) -> list[Row]` and is run by
`run.py` in its own process, so the peak memory reported for an area is that process's own.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@dataclass
class Row:
    area: str
    metric: str
    median_ms: float
    p95_ms: float
    runs: int
    target_ms: float | None = None
    baseline: str = ""  # what the figure is compared with, measured in the same run
    baseline_ms: float | None = None
    note: str = ""
    #: a baseline not measured here (a peer's own figure): where it was published
    baseline_source: str = ""
    #: how the ratio reads: "x" (median / baseline, lower is better) or "faster" (baseline /
    #: median, e.g. files per second against a peer's); "" for no ratio
    ratio: str = "x"

    @property
    def ok(self) -> bool | None:
        return None if self.target_ms is None else self.median_ms <= self.target_ms


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def timed(
    fn: Callable[[], object], repeat: int, setup: Callable[[], object] | None = None
) -> list[float]:
    """Seconds per call of `fn`, `repeat` times; `setup` runs untimed before each call."""
    times = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def row(area: str, metric: str, seconds: list[float], **extra: object) -> Row:
    return Row(
        area=area,
        metric=metric,
        median_ms=statistics.median(seconds) * 1000,
        p95_ms=percentile(seconds, 0.95) * 1000,
        runs=len(seconds),
        **extra,  # type: ignore[arg-type]
    )


def process_times(
    argv: list[str],
    repeat: int,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    stdin: bytes | None = None,
) -> list[float]:
    """Wall-clock seconds of a whole process, `repeat` times (it must exit 0)."""
    out = []
    full_env = {**os.environ, **(env or {})}
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(argv, cwd=cwd, env=full_env, input=stdin, capture_output=True)
        out.append(time.perf_counter() - start)
        if proc.returncode != 0:
            raise RuntimeError(f"{argv} exited {proc.returncode}: {proc.stderr.decode()[-500:]}")
    return out


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def emit(rows: list[Row]) -> None:
    """Print rows as JSON lines on stdout (read by run.py), plus this process's peak memory."""
    for r in rows:
        print(json.dumps({"row": asdict(r)}))
    print(json.dumps({"peak_rss_mb": peak_rss_mb()}))


def main_for(run: Callable[[Path, int], list[Row]]) -> None:
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--palace", type=Path, required=True)
    parser.add_argument("--notes", type=int, required=True)
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    emit(run(args.palace, args.notes))


def floor_args(description: str, rounds: int, *, hog: bool = False) -> argparse.Namespace:
    """The arguments of a row against its floor: --palace, --notes, --rounds (and --hog)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--palace", type=Path, required=True)
    parser.add_argument("--notes", type=int, required=True)
    parser.add_argument("--rounds", type=int, default=rounds)
    if hog:
        parser.add_argument("--hog", action="store_true", help="a busy loop per core beside it")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    return args


def floor_row(
    area: str, metric: str, ours: list[float], floor: list[float], baseline: str, note: str
) -> Row:
    """A row of `ours` (seconds) against `floor` measured in the same run: median, p95, the
    ratios of both, then `note`."""
    med, f_med = statistics.median(ours), statistics.median(floor)
    p95, f_p95 = percentile(ours, 0.95), percentile(floor, 0.95)
    return Row(
        area=area,
        metric=metric,
        median_ms=med * 1000,
        p95_ms=p95 * 1000,
        runs=len(ours),
        baseline=baseline,
        baseline_ms=f_med * 1000,
        note=f"{med / f_med:.2f}x the floor's median, {p95 / f_p95:.2f}x its p95 "
        f"({f_p95 * 1000:.0f} ms); {note}",
    )


def report(rows: list[Row]) -> None:
    """Each row against its floor on stderr, for a person, then `emit`."""
    for r in rows:
        print(
            f"{r.metric}: median {r.median_ms:.1f} ms, p95 {r.p95_ms:.1f} ms | floor median "
            f"{r.baseline_ms or 0:.1f} ms | {r.note}",
            file=sys.stderr,
        )
    emit(rows)


@contextlib.contextmanager
def cpu_hog(processes: int | None = None, *, niceness: int = 0) -> Iterator[int]:
    """A loaded machine: `processes` busy loops (one per core by default) beside the
    measurement, at `niceness`, ended by their ids afterwards. Yields how many run."""
    count = processes or os.cpu_count() or 1
    loop = [sys.executable, "-c", "while True: pass"]
    if niceness:
        loop = ["nice", "-n", str(niceness), *loop]
    hogs = [subprocess.Popen(loop, stdin=subprocess.DEVNULL) for _ in range(count)]
    try:
        yield count
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
