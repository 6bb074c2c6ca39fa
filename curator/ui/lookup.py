"""Search hits and duplicate candidates for the app, from `curator.search`.

One `SearchSession` per app holds one `Searcher` across palace reloads: a reload syncs the
index incrementally instead of opening a new searcher that re-syncs and reloads its snapshot.
Call it from worker threads only: the first call imports LanceDB (about a second) and may
build the index.
"""

from __future__ import annotations

import itertools
import subprocess
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator.model.note import Note
from curator.model.palace import Palace
from curator.ui.indexjob import run_child

if TYPE_CHECKING:
    from curator.search.query import Searcher
    from curator.search.store import IndexStore, SyncStats

# (done, total) while the index embeds notes; total is the number of notes to embed.
Progress = Callable[[int, int], None]

EMBED_CHUNK = 500  # texts embedded per progress step
_BULK = 64  # fewer texts than this is a query, not an index build: no progress


@dataclass(frozen=True)
class Found:
    path: str
    name: str
    type: str
    score: float
    snippet: str
    spans: tuple[tuple[int, int], ...] = ()


class _ChunkedEmbedder:
    """The store's embedder, embedding bulk work in chunks and reporting the running count
    (the store may call it several times per build, in batches)."""

    def __init__(self, inner: Any, progress: Progress, total: int) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.progress = progress
        self.total = total
        self.done = 0

    def embed(self, texts: list[str]) -> Any:
        if len(texts) < _BULK:
            return self.inner.embed(texts)
        import numpy as np

        parts = []
        for start in range(0, len(texts), EMBED_CHUNK):
            chunk = texts[start : start + EMBED_CHUNK]
            parts.append(self.inner.embed(chunk))
            self.done += len(chunk)
            self.progress(self.done, max(self.total, self.done))
        return np.concatenate(parts)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@contextmanager
def reporting(store: IndexStore, palace: Palace, progress: Progress | None) -> Iterator[None]:
    """Report embedding progress of a sync or rebuild of `store` (the embedder's results are
    unchanged: the same model, name and dim, in chunks)."""
    if progress is None:
        yield
        return
    inner = store.embedder
    store.embedder = _ChunkedEmbedder(inner, progress, sum(1 for n in palace.all() if n.ok))
    try:
        yield
    finally:
        store.embedder = inner


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
            store = open_index(palace)
            built = None
            if not store.ready:  # the first build: in a child process
                built = run_child(palace.root, False, progress, self._started)
                store = open_index(palace)  # reopened: state.json changed
            searcher = self._searcher
            if searcher is None or searcher.store is not store:
                with reporting(store, palace, progress):
                    searcher = Searcher(palace)
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
        hits = self.searcher(palace).search(text, limit=limit, **filters)
        return [Found(h.path, h.name, h.type, h.score, h.snippet, tuple(h.spans)) for h in hits]

    def dupes(self, palace: Palace, draft: Note, limit: int = 5) -> list[Found]:
        found = self.searcher(palace).dupes(draft.rel, limit=limit + 3)
        return [Found(c.path, c.name, c.type, c.score, "") for c in found if c.kind == "note"][
            :limit
        ]


_SESSIONS: dict[str, SearchSession] = {}
_SESSIONS_LOCK = threading.Lock()


def session_for(root: Path) -> SearchSession:
    """The search session of the palace at `root` (one per palace per process)."""
    key = str(Path(root).resolve())
    with _SESSIONS_LOCK:
        return _SESSIONS.setdefault(key, SearchSession())


def search(palace: Palace, text: str, filters: dict[str, Any], limit: int = 30) -> list[Found]:
    return session_for(palace.root).search(palace, text, filters, limit)


def dupes(palace: Palace, draft: Note, limit: int = 5) -> list[Found]:
    return session_for(palace.root).dupes(palace, draft, limit)
