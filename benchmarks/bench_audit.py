"""Audit benchmarks: path checks of 1,000 notes (target ≤ 2 s), and a rerun makes no commit.

    python benchmarks/bench_audit.py --palace PALACE --notes N   (PALACE: a git palace copy)

Baseline: the same path checks as a bare `os.path.exists` loop (no containment, no globbing,
no threads), measured in the same run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchutil import Row, main_for, row, timed

AREA = "audit"
TARGET_NOTES = 1000
REPEAT = 5


def _commits(root: Path) -> int:
    out = subprocess.run(
        ["git", "rev-list", "--count", "HEAD"], cwd=root, capture_output=True, text=True
    )
    return int(out.stdout.strip() or 0)


def run(palace: Path, notes: int) -> list[Row]:
    from curator.audit.run import audit_and_commit, run_audit
    from curator.audit.verify import default_scope_root
    from curator.model.palace import Palace

    pal = Palace.open(palace)
    chosen = [
        n
        for n in pal.notes
        if n.ok
        and not n.superseded
        and isinstance(n.verify, dict)
        and n.verify.get("paths")
        and "command" not in n.verify
    ][:TARGET_NOTES]
    refs = [n.rel for n in chosen]
    count = len(refs)
    paths = sum(len(n.verify["paths"]) for n in chosen if n.verify)
    what = f"{count} notes, {paths} paths (path-only verify; palace of {notes})"

    # baseline: the same files, a plain exists() loop
    default = default_scope_root(pal)
    targets = []
    for n in chosen:
        root = pal.config.scope_root(n.scope) or default
        targets += [os.path.join(root, p) for p in (n.verify or {}).get("paths", [])]

    def baseline() -> None:
        for t in targets:
            os.path.exists(t)

    base = timed(baseline, REPEAT)
    audit_times = timed(lambda: run_audit(pal, refs), REPEAT)
    report = run_audit(pal, refs)
    rows = [
        row(
            AREA,
            f"path checks, {count} notes",
            audit_times,
            target_ms=2000,
            baseline="os.path.exists loop",
            baseline_ms=sorted(base)[len(base) // 2] * 1000,
            note=f"{what}; {report.counts['pass']} pass, {report.counts['fail']} fail",
        )
    ]

    # first full run commits the stale changes; the rerun with nothing changed must not
    before = _commits(palace)
    start = time.perf_counter()
    first, _ = audit_and_commit(Palace.open(palace), refs)
    first_s = time.perf_counter() - start
    after_first = _commits(palace)
    rows.append(
        row(
            AREA,
            "audit + commit (first run)",
            [first_s],
            note=f"{first.counts['stale']} stale, {first.counts['cleared']} cleared; "
            f"commits: {after_first - before}",
        )
    )
    start = time.perf_counter()
    second, plan = audit_and_commit(Palace.open(palace), refs)
    second_s = time.perf_counter() - start
    made = _commits(palace) - after_first
    if made or plan is not None:
        raise RuntimeError(f"a rerun with nothing changed made {made} commits")
    rows.append(
        row(
            AREA,
            "rerun, nothing changed",
            [second_s],
            target_ms=2000,
            note=f"commits: {made}; {second.counts['checked']} checked",
        )
    )
    return rows


if __name__ == "__main__":
    main_for(run)
