"""The search index follows every writer commit: a callback the writer runs after each one.

`register_hooks()` is called once at start by the CLI and the app. It registers
`sync_after_commit` with `curator.writer.hooks`, so the writer never imports search; the
callback imports LanceDB only when the palace already has an index (the first search builds
it otherwise). Importing this module is cheap.

The sync runs against the process's open store for the palace (`open_index` keeps one per
index folder), so the app's searcher sees the commit at once.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from curator.model.palace import Palace

INDEX_STATE = Path(".curator") / "index" / "state.json"

_REGISTERED: list[bool] = []


def sync_after_commit(root: Path, after: Palace | None, changed_paths: list[str]) -> None:
    """Bring an existing index in line with the palace the commit left (under the writer
    lock; `after` when the writer knows it, else the palace is loaded). No index: nothing to
    do, the first search builds it. A failure raises: the writer keeps the commit and shows it
    as a warning, and the next search re-syncs (the index is derived)."""
    del changed_paths  # the sync diffs content hashes itself
    root = Path(root)
    if not (root / INDEX_STATE).is_file():
        return
    from curator.model.palace import Palace
    from curator.search.index import sync_index

    sync_index(after if after is not None else Palace.open(root))


def register_hooks() -> None:
    """Register the search index's after-commit callback with the writer (once a process)."""
    if _REGISTERED:
        return
    from curator.writer.hooks import register_after_commit

    register_after_commit(sync_after_commit)
    _REGISTERED.append(True)


__all__ = ["register_hooks", "sync_after_commit"]
