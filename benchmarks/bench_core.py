"""Palace core at N notes: cold load, no-change reload (cache), check, index."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from benchutil import Row, main_for, process_times, row, timed


def _read_all(root: Path) -> int:
    total = 0
    for folder, _, files in os.walk(root / "notes"):
        for name in files:
            total += len((Path(folder) / name).read_bytes())
    return total


def run(palace: Path, notes: int) -> list[Row]:
    from curator.model.check import run_checks
    from curator.model.index_md import read_index, render_index
    from curator.model.cache import cache_path
    from curator.model.palace import Palace

    cache = cache_path(palace).parent
    rows: list[Row] = []
    raw = timed(lambda: _read_all(palace), 5)
    cold = timed(
        lambda: Palace.open(palace), 5, setup=lambda: shutil.rmtree(cache, ignore_errors=True)
    )
    rows.append(
        row(
            "core",
            "load palace, cold (no cache)",
            cold,
            target_ms=1000,
            baseline="read every note's bytes",
            baseline_ms=sorted(raw)[len(raw) // 2] * 1000,
        )
    )
    Palace.open(palace)  # warm the cache
    warm = timed(lambda: Palace.open(palace), 9)
    med = sorted(warm)[len(warm) // 2]
    rows.append(
        row(
            "core",
            "reload, nothing changed (cache)",
            warm,
            target_ms=300,
            baseline="basic-memory re-sync ~930 files/s",
            baseline_ms=notes / 930 * 1000,
            note=f"{notes / med:,.0f} files/s = {notes / med / 930:.0f}x basic-memory",
        )
    )
    loaded = Palace.open(palace)
    rows.append(
        row(
            "core",
            "check, in-process (loaded palace)",
            timed(lambda: run_checks(loaded), 5),
            target_ms=2000,
        )
    )
    existing = read_index(loaded)
    rows.append(
        row(
            "core",
            "render INDEX.md, in-process",
            timed(lambda: render_index(loaded, existing), 5),
            target_ms=2000,
        )
    )
    cli = [sys.executable, "-m", "curator", "--palace", str(palace)]
    # check exits 1 on this palace: the generator plants broken links on purpose
    check_proc = _times_any_exit([*cli, "check", "--quiet"], 5)
    floor = process_times([sys.executable, "-c", "pass"], 5)
    rows.append(
        row(
            "core",
            "curator check, whole process",
            check_proc,
            target_ms=2000,
            baseline="python -c pass",
            baseline_ms=sorted(floor)[2] * 1000,
        )
    )
    rows.append(
        row(
            "core",
            "curator index --check, whole process",
            _times_any_exit([*cli, "index", "--check"], 5),
            target_ms=2000,
        )
    )
    return rows


def _times_any_exit(argv: list[str], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(argv, capture_output=True)
        out.append(time.perf_counter() - start)
    return out


if __name__ == "__main__":
    main_for(run)
