"""The search index following a writer commit: the after-commit callback a session passes to
the writer (`curator.session.Session.commit`), so the writer never imports search.

The callback imports LanceDB only when the palace already has an index (the first search
builds it otherwise). Importing this module is cheap.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from curator.model.palace import Palace
    from curator.search.store import IndexStore

INDEX_STATE = Path(".curator") / "index" / "state.json"


def sync_after_commit(
    root: Path, after: Palace | None, changed_paths: list[str], store: IndexStore | None = None
) -> None:
    """Bring an existing index in line with the palace the commit left (under the writer
    lock; `after` when the writer knows it, else from the files: `follow_files`), through
    `store` when the caller holds it open. No index: nothing to do, the first search builds
    it. A failure raises: the writer keeps the commit and shows it as a warning, and the next
    search re-syncs (the index is derived)."""
    root = Path(root)
    if not (root / INDEX_STATE).is_file():
        return
    if after is None:
        follow_files(root, store, changed_paths)
        return
    from curator.search.index import sync_index

    sync_index(after, store=store)


def follow_files(
    root: Path, store: IndexStore | None = None, changed: list[str] | None = None
) -> None:
    """Bring the index in line with the palace's files holding no palace: only the files
    changed since the index last followed are read (`curator.search.catchup`: `changed`,
    the paths a commit wrote, else every file stat-ed); the palace is loaded only when the
    index keeps no record to tell them by (built before it kept one)."""
    from curator.config import load_config
    from curator.search.catchup import catch_up
    from curator.search.index import open_index_at, sync_index

    config = load_config(root)
    store = store or open_index_at(root, config)
    if not catch_up(root, config, store, changed=changed):
        from curator.model.palace import Palace

        sync_index(Palace.open(root), store=store)


__all__ = ["follow_files", "sync_after_commit"]
