"""The search index one session holds: opened on first use, synced to the newest palace
generation it is shown (an older one never syncs it back), kept in step by the session's
commits, and a searcher over the palace alone while it opens.

A session that builds apart (the app's) runs the first build and a reindex in a child process
(`curator.search.indexjob`); any other builds in its own process. Every sync and query of the
open index holds `lock`, so a sync under way finishes before a query reads.
"""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from curator.model.palace import Palace
from curator.session.generations import Generations

if TYPE_CHECKING:
    from curator.search.progress import Progress
    from curator.search.searcher import Searcher
    from curator.search.store import IndexStore, SyncStats


class SessionIndex:
    def __init__(
        self,
        generations: Generations,
        store: IndexStore | None = None,
        apart: bool = False,
        later: bool = False,
    ) -> None:
        self.lock = threading.RLock()
        self._opening = threading.Lock()  # held by the thread `now` starts to open the index
        self._generations = generations
        self._store = store
        self._apart = apart
        self._searcher: Searcher | None = None
        self._lexical: Searcher | None = None
        self._child: subprocess.Popen[str] | None = None
        self._later = later  # a commit with no index open leaves it to `Session.follow_index`
        self.pending: list[str] | None = None  # what commits wrote, for the index to follow

    @property
    def ready(self) -> bool:
        """The index is open and has a searcher (synced to some palace)."""
        return self._searcher is not None

    @property
    def store(self) -> IndexStore | None:
        """The open store (None: not opened yet)."""
        return self._store

    def open(self, palace: Palace) -> IndexStore:
        """The store, opened on first use (this imports LanceDB)."""
        with self.lock:
            if self._store is None:
                from curator.search.index import open_index

                self._store = open_index(palace)
            return self._store

    def sync(self, palace: Palace, progress: Progress | None = None) -> SyncStats | None:
        """Bring the index in line with `palace` (the first call may build it); None when it
        already is, or when a newer palace was synced since."""
        from curator.search.index import sync_index
        from curator.search.progress import reporting
        from curator.search.searcher import Searcher

        self._generations.number(palace)
        with self.lock:
            store = self.open(palace)
            built = None
            if self._apart and not store.ready:  # the first build, in a child (the store follows)
                built = self._run_child(palace.root, False, progress)
            searcher = self._searcher
            if searcher is None:
                with reporting(store, palace, progress):
                    searcher = Searcher(palace, index=store)
                self._searcher = searcher
                return built or searcher.sync_stats
            if not self._generations.newer(palace, searcher.palace):
                return None
            with reporting(store, palace, progress):
                stats = sync_index(palace, store=store)
            searcher.palace = palace
            return stats

    def reindex(self, palace: Palace, progress: Progress | None = None) -> SyncStats:
        """Rebuild the index from scratch in a child process; searches go on meanwhile over
        the old table and follow the new one once it is switched in."""
        self._generations.number(palace)
        stats = self._run_child(palace.root, True, progress)
        self.sync(palace)
        return stats

    def searcher(self, palace: Palace, progress: Progress | None = None) -> Searcher:
        """The index's searcher, synced to `palace` first when that is newer than the index
        (after a sync under way: a query never reads a store half-way through one)."""
        with self.lock:
            searcher = self._searcher
            if searcher is None or self._generations.newer(palace, searcher.palace):
                self.sync(palace, progress)
                searcher = self._searcher
        assert searcher is not None
        return searcher

    def if_ready(self, palace: Palace) -> Searcher | None:
        """The searcher when the index is open and in step with `palace`, else None (never
        opens or syncs: for callers answering within a budget)."""
        searcher = self._searcher
        return searcher if searcher is not None and searcher.palace is palace else None

    def now(self, palace: Palace, *, open_meanwhile: bool) -> Searcher:
        """The index's searcher when it is in step with `palace`, else one over the palace
        alone (`Searcher.over_palace`: the same ranking without the vector part), never waiting
        for LanceDB and the embedder; `open_meanwhile` opens the index in a thread."""
        ready = self.if_ready(palace)
        if ready is not None:
            return ready
        if open_meanwhile and not self._opening.locked():
            threading.Thread(
                target=self._open_quietly, args=(palace,), name="curator-open", daemon=True
            ).start()
        lexical = self._lexical
        if lexical is None or lexical.palace is not palace:
            from curator.search.searcher import Searcher

            lexical = self._lexical = Searcher.over_palace(palace)
        return lexical

    def _open_quietly(self, palace: Palace) -> None:
        if not self._opening.acquire(blocking=False):
            return  # another thread opens it
        try:
            self.searcher(palace)
        except Exception:  # a tool that needs the index reports it
            pass
        finally:
            self._opening.release()

    @property
    def follows_later(self) -> bool:
        """A commit now leaves the index to `Session.follow_index` (`later`, no index open),
        which reads the files the commit wrote: the palace after it is of no use here."""
        store = self._store
        return self._later and (store is None or not store.ready)

    def committed(self, root: Path, after: Palace | None, changed: list[str]) -> None:
        """After a commit (under the writer lock): the open index follows the palace it left.
        Not under `lock`: a commit never waits for a sync or a query (the store's own writes
        are atomic, and a sync that follows finds the commit done)."""
        from curator.search.hooks import sync_after_commit

        store = self._store
        if self.follows_later:
            self.pending = [*(self.pending or ()), *changed]
            return
        sync_after_commit(root, after, changed, store=store if store and store.ready else None)
        searcher = self._searcher
        if after is None or searcher is None or store is None or not store.ready:
            return
        if self._generations.newer(after, searcher.palace):
            searcher.palace = after

    def _run_child(self, root: Path, rebuild: bool, progress: Progress | None) -> SyncStats:
        from curator.search.indexjob import run_child

        return run_child(root, rebuild, progress, self._started)

    def _started(self, proc: subprocess.Popen[str]) -> None:
        self._child = proc

    def stop(self) -> None:
        """Stop a running index job (the index switches over atomically, so an unfinished
        build leaves the previous one in place; the next sync finishes the work)."""
        child, self._child = self._child, None
        if child is not None and child.poll() is None:
            child.terminate()
