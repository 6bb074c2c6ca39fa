"""Sync benchmark (issue 22): a teammate's 50 actions to pull into a clone of a 10k-note
palace, time to a synced, reindexed clone; target within 2x of the floor.

The floor, measured in the same run on an identical clone: `git pull --rebase` plus
reindexing only the notes the pull changed (the search index's incremental sync, which
re-embeds the notes whose hashes changed). Each timed run starts from a fresh copy of the
clone (untimed), so every run pulls the same 50 commits.

`--workload N` instead runs the team workload of tests/test_sync_workload.py for N steps
per example (thousands, spread over several examples) and prints its counts.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from benchutil import Row, main_for, row  # noqa: E402

RUNS = 3
ACTIONS = 50


def _git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return proc.stdout


def _clone(remote: Path, dest: Path, who: str) -> Path:
    _git(remote.parent, "clone", "-q", str(remote), str(dest))
    _git(dest, "config", "user.name", who)
    _git(dest, "config", "user.email", f"{who}@localhost")
    _git(dest, "config", "gc.auto", "0")
    return dest


def _teammate_actions(root: Path) -> None:
    """50 actions: 40 note edits and 10 promotes, each one commit."""
    from curator.errors import CuratorError
    from curator.model.palace import Palace
    from curator.writer.actions.edit import plan_edit
    from curator.writer.actions.promote import plan_promote
    from curator.writer.session import commit

    palace = Palace.open(root)
    edited = 0
    for note in [n for n in palace.notes if n.ok][:: max(1, len(palace.notes) // 200)]:
        if edited == 40:
            break
        new = note.text[: note.header_end] + note.body + f"\nEdited by the teammate ({edited}).\n"
        try:  # the generator leaves a few notes invalid on purpose: those refuse an edit
            plan = plan_edit(palace, note.rel, new.encode(), reason="bench edit")
        except CuratorError:
            continue
        after = palace.replaced(plan.effects(root))
        commit(root, plan, palace=palace)
        palace, edited = after, edited + 1
    promoted = 0
    for draft in sorted(palace.drafts, key=lambda d: d.rel):
        if promoted == ACTIONS - edited:
            break
        try:
            plan = plan_promote(palace, draft.rel, confidence=0.8, reason="bench promote")
        except CuratorError:  # a draft the generator made invalid on purpose
            continue
        after = palace.replaced(plan.effects(root))
        commit(root, plan, palace=palace)
        palace, promoted = after, promoted + 1


def run(palace_root: Path, notes: int) -> list[Row]:
    from curator.model.index_md import index_is_current
    from curator.model.palace import Palace
    from curator.search.index import sync_index
    from curator.session import Session
    from curator.writer.actions.index import plan_index
    from curator.writer.session import commit

    work = Path(tempfile.mkdtemp(prefix="curator-bench-sync-"))
    try:
        seed = palace_root.resolve()
        palace = Palace.open(seed)
        if not index_is_current(palace):  # a real INDEX.md (run.py passes a scratch copy)
            commit(seed, plan_index(palace), palace=palace)
        remote = work / "remote.git"
        _git(work, "clone", "-q", "--bare", str(seed), str(remote))
        mate = _clone(remote, work / "mate", "mate")
        mine = _clone(remote, work / "mine", "me")
        sync_index(Palace.open(mine))  # the clone's search index, built once
        _teammate_actions(mate)
        Session.open(mate).sync()
        _git(mine, "fetch", "-q")
        tracking = f"refs/remotes/origin/{_git(mine, 'branch', '--show-current').strip()}"
        pulled = len(_git(mine, "rev-list", f"HEAD..{tracking}").splitlines())
        _git(mine, "update-ref", tracking, "HEAD")  # fetched again when timed

        def fresh(name: str) -> Path:
            dest = work / name
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(mine, dest, symlinks=True)
            return dest

        synced: list[float] = []
        floor: list[float] = []
        changed, stats = 0, None
        for n in range(RUNS):
            clone = fresh(f"sync-{n}")
            start = time.perf_counter()
            result = Session.open(clone).sync()
            synced.append(time.perf_counter() - start)
            changed = len(result.changed)
            assert not result.warnings, result.warnings
            clone = fresh(f"floor-{n}")
            start = time.perf_counter()
            _git(clone, "pull", "-q", "--rebase")
            stats = sync_index(Palace.open(clone))
            floor.append(time.perf_counter() - start)
            shutil.rmtree(work / f"sync-{n}")
            shutil.rmtree(work / f"floor-{n}")
        base = statistics.median(floor)
        assert stats is not None
        return [
            row(
                "sync",
                f"pull {pulled} actions + reindex ({notes} notes)",
                synced,
                target_ms=2 * base * 1000,
                baseline_ms=base * 1000,
                baseline="git pull --rebase + incremental reindex",
                note=f"{changed} files changed; the floor re-embedded "
                f"{stats.added + stats.updated} notes",
            )
        ]
    finally:
        shutil.rmtree(work, ignore_errors=True)


def workload(steps: int, examples: int) -> None:
    counts = Path(tempfile.mkdtemp()) / "counts.jsonl"
    env = {
        **os.environ,
        "CURATOR_SYNC_STEPS": str(steps),
        "CURATOR_SYNC_EXAMPLES": str(examples),
        "CURATOR_SYNC_COUNTS": str(counts),
    }
    start = time.perf_counter()
    test = str(HERE.parent / "tests" / "test_sync_workload.py")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", test],
        cwd=HERE.parent, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    last = counts.read_text().splitlines()[-1] if counts.exists() else "{}"
    print(json.dumps({"workload": json.loads(last), "passed": proc.returncode == 0,
                      "seconds": round(time.perf_counter() - start, 1)}))  # fmt: skip
    if proc.returncode != 0:
        print(proc.stdout[-3000:])


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--workload":
        workload(int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 10)
    else:
        main_for(run)
