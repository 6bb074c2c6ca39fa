"""The search engine, and its code at another commit, against the libraries alone, in one run.

    python benchmarks/bench_engine.py --palace P --notes N [--tree ../base] [--rounds 3] [--hog]

For each tree (this checkout, then each `--tree`: another checkout of curator, e.g. made with
`git worktree add ../base <commit>`) and for the floor (the libraries alone: open the table,
embed the query, one LanceDB hybrid query), on the same palace and index:

- warm p95: one process (tuned as curator's own processes are, `curator.runtime`, and its
  palace settled as the warm servers settle theirs once quiet, `settle_palace`: the notes'
  text let go, the searcher's reading of each note prepared, what is loaded frozen out of
  the collector's scans) opens the palace and its
  searcher and the floor's table, warms both up alike, then runs
  the keyword queries `--rounds` times, as-you-type prefixes of them (short queries: names
  matched as you type) and questions (natural-language queries), each query by curator and
  by the floor in turn (which goes first alternating), so both see the same load, caches
  and allocator;
- warm peak memory: the same queries in a process of curator's alone and one of the floor's
  alone (the peak of one process holding both would be neither's);
- cold first query: a fresh `curator search "retry queue"` process (the floor: a fresh process
  importing LanceDB, opening the table, embedding the query and running one hybrid query),
  wall time from start to exit and its peak memory, three times.

Each tree's child processes put that tree first on sys.path, so its own `curator` is imported;
the cold runs are interleaved (tree by tree, three rounds), so they share the machine's load.
Run it where the palace's index is built (`curator reindex`), or the first child builds it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from benchutil import Row, cpu_hog, percentile  # noqa: E402

COLD_QUERY = "retry queue"

# Peak memory of a child is its own VmHWM: ru_maxrss would carry the parent's across exec.
_PEAK = """
def _peak_mb():
    from pathlib import Path
    status = Path("/proc/self/status").read_text()
    hwm = next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))
    return int(hwm) / 1024
"""

_WARM_CHILD = (
    _PEAK
    + """
import json, sys, time
from pathlib import Path
tree, bench, root, sides = sys.argv[1], sys.argv[2], Path(sys.argv[3]), sys.argv[4].split(",")
sys.path[:0] = [tree, bench]
groups = json.loads(sys.argv[5])
if tree != "floor":
    from curator.runtime import tune_process
    tune_process()  # as the CLI, the app and the MCP server do at start
searches = {}
if "curator" in sides:
    from curator.model.palace import Palace
    from curator.search.searcher import Searcher
    searcher = Searcher(Palace.open(root))
    searches["curator"] = lambda q: searcher.search(q, limit=10)
if "floor" in sides:
    import search_floor
    searches["floor"] = search_floor.floor_search(root)
if tree != "floor":
    try:  # the palace settled as the warm servers settle theirs once quiet
        from curator.agents.settling import settle_palace
    except ImportError:  # a tree from before they let go of their notes' text
        from curator.runtime import freeze_loaded
        freeze_loaded()  # what is loaded now leaves the collector's scans
    else:
        import inspect
        if "searcher" in inspect.signature(settle_palace).parameters:
            settle_palace(searcher.palace, searcher)  # and the searcher prepared, as they do
        else:  # a tree from before the searcher prepared its notes while quiet
            settle_palace(searcher.palace)
order = [searches[s] for s in sides]
times = {s: {} for s in sides}
for name, (queries, rounds) in groups.items():
    for q in queries[:5]:
        for search in order:
            search(q)
    for s in sides:
        times[s][name] = []
    turn = 0
    for _ in range(rounds):
        for q in queries:
            turn += 1
            for s in sides[turn % 2 :] + sides[: turn % 2]:  # who goes first alternates
                start = time.perf_counter()
                searches[s](q)
                times[s][name].append(time.perf_counter() - start)
print(json.dumps({"times": times, "peak_mb": _peak_mb()}))
"""
)

_COLD_CURATOR = (
    _PEAK
    + """
