"""Applying a plan the way both the CLI and the app do: one commit, search index in step."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from curator.model.palace import INDEX_NAME, STATE_DIR, Palace
from curator.writer.apply import Applied, ChangedSincePlanError, apply_plan
from curator.writer.history import plan_undo
from curator.writer.plan import Plan
from curator.writer.planners import regenerate_index, with_index

INDEX_RETRIES = 5

INDEX_STATE = f"{STATE_DIR}/index/state.json"


def _sync_search_index(
    palace_root: Path, sha: str, after: Palace | None, store: Any | None
) -> None:
    """Keep the LanceDB index in step (under the writer lock). No index and no open store:
    nothing to do; the first search builds it. LanceDB is imported only when an index exists."""
    if store is None and not (palace_root / INDEX_STATE).exists():
        return
    from curator.search.index import after_commit  # deferred: lancedb costs ~1 s to import

    after_commit(palace_root, sha, palace=after, store=store)


def _with_fresh_index(root: Path, plan: Plan) -> Plan:
    """`plan` with INDEX.md rendered again for the palace as it is now (another action committed
    since the plan was made and changed INDEX.md, a derived file)."""
    others = [ch for ch in plan.changes if INDEX_NAME not in ch.touched()]
    return dataclasses.replace(plan, changes=with_index(Palace.open(root), others, None))


def commit(
    palace_root: Path | str,
    plan: Plan,
    *,
    palace: Palace | None = None,
    store: Any | None = None,
    sync_index: bool = True,
    on_committed: Callable[[str], None] | None = None,
) -> Applied:
    """Apply `plan` as one git commit; the search index follows under the same writer lock.

    Pass the `palace` the plan was made from: the index is then updated from the planner's
    'after' palace instead of reloading every note; and an open search `store` if you hold one.
    `on_committed(sha)` is called as soon as git has the commit, before the index update (the
    app names the commit then; the index follows in the same writer lock).

    INDEX.md is derived: when another action committed since `plan` was made and only INDEX.md
    differs from what the plan expected, INDEX.md is rendered again and the plan applied (two
    reviewers promoting different drafts at once both succeed, one after the other).
    """
    root = Path(palace_root)
    state: dict[str, Palace | None] = {
        "after": palace.replaced(plan.effects(root)) if palace is not None else None
    }

    def hook(sha: str) -> None:
        if on_committed is not None:
            on_committed(sha)
        if sync_index:
            _sync_search_index(root, sha, state["after"], store)

    for attempt in range(INDEX_RETRIES):
        try:
            return apply_plan(root, plan, on_commit=hook, public=(INDEX_NAME,))
        except ChangedSincePlanError as exc:
            # apply_plan checks paths in plan order and INDEX.md comes last: every other file
            # still matched the plan when this was raised.
            if exc.path != INDEX_NAME or plan.action == "index" or attempt + 1 == INDEX_RETRIES:
                raise
            plan = _with_fresh_index(root, plan)
            state["after"] = None  # another action landed in between: reload after the commit
    raise AssertionError("unreachable")


def plan_undo_action(palace: Palace, sha: str | None = None, *, today: date | None = None) -> Plan:
    """The undo of one curator action, with INDEX.md rebuilt rather than reverted."""
    return plan_undo(palace.root, sha, regenerate=regenerate_index(palace, today))
