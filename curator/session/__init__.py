"""Session: one palace as one caller holds it (a CLI command, the app, the MCP server, a
script): the palace generation, its config, its search index (opening, syncing, a searcher
over the palace alone while it opens) and the commit that keeps that index in step.

    from curator.session import Session

    session = Session.open("path/to/palace")
    plan = plan_promote(session.palace, "inbox/draft.md")
    session.commit(plan)  # one git commit; the search index follows

The writer never imports search: a session passes the index's after-commit callback to
`curator.writer.session.commit` itself. Nothing here is process-wide; two sessions on one
palace are two callers. Thread-safe: the app and the MCP server call it from worker threads.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from curator.config import Config, load_config
from curator.model.palace import Palace
from curator.session.generations import Generations
from curator.session.index import SessionIndex
from curator.session.watch import DEBOUNCE_MS, PalaceWatch

if TYPE_CHECKING:
    from curator.search.embed import Embedder
    from curator.search.progress import Progress
    from curator.search.searcher import Searcher
    from curator.search.store import IndexStore, SyncStats
    from curator.writer.apply import Applied
    from curator.writer.gitpy import OnTransfer
    from curator.writer.plan import Plan
    from curator.writer.sync import Resolution, SyncPlan, SyncResult


class Session:
    """One caller's palace, config and search index.

    `apart`: build the index in a child process (the app: the build's memory never lands in
    its process). `follow_later`: a commit made while no index is open leaves the index to
    `follow_index` (a command's one process: its palace let go of first). `watch()`: reload
    the palace when its files change on disk."""

    def __init__(
        self,
        palace: Palace | None = None,
        *,
        root: str | os.PathLike[str] | None = None,
        index: IndexStore | None = None,
        apart: bool = False,
        follow_later: bool = False,
    ) -> None:
        if palace is None and root is None:
            raise TypeError("Session needs a palace or a root")
        self.root = palace.root if palace is not None else Path(root or ".")
        self._lock = threading.RLock()  # a reload or a commit's palace, one at a time
        self._generations = Generations()
        self._palace: Palace | None = None
        self._config: Config | None = None
        self._changed = threading.Event()  # the watch saw the files change: reload when asked
        self._watch: PalaceWatch | None = None
        self.index = SessionIndex(self._generations, index, apart, follow_later)
        if palace is not None:
            self._hold(palace)

    @classmethod
    def open(cls, root: str | os.PathLike[str], *, apart: bool = False) -> Session:
        """A session on the palace at `root`, loaded when first asked for."""
        return cls(root=root, apart=apart)

    # -- the palace generation ---------------------------------------------------------------
    def _hold(self, palace: Palace) -> bool:
        """Hold `palace` unless a newer one is held already; whether it is held now."""
        with self._lock:
            if not self._generations.newer(palace, self._palace):
                return False
            self._palace = palace
            return True

    @property
    def palace(self) -> Palace:
        """The palace as this session last saw it: after its own commits, the palace they
        left; read again when the watch saw its files change (or when none is held)."""
        palace = self._palace
        if palace is not None and not self._changed.is_set():
            return palace
        with self._lock:
            if self._palace is None or self._changed.is_set():
                self.reload()
            assert self._palace is not None
            return self._palace

    @property
    def loaded(self) -> Palace | None:
        """The palace held now, never loading one."""
        return self._palace

    def reload(self) -> Palace:
        """The palace read again, sharing every unchanged note with the one held now. A
        reload that finishes after a later one returns its palace but leaves the later held."""
        previous = self._palace
        self._changed.clear()
        number = self._generations.next()
        palace = Palace.open(self.root, previous=previous)
        self._generations.number(palace, number)
        self._hold(palace)
        return palace

    @property
    def config(self) -> Config:
        """palace.toml as loaded with the palace, or read on its own before that (cheap)."""
        palace = self._palace
        if palace is not None:
            return palace.config
        if self._config is None:
            self._config = load_config(self.root)
        return self._config

    def watch(
        self, then: Callable[[], None] | None = None, *, debounce_ms: int = DEBOUNCE_MS
    ) -> None:
        """From now on, note when the palace's files change on disk (the next `palace` reads
        it again) and call `then` (from the watch thread)."""
        if self._watch is None:
            self._watch = PalaceWatch(self.root, debounce_ms)
            self._watch.listen(self._changed.set)
        if then is not None:
            self._watch.listen(then)

    def changed(self) -> None:
        """The palace's files changed (this caller wrote them): the next `palace` reloads."""
        self._changed.set()

    def close(self) -> None:
        """Stop watching and stop a running index build."""
        if self._watch is not None:
            self._watch.stop()
        self.index.stop()

    # -- the search index --------------------------------------------------------------------
    def store(self) -> IndexStore:
        """The palace's search index, opened on first use (this imports LanceDB) and held
        from then on: the one store of this session (it follows other processes' syncs)."""
        return self.index.open(self.palace)

    @property
    def embedder(self) -> Embedder:
        return self.store().embedder

    def searcher(self, palace: Palace | None = None, progress: Progress | None = None) -> Searcher:
        """The searcher over `palace` (this session's by default): the index is opened and
        synced on first use, and synced again when the palace is newer than the index."""
        return self.index.searcher(palace or self.palace, progress)

    def searcher_now(self, *, open_meanwhile: bool = False) -> Searcher:
        """The index's searcher when it is in step with the palace, else one over the palace
        alone, never waiting (for callers answering within a budget, such as the hooks)."""
        return self.index.now(self.palace, open_meanwhile=open_meanwhile)

    def sync_index(
        self, palace: Palace | None = None, progress: Progress | None = None
    ) -> SyncStats | None:
        """Bring the index in line with `palace` (the first call may build it); None when it
        already is, or when a newer palace was synced since."""
        return self.index.sync(palace or self.palace, progress)

    def reindex(self, palace: Palace | None = None, progress: Progress | None = None) -> SyncStats:
        """Rebuild the index from scratch apart; searches go on over the old table meanwhile."""
        return self.index.reindex(palace or self.palace, progress)

    # -- writing -----------------------------------------------------------------------------
    def commit(
        self,
        plan: Plan,
        *,
        palace: Palace | None = None,
        on_committed: Callable[[str], None] | None = None,
    ) -> Applied:
        """Apply `plan` as one commit (`curator.writer.session.commit`, planned from `palace`,
        this session's by default); the search index, when the palace has one, follows under
        the same writer lock. A session whose index follows later is given no palace after
        the commit (working it out costs the whole palace; its next `palace` reads again)."""
        from curator.writer.session import commit

        return commit(
            self.root,
            plan,
            palace=None if self.index.follows_later else palace or self._palace,
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

    def follow_index(self) -> None:
        """The search index following the commits this session left to it (`follow_later`):
        the session lets go of its palace first, so the palace and the index's LanceDB and
        embedder are never held at once, and only the files the commits wrote are read
        (`curator.search.hooks.follow_files`), under the writer lock as a commit's own sync.
        A failure raises; the commits stand and the next search syncs."""
        changed = self.index.pending
        if changed is None:
            return
        from curator.runtime import let_go
        from curator.search.hooks import sync_after_commit
        from curator.writer.lock import WriterLock

        with self._lock:
            held = self._palace is not None
            self._palace = None
            self._changed.set()  # asked again, the palace is read again
        # a session given no palace (a plan made from the index: `curator.cli.common.planned`
        # collects what planning left) holds nothing only a full collection frees
        let_go(collect=held)
        with WriterLock(self.root):
            sync_after_commit(self.root, None, changed)
        self.index.pending = None

    def after_commit(self, root: Path, after: Palace | None, changed: list[str]) -> None:
        """The writer's after-commit callback that keeps this session's palace and index in
        step (for a wing that commits itself, such as the audit)."""
        if after is None:
            self._changed.set()  # the writer could not say: read again when next asked
        else:
            self._generations.number(after)
            self._hold(after)
        self.index.committed(root, after, changed)