import json, os, runpy, sys
sys.argv = ["curator", *sys.argv[1:]]
try:
    runpy.run_module("curator", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
os.write(2, ("\\nBENCH " + json.dumps({"peak_mb": _peak_mb()}) + "\\n").encode())
"""
)

_COLD_FLOOR = (
    _PEAK
    + """
import json, os, sys
from pathlib import Path
sys.path[:0] = [sys.argv[1], sys.argv[1] + "/benchmarks"]
import search_floor
search_floor.floor_search(Path(sys.argv[2]))(sys.argv[3])
os.write(2, ("\\nBENCH " + json.dumps({"peak_mb": _peak_mb()}) + "\\n").encode())
"""
)


def query_groups(rounds: int) -> dict[str, tuple[list[str], int]]:
    """The warm queries: keywords from the generator's vocabulary, their as-you-type prefixes
    and questions about them, each with how many times it is run."""
    from search_floor import keyword_queries

    keywords = keyword_queries()
    prefixes: list[str] = []
    for q in keywords[:12]:
        for k in (3, 5, 8, len(q)):
            prefix = q[:k].strip()
            if len(prefix) >= 3 and prefix not in prefixes:
                prefixes.append(prefix)
    questions = [f"what do we know about the {q}?" for q in keywords[:20]]
    return {"keywords": (keywords, rounds), "prefixes": (prefixes, 1), "questions": (questions, 1)}


def _env(tree: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(tree), env.get("PYTHONPATH", "")]).rstrip(":")
    return env


def warm(
    tree: Path | None, palace: Path, groups: dict[str, tuple[list[str], int]], sides: str
) -> dict:
    """Per side (`curator`, `floor`, comma-separated: those run in the one process, in turn)
    and group, the seconds of each warm query; and the process's peak MB. The floor alone
    runs with no tree (curator's code is imported only for its table's location)."""
    argv = [sys.executable, "-c", _WARM_CHILD, str(tree or "floor"), str(HERE), str(palace)]
    proc = subprocess.run(
        [*argv, sides, json.dumps(groups)], capture_output=True, text=True, env=_env(tree)
    )
    if proc.returncode != 0:
        raise RuntimeError(f"warm child ({tree}) exited {proc.returncode}: {proc.stderr[-800:]}")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def cold(tree: Path | None, palace: Path) -> tuple[float, float]:
    """Wall seconds and peak MB of one fresh process answering its first query: `curator
    search` from `tree`, or the floor (tree None)."""
    if tree is None:
        argv = [sys.executable, "-c", _COLD_FLOOR, str(REPO), str(palace), COLD_QUERY]
    else:
        argv = [sys.executable, "-c", _COLD_CURATOR, "--palace", str(palace), "search"]
        argv.append(COLD_QUERY)
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=_env(tree))
    seconds = time.perf_counter() - start
    marks = [line for line in proc.stderr.splitlines() if line.startswith("BENCH ")]
    if proc.returncode != 0 or not marks:
        raise RuntimeError(f"cold child ({tree}) exited {proc.returncode}: {proc.stderr[-800:]}")
    return seconds, float(json.loads(marks[-1][6:])["peak_mb"])


def engine_rows(palace: Path, trees: list[Path], rounds: int = 3, repeat: int = 3) -> list[Row]:
    """Warm p95 per query group, cold first query and peak memory of each tree's search, each
    against the floor measured in the same run."""
    groups = query_groups(rounds)
    runs: list[Path | None] = [*trees, None]
    timed = {t: warm(t, palace, groups, "curator,floor") for t in trees}
    peaks = {t: warm(t, palace, groups, "floor" if t is None else "curator") for t in runs}
    colds: dict[Path | None, list[tuple[float, float]]] = {t: [] for t in runs}
    for _ in range(repeat):
        for t in runs:
            colds[t].append(cold(t, palace))
    floor_peak_warm = peaks[None]["peak_mb"]
    floor_cold = sorted(s for s, _ in colds[None])[repeat // 2] * 1000
    floor_peak = sorted(p for _, p in colds[None])[repeat // 2]
    rows: list[Row] = []
    for t in trees:
        label = _label(t)
        for g in groups:
            times = timed[t]["times"]["curator"][g]
            p95 = percentile(times, 0.95) * 1000
            floor_p95 = percentile(timed[t]["times"]["floor"][g], 0.95) * 1000
            rows.append(
                Row(
                    area="search",
                    metric=f"engine {label}: warm p95, {g} (median col = p95)",
                    median_ms=p95,
                    p95_ms=p95,
                    runs=len(times),
                    baseline="libraries alone: embed + one hybrid query",
                    baseline_ms=floor_p95,
                    note=f"{p95 / floor_p95:.2f}x the floor; median "
                    f"{sorted(times)[len(times) // 2] * 1000:.1f} ms; process peak "
                    f"{peaks[t]['peak_mb']:,.0f} MB (floor's {floor_peak_warm:,.0f} MB)",
                )
            )
        seconds = [s for s, _ in colds[t]]
        first = sorted(seconds)[repeat // 2] * 1000
        peak = sorted(p for _, p in colds[t])[repeat // 2]
        rows.append(
            Row(
                area="search",
                metric=f"engine {label}: cold `curator search`, first query",
                median_ms=first,
                p95_ms=max(seconds) * 1000,
                runs=repeat,
                baseline="libraries alone: import, open the table, embed, one hybrid query",
                baseline_ms=floor_cold,
                note=f"{first / floor_cold:.2f}x the floor; peak {peak:,.0f} MB against the "
                f"floor's {floor_peak:,.0f} MB (palace load and index check included)",
            )
        )
    return rows


def _label(tree: Path) -> str:
    """The tree's folder and commit, e.g. `engine@1a2b3c4` (`+` when it has changes)."""

    def git(*args: str) -> str:
        proc = subprocess.run(["git", "-C", str(tree), *args], capture_output=True, text=True)
        return proc.stdout.strip()

    dirty = "+" if git("status", "--porcelain", "--untracked-files=no") else ""
    return f"{tree.name}@{git('rev-parse', '--short', 'HEAD')}{dirty}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--palace", type=Path, required=True)
    parser.add_argument("--notes", type=int, required=True)
    parser.add_argument("--tree", type=Path, action="append", default=[])
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the keyword queries")
    parser.add_argument("--hog", action="store_true", help="a busy loop per core beside it")
    args = parser.parse_args()
    trees = [REPO, *(t.resolve() for t in args.tree)]
    load = os.getloadavg()
    with cpu_hog() if args.hog else contextlib.nullcontext():
        rows = engine_rows(args.palace, trees, args.rounds)
    end = os.getloadavg()[0]
    hog = ", a CPU hog per core" if args.hog else ""
    print(f"{args.notes} notes{hog}, load {load[0]:.1f} at the start, {end:.1f} at the end")
    for r in rows:
        print(f"{r.metric:<62} {r.median_ms:>9.1f} ms  floor {r.baseline_ms:>8.1f} ms  {r.note}")
    for r in rows:
        print(json.dumps({"row": r.__dict__}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
