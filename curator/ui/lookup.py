"""Search hits and duplicate candidates for the app, from `curator.search`.

The app holds one `SearchSession` (nothing here is process-wide) and passes it to its screens:
it keeps one `Searcher` across palace reloads, so a reload syncs the index incrementally
instead of opening a new searcher and store. Call it from worker threads only: the first call
imports LanceDB (about a second) and may build the index.
"""

from __future__ import annotations

import itertools
import subprocess
import threading
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from curator.model.note import Note
from curator.model.palace import Palace
from curator.search.progress import Progress, reporting
from curator.search.request import SearchRequest
from curator.search.values import DraftGroup
from curator.ui.indexjob import run_child

if TYPE_CHECKING:
    from curator.search.query import Searcher
    from curator.search.store import SyncStats


@dataclass(frozen=True)
class Found:
    path: str
    name: str
    type: str
    score: float
    snippet: str
    spans: tuple[tuple[int, int], ...] = ()


class SearchSession:
    """One palace's searcher, kept across palace reloads and synced incrementally.

    Palace objects are numbered as they arrive; a call with a palace older than the one the
    index was last synced to uses the newer one rather than syncing back."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._searcher: Searcher | None = None
        self._order: weakref.WeakKeyDictionary[Palace, int] = weakref.WeakKeyDictionary()
        self._count = itertools.count()
        self._child: subprocess.Popen[str] | None = None

    @property
    def ready(self) -> bool:
        return self._searcher is not None

    @property
    def store(self) -> Any | None:
        """The open index store, for a commit to update in the writer lock (None: not yet)."""
        searcher = self._searcher
        return searcher.store if searcher is not None else None

    def _started(self, proc: subprocess.Popen[str]) -> None:
        self._child = proc

    def stop(self) -> None:
        """Stop a running index job (the index switches over atomically, so an unfinished
        build leaves the previous one in place; the next sync finishes the work)."""
        child, self._child = self._child, None
        if child is not None and child.poll() is None:
            child.terminate()

    def _number(self, palace: Palace) -> int:
        with self._lock:
            if palace not in self._order:
                self._order[palace] = next(self._count)
            return self._order[palace]

    def sync(self, palace: Palace, progress: Progress | None = None) -> SyncStats | None:
        """Bring the index in line with `palace` (the first call may build it); None when it
        already is, or when a newer palace was synced since."""
        from curator.search.index import open_index, sync_index
        from curator.search.query import Searcher

        number = self._number(palace)
        with self._lock:
            searcher = self._searcher
            store = searcher.store if searcher is not None else open_index(palace)
            built = None
            if not store.ready:  # the first build: in a child process (the store follows it)
                built = run_child(palace.root, False, progress, self._started)
            if searcher is None:
                with reporting(store, palace, progress):
                    searcher = Searcher(palace, index=store)
                self._searcher = searcher
                return built or searcher.sync_stats
            if self._order.get(searcher.palace, -1) >= number:
                return None
            with reporting(store, palace, progress):
                stats = sync_index(palace, store=store)
            searcher.palace = palace
            return stats

    def reindex(self, palace: Palace, progress: Progress | None = None) -> SyncStats:
        """Rebuild the index from scratch in a child process; searches go on meanwhile over
        the old table and follow the new one once it is switched in."""
        self._number(palace)
        stats = run_child(palace.root, True, progress, self._started)
        with self._lock:
            self.sync(palace)
        return stats

    def searcher(self, palace: Palace) -> Searcher:
        """The searcher, synced to `palace` first when it is newer than the index."""
        searcher = self._searcher
        if searcher is None or self._number(palace) > self._order.get(searcher.palace, -1):
            self.sync(palace)
            searcher = self._searcher
        assert searcher is not None
        return searcher

    def search(
        self, palace: Palace, text: str, filters: dict[str, Any], limit: int = 30
    ) -> list[Found]:
        request = SearchRequest.of(palace, text, limit=limit, **filters)
        hits = self.searcher(palace).run(request)
        return [Found(h.path, h.name, h.type, h.score, h.snippet, tuple(h.spans)) for h in hits]

    def groups(self, palace: Palace) -> list[DraftGroup]:
        """The inbox's drafts grouped by near-duplicate and by the note they are most like."""
        return self.searcher(palace).draft_groups()

    def dupes(self, palace: Palace, draft: Note, limit: int = 5) -> list[Found]:
        found = self.searcher(palace).dupes(draft.rel, limit=limit + 3)
        return [Found(c.path, c.name, c.type, c.score, "") for c in found if c.kind == "note"][
            :limit
        ]
