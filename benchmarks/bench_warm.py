"""Warm search in-process at N notes against its floor, query by query in one process.

    python benchmarks/bench_warm.py --palace P --notes N [--rounds 3] [--hog]

The searcher (`Searcher.search`, limit 10) and the floor (`search_floor.floor_search`: the
table opened once, then per query the embedding and one LanceDB hybrid query) answer each
keyword query in turn, so both see the same load at the same moment (on a shared machine a
run of one after the other compares two different loads). Prints median and p95 of each, the
ratios, the CPU time per query of each (all threads: it does not grow with the machine's
load as wall time does), the process's peak memory and the load; `--hog` adds a busy loop
per core beside it."""

from __future__ import annotations

import contextlib
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from benchutil import Row, cpu_hog, floor_args, floor_row, peak_rss_mb, report  # noqa: E402


def run(palace: Path, notes: int, rounds: int = 3) -> list[Row]:
    from search_floor import floor_search, keyword_queries

    from curator.model.palace import Palace
    from curator.runtime import tune_process
    from curator.search.searcher import Searcher

    tune_process()  # as the CLI, the app and the MCP server do at start
    searcher = Searcher(Palace.open(palace))
    floor = floor_search(palace)
    queries = keyword_queries()
    for q in queries[:5]:  # warm-up: model load, name cache, page cache
        searcher.search(q, limit=10)
        floor(q)
    ours: list[float] = []
    theirs: list[float] = []
    cpu: dict[str, list[float]] = {"ours": [], "floor": []}  # CPU seconds, all threads
    load = os.getloadavg()[0]
    for _ in range(rounds):
        for q in queries:
            start, used = time.perf_counter(), time.process_time()
            searcher.search(q, limit=10)
            ours.append(time.perf_counter() - start)
            cpu["ours"].append(time.process_time() - used)
            start, used = time.perf_counter(), time.process_time()
            floor(q)
            theirs.append(time.perf_counter() - start)
            cpu["floor"].append(time.process_time() - used)
    ours_cpu, floor_cpu = (statistics.median(cpu[k]) * 1000 for k in ("ours", "floor"))
    return [
        floor_row(
            "search",
            f"warm search in-process, interleaved with the floor ({notes:,} notes)",
            ours,
            theirs,
            "embed + one LanceDB hybrid query (search_floor), same process",
            f"CPU per query {ours_cpu:.1f} ms against the floor's {floor_cpu:.1f} ms (the "
            f"load-proof figure); peak {peak_rss_mb():.0f} MB; "
            f"load {load:.1f} then {os.getloadavg()[0]:.1f}",
        )
    ]


def main() -> int:
    args = floor_args(__doc__.splitlines()[0], 3, hog=True)
    with cpu_hog() if args.hog else contextlib.nullcontext():
        rows = run(args.palace, args.notes, args.rounds)
    report(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
