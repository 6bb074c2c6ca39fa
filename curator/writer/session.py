"""Applying a plan the way both the CLI and the app do: one commit, search index in step."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from curator.model.palace import STATE_DIR, Palace
from curator.writer.apply import Applied, apply_plan
from curator.writer.history import plan_undo
from curator.writer.plan import Plan
from curator.writer.planners import regenerate_index

INDEX_STATE = f"{STATE_DIR}/index/state.json"


def _sync_search_index(palace_root: Path, sha: str) -> None:
    """Keep an existing LanceDB index in step (under the writer lock). No index: nothing to do;
    the first search builds it. LanceDB is imported only when an index exists."""
    if not (palace_root / INDEX_STATE).exists():
        return
    from curator.search.index import after_commit  # deferred: lancedb costs ~1 s to import

    after_commit(palace_root, sha)


def commit(palace_root: Path | str, plan: Plan, *, sync_index: bool = True) -> Applied:
    """Apply `plan` as one git commit; the search index follows under the same writer lock."""
    root = Path(palace_root)
    hook = (lambda sha: _sync_search_index(root, sha)) if sync_index else None
    return apply_plan(root, plan, on_commit=hook)


def plan_undo_action(palace: Palace, sha: str | None = None, *, today: date | None = None) -> Plan:
    """The undo of one curator action, with INDEX.md rebuilt rather than reverted."""
    return plan_undo(palace.root, sha, regenerate=regenerate_index(palace, today))
