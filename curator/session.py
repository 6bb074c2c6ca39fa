"""Session: one palace as one caller holds it (a CLI command, the app, the MCP server, a
script): the palace, its config, its search index and embedder, and the commit that keeps
that index in step.

    from curator.session import Session

    session = Session.open("path/to/palace")
    plan = plan_promote(session.palace, "inbox/draft.md")
    session.commit(plan)  # one git commit; the search index follows

The writer never imports search: a session passes the index's after-commit callback to
`curator.writer.session.commit` itself. Nothing here is process-wide; two sessions on one
palace are two callers.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from curator.config import Config
from curator.model.palace import Palace

if TYPE_CHECKING:
    from curator.search.embed import Embedder
    from curator.search.searcher import Searcher
    from curator.search.store import IndexStore
    from curator.writer.apply import Applied
    from curator.writer.gitpy import OnTransfer
    from curator.writer.plan import Plan
    from curator.writer.sync import Resolution, SyncPlan, SyncResult


class Session:
    """One caller's palace, config, search index and embedder."""

    def __init__(self, palace: Palace, index: IndexStore | None = None) -> None:
        self._palace: Palace | None = palace
        self.root = palace.root
        self._index = index
        self._searcher: Searcher | None = None

    @classmethod
    def open(cls, root: str | os.PathLike[str]) -> Session:
        return cls(Palace.open(root))

    @property
    def palace(self) -> Palace:
        """The palace as this session last saw it: after its own commits, the palace they
        left (reloaded from disk only when the writer could not say)."""
        if self._palace is None:
            self._palace = Palace.open(self.root)
        return self._palace

    @property
    def config(self) -> Config:
        return self.palace.config

    def index(self) -> IndexStore:
        """The palace's search index, opened on first use (this imports LanceDB) and held
        from then on: the one store of this session (it follows other processes' syncs)."""
        if self._index is None:
            from curator.search.index import open_index

            self._index = open_index(self.palace)
        return self._index

    @property
    def embedder(self) -> Embedder:
        return self.index().embedder

    def searcher(self) -> Searcher:
        """The searcher over this session's palace (search, ask, pack, dupes): the index is
        opened and synced on first use, and synced again when the palace changed since."""
        palace = self.palace
        if self._searcher is None:
            from curator.search.searcher import Searcher

            self._searcher = Searcher(palace, index=self.index())
        elif self._searcher.palace is not palace:
            from curator.search.index import sync_index

            sync_index(palace, store=self._searcher.store)
            self._searcher.palace = palace
        return self._searcher

    def searcher_if_ready(self) -> Searcher | None:
        """The searcher when its index is open and in step with this session's palace, else
        None (never opens or syncs: for callers answering within a budget)."""
        searcher = self._searcher
        if searcher is not None and searcher.palace is self._palace:
            return searcher
        return None

    def reload(self) -> Palace:
        """The palace read again, sharing every unchanged note with the one held now."""
        self._palace = Palace.open(self.root, previous=self._palace)
        return self._palace

    def commit(
        self,
        plan: Plan,
        *,
        palace: Palace | None = None,
        on_committed: Callable[[str], None] | None = None,
    ) -> Applied:
        """Apply `plan` as one commit (`curator.writer.session.commit`, planned from `palace`,
        this session's by default); the search index, when the palace has one, follows under
        the same writer lock."""
        from curator.writer.session import commit

        return commit(
            self.root,
            plan,
            palace=palace or self._palace,
            after_commit=(self.after_commit,),
            on_committed=on_committed,
        )

    def sync(
        self,
        remote: str | None = None,
        resolutions: dict[str, Resolution] | None = None,
        *,
        on_plan: Callable[[SyncPlan], None] | None = None,
        on_transfer: OnTransfer | None = None,
    ) -> SyncResult:
        """`curator sync` (`curator.writer.sync.sync`), the search index following the pull;
        git's progress of each fetch and push goes to `on_transfer`."""
        from curator.writer.sync import sync

        return sync(
            self.root,
            remote,
            resolutions,
            on_plan=on_plan,
            after_commit=(self.after_commit,),
            on_transfer=on_transfer,
        )

    def after_commit(self, root: Path, after: Palace | None, changed: list[str]) -> None:
        """The writer's after-commit callback that keeps this session's index in step (for a
        wing that commits itself, such as the audit)."""
        from curator.search.hooks import sync_after_commit

        self._palace = after  # None: reloaded when next asked for
        sync_after_commit(root, after, changed, store=self._index)
