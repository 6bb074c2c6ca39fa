"""Applying a plan the way both the CLI and the app do: one commit, derived views in step."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from curator.errors import WriterError
from curator.model.palace import INDEX_NAME, Palace
from curator.writer.apply import Applied, ChangedSincePlanError, apply_plan
from curator.writer.hooks import AfterCommit, run_after_commit
from curator.writer.plan import Plan

INDEX_RETRIES = 5


def _with_fresh_index(root: Path, plan: Plan) -> Plan:
    """`plan` with INDEX.md rendered again for the palace as it is now (another action committed
    since the plan was made and changed INDEX.md, a derived file)."""
    from curator.writer.actions.common import with_index

    others = [ch for ch in plan.changes if INDEX_NAME not in ch.touched()]
    return dataclasses.replace(plan, changes=with_index(Palace.open(root), others, None))


def _after(root: Path, plan: Plan, palace: Palace | None) -> Palace | None:
    """The palace as the plan leaves it, when it can be known without reloading; None when a
    file the plan moves is gone already (another action took it: apply will say so)."""
    if palace is None:
        return None
    try:
        return palace.replaced(plan.effects(root))
    except (OSError, WriterError):
        return None


def commit(
    palace_root: Path | str,
    plan: Plan,
    *,
    palace: Palace | None = None,
    after_commit: Sequence[AfterCommit] = (),
    on_committed: Callable[[str], None] | None = None,
) -> Applied:
    """Apply `plan` as one git commit; the `after_commit` callbacks (a session's search index,
    see `curator.session.Session.commit`) follow under the same writer lock, and a failing one
    becomes a warning on the result.

    Pass the `palace` the plan was made from: the callbacks then get the planner's 'after'
    palace instead of reloading every note. `on_committed(sha)` is called as soon as git has
    the commit, before the callbacks (the app names the commit then).

    INDEX.md is derived: when another action committed since `plan` was made and only INDEX.md
    differs from what the plan expected, INDEX.md is rendered again and the plan applied (two
    reviewers promoting different drafts at once both succeed, one after the other).
    """
    root = Path(palace_root)
    state: dict[str, Any] = {"after": _after(root, plan, palace), "warnings": []}

    def hook(sha: str) -> None:
        if on_committed is not None:
            on_committed(sha)
        if after_commit:
            paths = sorted({p for ch in plan.changes for p in ch.touched()})
            state["warnings"] = run_after_commit(after_commit, root, state["after"], paths)

    for attempt in range(INDEX_RETRIES):
        try:
            applied = apply_plan(root, plan, on_commit=hook)
        except ChangedSincePlanError as exc:
            # apply_plan checks paths in plan order and INDEX.md comes last: every other file
            # still matched the plan when this was raised.
            if exc.path != INDEX_NAME or plan.action == "index" or attempt + 1 == INDEX_RETRIES:
                raise
            plan = _with_fresh_index(root, plan)
            state["after"] = None  # another action landed in between: reload after the commit
            continue
        return dataclasses.replace(applied, warnings=tuple(state["warnings"]))
    raise AssertionError("unreachable")
