"""The rows that keep two of curator's speed tricks, each measured with and without the trick
in the same run (the other tricks have theirs in bench_app.py: `curator/ui/paint.py`'s in
`--screens-only`, `curator/runtime.py`'s in the app's peak row):

- `INDEX_DEFERRED` (curator/writer/actions/common.py): a bulk plan renders INDEX.md once for
  its end state instead of once per draft;
- `DaemonExecutor` (curator/ui/threads.py): quitting the app does not wait for the palace
  load running in a worker thread.

    python benchmarks/bench_tuning.py --palace DIR --notes N   (DIR: gen_palace.py --git)
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextvars import ContextVar
from pathlib import Path

from benchutil import REPO, Row, row

BULK = 50  # drafts rejected in one plan
ROUNDS = 3

# A fresh app that quits as soon as its first palace load has started (in a worker thread,
# cold: an empty load cache). argv[2] "plain" runs the thread workers in asyncio's own default
# executor (which the interpreter joins on exit) instead of the app's DaemonExecutor.
QUIT = """
import asyncio, sys, time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
import curator.ui.app as app_module

if sys.argv[2] == "plain":
    app_module.DaemonExecutor = ThreadPoolExecutor

class Quits(app_module.CuratorApp):
    def on_ready(self):
        self.set_interval(0.002, self._check)

    def _check(self):
        loading = any(w.group == "load" and not w.is_finished for w in self.workers)
        print("quit", time.perf_counter(), "loading" if loading else "loaded", flush=True)
        self.exit()

Quits(Path(sys.argv[1]), watch=False).run(headless=True, size=(80, 24))
"""


def bulk_plans(palace: Path) -> tuple[list[float], list[float]]:
    """Seconds to plan the bulk reject of BULK drafts, with each draft's own INDEX.md render
    deferred (the product) and without (every draft's plan renders it, then it is dropped)."""
    from curator.model.palace import Palace
    from curator.writer.actions import bulk
    from curator.writer.actions.reject import plan_reject

    deferred = bulk.INDEX_DEFERRED
    rels = [d.rel for d in Palace.open(palace).drafts][:BULK]
    with_it: list[float] = []
    without: list[float] = []
    for _ in range(ROUNDS):
        for out, var in ((with_it, deferred), (without, ContextVar("off", default=False))):
            bulk.INDEX_DEFERRED = var  # the plans read common.INDEX_DEFERRED: never set here
            loaded = Palace.open(palace)
            start = time.perf_counter()
            bulk.plan_bulk(loaded, "reject", rels, lambda p, r: plan_reject(p, r, "x"), "x")
            out.append(time.perf_counter() - start)
    bulk.INDEX_DEFERRED = deferred
    return with_it, without


def quit_times(palace: Path) -> tuple[list[float], list[float]]:
    """Seconds from the app's exit() (the palace load under way) to its process ending, with
    the DaemonExecutor and with asyncio's default executor."""
    with_it: list[float] = []
    without: list[float] = []
    for _ in range(ROUNDS):
        for out, mode in ((with_it, "daemon"), (without, "plain")):
            cold = tempfile.mkdtemp(prefix="curator-bench-cache-")  # no load cache: a cold load
            proc = subprocess.run(
                [sys.executable, "-c", QUIT, str(palace), mode],
                cwd=REPO,
                capture_output=True,
                text=True,
                timeout=120,
                env={**os.environ, "CURATOR_CACHE_HOME": cold},
            )
            shutil.rmtree(cold, ignore_errors=True)
            ended = time.perf_counter()
            if proc.returncode != 0:
                raise RuntimeError(f"app exited {proc.returncode}: {proc.stderr[-800:]}")
            asked, state = proc.stdout.split("quit", 1)[1].split()[:2]
            if state != "loading":
                raise RuntimeError("the palace had loaded before the app could quit")
            out.append(ended - float(asked))
    return with_it, without


def run(palace: Path, notes: int) -> list[Row]:
    scratch = Path(tempfile.mkdtemp(prefix="curator-bench-tuning-")) / "palace"
    shutil.copytree(palace, scratch, symlinks=True, ignore=shutil.ignore_patterns(".curator"))
    try:
        planned, rendered = bulk_plans(scratch)
        quick, waited = quit_times(scratch)
    finally:
        shutil.rmtree(scratch.parent, ignore_errors=True)
    return [
        row(
            "tuning",
            f"bulk plan of {BULK} draft rejects, INDEX.md rendered once (INDEX_DEFERRED)",
            planned,
            baseline="the same, each draft's plan rendering INDEX.md",
            baseline_ms=statistics.median(rendered) * 1000,
            note=f"{notes} notes, in-process, a fresh palace per plan",
        ),
        row(
            "tuning",
            "quit while the palace loads: exit() to process end (DaemonExecutor)",
            quick,
            baseline="the same, asyncio's default executor",
            baseline_ms=statistics.median(waited) * 1000,
            note=f"{notes} notes, an empty load cache (a cold load), a fresh process each",
        ),
    ]


if __name__ == "__main__":
    from benchutil import main_for

    main_for(run)
