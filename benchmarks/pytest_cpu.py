"""A pytest plugin that records the CPU each test phase costs (this process plus the children
it reaped), to find where the suite's CPU goes on a shared machine, where wall time lies.

    python -m pytest -p benchmarks.pytest_cpu -n 3 ...  # one JSON per worker in $PYTEST_CPU_OUT
    python benchmarks/pytest_cpu.py /tmp/pytest_cpu      # the files and tests that cost most

A module- or session-scoped fixture's cost falls on the setup of the first test that asks for
it; a child left running (a server a fixture holds) counts when it is reaped.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest


def _cpu() -> float:
    return time.process_time() + _kids()


def _kids() -> float:
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return kids.ru_utime + kids.ru_stime


_rows: list[dict[str, object]] = []


def _phase(item: pytest.Item, phase: str) -> Iterator[None]:
    start, kids, began = _cpu(), _kids(), time.time()
    yield
    cpu, kids = _cpu() - start, _kids() - kids
    row = {"id": item.nodeid, "phase": phase, "cpu": cpu, "kids": kids}
    _rows.append({**row, "start": began, "wall": time.time() - began})


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    yield from _phase(item, "setup")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    yield from _phase(item, "call")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    yield from _phase(item, "teardown")


def pytest_sessionfinish(session: pytest.Session) -> None:
    out = Path(os.environ.get("PYTEST_CPU_OUT", "/tmp/pytest_cpu"))
    out.mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    total = _cpu()
    (out / f"{worker}.json").write_text(json.dumps({"total": total, "rows": _rows}))


def main(folder: str, top: int = 40) -> None:
    per_test: dict[str, float] = defaultdict(float)
    per_file: dict[str, float] = defaultdict(float)
    total = kids = 0.0
    for f in Path(folder).glob("gw*.json"):
        for row in json.loads(f.read_text())["rows"]:
            per_test[f"{row['id']} [{row['phase']}]"] += row["cpu"]
            per_file[row["id"].split("::")[0]] += row["cpu"]
            total += row["cpu"]
            kids += row["kids"]
    print(f"CPU in tests: {total:.1f} s, of it in their children: {kids:.1f} s")
    for name, cpu in sorted(per_file.items(), key=lambda kv: -kv[1])[:top]:
        print(f"{cpu:8.2f}  {name}")
    print()
    for name, cpu in sorted(per_test.items(), key=lambda kv: -kv[1])[:top]:
        print(f"{cpu:8.2f}  {name}")
    _tail(folder)


def _tail(folder: str) -> None:
    """When each worker ran out of tests, and what each ran last (a run's wall time is its
    last worker's: a long test started late makes the others wait)."""
    workers = {f.stem: json.loads(f.read_text())["rows"] for f in Path(folder).glob("gw*.json")}
    timed = {w: rows for w, rows in workers.items() if rows and "start" in rows[0]}
    if not timed:
        return
    began = min(rows[0]["start"] for rows in timed.values())
    print("\nworker  ended (s from the first test)  its last test (wall s, its phases)")
    for worker, rows in sorted(timed.items()):
        last = max(rows, key=lambda r: r["start"] + r["wall"])
        ended = last["start"] + last["wall"] - began
        wall = sum(r["wall"] for r in rows if r["id"] == last["id"])
        print(f"{worker:6}  {ended:8.1f}  {last['id']} ({wall:.1f})")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 40)
