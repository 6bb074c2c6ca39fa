"""After-commit callbacks (writer/hooks.py), passed by the caller: run inside the writer lock
after a commit and an undo with the palace the commit left; a failing one is a warning and
never loses the commit; a commit given none runs none."""

from __future__ import annotations

from pathlib import Path

import pytest
from palacehelpers import git

from curator.model.palace import Palace
from curator.writer import hooks
from curator.writer.actions.reject import plan_reject
from curator.writer.actions.undo import undo
from curator.writer.lock import LockTimeoutError, WriterLock
from curator.writer.session import commit

LINT = "inbox/2026-11-25-make-lint-runs-mypy-on-billing.md"


def test_callbacks_run_in_the_lock_after_commit_and_undo(sample_palace: Path) -> None:
    seen: list[tuple[str, bool, list[str]]] = []

    def record(root: Path, after: Palace | None, changed: list[str]) -> None:
        with pytest.raises(LockTimeoutError):  # the writer lock is still held
            WriterLock(root, timeout=0.05).acquire()
        head = git(root, "log", "-1", "--format=%s").stdout.strip()
        seen.append((head, after is not None and LINT not in after.by_rel, changed))

    callbacks: list[hooks.AfterCommit] = [record]
    palace = Palace.open(sample_palace)
    plan = plan_reject(palace, LINT, "dup")
    applied = commit(sample_palace, plan, palace=palace, after_commit=callbacks)
    commit(sample_palace, undo(sample_palace), after_commit=callbacks)
    commit(sample_palace, undo(sample_palace))  # the undo of the undo: no callback given
    assert [s[0].split(":")[0] for s in seen] == ["reject", "undo"]
    assert seen[0][1] is True  # the palace as the commit left it, without a reload
    assert LINT in seen[0][2]
    assert applied.warnings == ()


def test_a_failing_callback_is_a_warning_and_the_commit_stands(sample_palace: Path) -> None:
    def broken(root: Path, after: Palace | None, changed: list[str]) -> None:
        raise RuntimeError("index is on fire")

    palace = Palace.open(sample_palace)
    plan = plan_reject(palace, LINT, "dup")
    applied = commit(sample_palace, plan, palace=palace, after_commit=[broken])
    assert len(applied.warnings) == 1 and "index is on fire" in applied.warnings[0]
    assert git(sample_palace, "rev-parse", "HEAD").stdout.strip() == applied.sha
    assert git(sample_palace, "status", "--porcelain").stdout == ""
