"""The core functions the app calls, imported lazily (they may pull in git or LanceDB).

Everything here runs in worker threads; the UI never decides what a change is.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

from curator.writer.plan import Plan


def planners() -> ModuleType:
    import curator.writer.planners as module

    return module


def commit(root: Path, plan: Plan) -> Any:
    """Apply `plan` as one commit (Applied). The app keeps its search index in step itself,
    incrementally in a worker after the reload, so the commit does not wait for it."""
    try:
        from curator.writer.session import commit as session_commit
    except ModuleNotFoundError:
        from curator.writer.apply import apply_plan

        return apply_plan(root, plan)
    return session_commit(root, plan, sync_index=False)


def history(root: Path) -> list[Any]:
    from curator.writer.history import history as read_history

    return read_history(root)


def plan_undo(root: Path, sha: str) -> Plan:
    from curator.writer.history import plan_undo as undo

    return undo(root, sha)
