"""Progress of an index build: the store's embedder wrapped to embed bulk work in chunks and
report the running count, for the app's progress bar and the CLI's stderr line alike."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from curator.model.palace import Palace
    from curator.search.store import IndexStore

# (done, total) while the index embeds notes; total is the number of notes to embed.
Progress = Callable[[int, int], None]

EMBED_CHUNK = 500  # texts embedded per progress step
_BULK = 64  # fewer texts than this is a query, not an index build: no progress


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
    total = sum(1 for n in palace.all() if n.ok) if progress is not None else 0
    with reporting_total(store, total, progress):
        yield


@contextmanager
def reporting_total(store: IndexStore, total: int, progress: Progress | None) -> Iterator[None]:
    """`reporting` of a build of `total` notes (read from their files as it goes)."""
    if progress is None:
        yield
        return
    inner = store.embedder
    store.tables.embedder = _ChunkedEmbedder(inner, progress, total)
    try:
        yield
    finally:
        store.tables.embedder = inner
