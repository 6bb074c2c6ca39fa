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
from curator.writer.plan import Plan, Write

INDEX_RETRIES = 5


def _derived(plan: Plan) -> set[str]:
    """The paths the plan renders from the palace (INDEX.md, another layout's generated
    index): done again, not refused, when another action landed first."""
    return {INDEX_NAME} | {
        ch.path for ch in plan.changes if isinstance(ch, Write) and ch.rendered_at is not None
    }


def _with_fresh_index(root: Path, plan: Plan) -> Plan:
    """`plan` with its derived files rendered again for the palace as it is now (another action
    committed since the plan was made)."""
    from curator.writer.actions.common import with_index

    derived = _derived(plan)
    others = [ch for ch in plan.changes if not derived.intersection(ch.touched())]
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

    INDEX.md is derived: when another action committed since `plan` was made and only the
    derived files (INDEX.md, another layout's generated index) are out of date, they are
    rendered again and the plan applied (two reviewers promoting different drafts at once both
    succeed, one after the other).
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
            # apply_plan checks the derived files' commit after every file's pre-image, and
            # INDEX.md's pre-image last: every other file still matched the plan when a
            # derived file's difference was raised.
            derived = exc.path in _derived(plan)
            if not derived or plan.action == "index" or attempt + 1 == INDEX_RETRIES:
                raise
            plan = _with_fresh_index(root, plan)
            state["after"] = None  # another action landed in between: reload after the commit
            continue
        return dataclasses.replace(applied, warnings=tuple(state["warnings"]))
    raise AssertionError("unreachable")
