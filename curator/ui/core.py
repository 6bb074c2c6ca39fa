"""The core functions the app calls, imported lazily (they may pull in git or LanceDB).

Everything here runs in worker threads; the UI never decides what a change is.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from curator.writer.plan import Plan


def planners() -> ModuleType:
    import curator.writer.planners as module

    return module


def commit(
    root: Path,
    plan: Plan,
    palace: Any | None = None,
    on_committed: Callable[[str], None] | None = None,
) -> Any:
    """Apply `plan` as one commit (Applied), updating the search index in the writer lock from
    the planner's 'after' palace with the app's open store (no reload of every note).
    `on_committed(sha)` runs once git has the commit, before the index update."""
    from curator.ui.lookup import session_for
    from curator.writer.session import commit as session_commit

    store = session_for(root).store
    return session_commit(root, plan, palace=palace, store=store, on_committed=on_committed)


def history(root: Path) -> list[Any]:
    from curator.writer.history import history as read_history

    return read_history(root)


def plan_undo(root: Path, sha: str) -> Plan:
    from curator.writer.history import plan_undo as undo

    return undo(root, sha)
