"""Writer benchmark: one promote end to end (plan + write + commit + INDEX.md), target 100 ms.

The palace is loaded once beforehand, as in the app; between promotes it is refreshed the
cheap way (`palace.replaced(effects)`), untimed. Also reported: plan-only and apply-only
medians of the same promotes, a baseline measured in the same repository (`git add -- PATH &&
git commit` of one new file through the git CLI), and `curator promote --yes` as a whole
process. Every run makes a real commit in the palace (a scratch copy).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchutil import Row, main_for, process_times, row

RUNS = 15
PROCESS_RUNS = 5


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def run(palace_root: Path, notes: int) -> list[Row]:
    from curator.errors import CuratorError
    from curator.model.palace import Palace
    from curator.writer.actions.promote import plan_promote
    from curator.writer.session import commit

    root = palace_root.resolve()
    start = time.perf_counter()
    palace = Palace.open(root)
    load_ms = (time.perf_counter() - start) * 1000
    drafts = sorted(d.rel for d in palace.drafts)

    plan_s: list[float] = []
    apply_s: list[float] = []
    total_s: list[float] = []
    skipped = 0
    used: list[str] = []
    for rel in drafts:
        if len(total_s) == RUNS + 1:  # the first promote is a warm-up
            break
        t0 = time.perf_counter()
        try:
            plan = plan_promote(palace, rel)
        except CuratorError:
            skipped += 1
            continue
        t1 = time.perf_counter()
        effects = plan.effects()  # untimed: to refresh the palace after the commit
        t2 = time.perf_counter()
        commit(root, plan)
        t3 = time.perf_counter()
        palace = palace.replaced(effects)
        used.append(rel)
        plan_s.append(t1 - t0)
        apply_s.append(t3 - t2)
        total_s.append((t1 - t0) + (t3 - t2))
    plan_s, apply_s, total_s = plan_s[1:], apply_s[1:], total_s[1:]

    baseline: list[float] = []
    stamp = time.time_ns()  # new files on every run, even in a palace benchmarked before
    for i in range(RUNS):
        path = f"notes/bench-baseline-{stamp}-{i}.md"
        t0 = time.perf_counter()
        (root / path).write_text(f"---\nname: Baseline {i}\n---\nbody\n")
        _git(root, "add", "--", path)
        _git(root, "commit", "-q", "--no-verify", "-m", f"baseline {i}")
        baseline.append(time.perf_counter() - t0)
    baseline_ms = statistics.median(baseline) * 1000

    whole: list[float] = []
    remaining = [d.rel for d in Palace.open(root).drafts]
    for rel in remaining:
        if len(whole) == PROCESS_RUNS:
            break
        argv = [sys.executable, "-m", "curator", "--palace", str(root), "promote", rel, "--yes"]
        try:
            whole += process_times(argv, 1)
        except RuntimeError:
            continue  # a draft that does not validate as it stands

    skip = f"; {skipped} drafts refused by validation skipped" if skipped else ""
    rows = [
        row(
            "writer",
            f"promote in-process: plan + write + commit + INDEX.md ({notes:,} notes)",
            total_s,
            target_ms=100,
            baseline="git add -- PATH && git commit (git CLI)",
            baseline_ms=baseline_ms,
            note=f"palace loaded once ({load_ms:.0f} ms, untimed){skip}",
        ),
        row("writer", "  plan_promote only", plan_s, note="validation + INDEX.md render"),
        row(
            "writer",
            "  apply only (session.commit)",
            apply_s,
            note="lock, journal, atomic writes, one git commit --only",
        ),
        row(
            "writer",
            "baseline: git add -- PATH && git commit",
            baseline,
            note="one new file, two git processes, same repository",
        ),
    ]
    if whole:
        rows.append(
            row(
                "writer",
                f"curator promote --yes whole process ({notes:,} notes)",
                whole,
                note="python -m curator; palace load from warm cache",
            )
        )
    return rows


if __name__ == "__main__":
    main_for(run)
