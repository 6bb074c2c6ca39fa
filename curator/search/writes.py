"""Writing the index: incremental sync and full rebuild (an `IndexStore`'s `writer`).

`sync()` is incremental: only docs whose content_hash changed are re-embedded, in one
merge_insert transaction, with one refresh of the indices (full text, and the bitmaps of the
filtered columns: `arrow.FILTERED`). `rebuild()` builds a new table, switches
state.json to it and drops the old one; readers never see a half-built table.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from curator.search.arrow import (
    FTS_INDEX,
    create_indices,
    index_names,
    release_arrow_memory,
    to_arrow,
)
from curator.search.docs import IndexDoc
from curator.search.embed import Embedder
from curator.search.filters import sql_str
from curator.search.state import (
    TABLE_PREFIX,
    DocsMismatch,
    EmptyIndexRefused,
    IndexState,
    SearchIndexError,
    SyncStats,
    now,
)
from curator.search.tables import IndexTables

log = logging.getLogger(__name__)

# Fold rows added since the last FTS build into the index once this many are pending (until then
# LanceDB searches them by a flat scan, which is exact but slower).
FTS_REFRESH_PENDING = 256
EMBED_BATCH = 4096  # docs embedded per call
REBUILD_BATCH = 16384  # docs written per batch by a rebuild
_OLD_VERSIONS_KEEP = timedelta(minutes=10)

# Builds the docs of the given paths, in that order (see IndexWriter.sync_hashes).
MakeDocs = Callable[[Sequence[str]], Sequence[IndexDoc]]


@dataclass
class IndexWriter:
    """Writes the tables of one index folder (the reads share them: `IndexStore.tables`)."""

    tables: IndexTables

    @property
    def embedder(self) -> Embedder:
        return self.tables.embedder

    def sync(
        self, docs: Sequence[IndexDoc], commit: str | None, *, allow_empty: bool = False
    ) -> SyncStats:
        """Bring the index in line with `docs`: re-embed only changed docs, drop removed ones.
        Rebuilds from scratch when there is no usable index or the embedder changed."""
        by_path = _unique(docs)
        return self.sync_hashes(
            {p: d.content_hash for p, d in by_path.items()},
            _docs_of(by_path),
            commit,
            allow_empty=allow_empty,
        )

    def sync_hashes(
        self,
        hashes: Mapping[str, str],
        make: MakeDocs,
        commit: str | None,
        *,
        allow_empty: bool = False,
    ) -> SyncStats:
        """`sync` given only every doc's path and content hash; `make(paths)` builds the docs
        of those paths when they must be written (only the changed ones, or one rebuild batch
        at a time), so the whole palace's texts are never held at once."""
        t0 = time.perf_counter()
        with self.tables.lock:
            live = self.tables.follow()  # another process may have synced or rebuilt it since
            if live is None:
                why = "recovered from a corrupt index" if self.tables.recovered else "no index yet"
                return self._rebuild(hashes, make, commit, t0, why, allow_empty)
            if not self.tables.matches_embedder(live.state):
                why = (
                    f"embedder changed ({live.state.embedder}/{live.state.dim} -> "
                    f"{self.embedder.name}/{self.embedder.dim})"
                )
                return self._rebuild(hashes, make, commit, t0, why, allow_empty)
            try:
                return self._sync_incremental(live, hashes, make, commit, t0, allow_empty)
            except SearchIndexError:
                raise
            except Exception as exc:  # unreadable table: move aside, build anew
                self.tables.quarantine(f"sync failed on {live.state.table}: {exc}")
                why = f"index unreadable: {exc}"
                return self._rebuild(hashes, make, commit, t0, why, allow_empty)

    def rebuild(
        self, docs: Sequence[IndexDoc], commit: str | None, *, allow_empty: bool = False
    ) -> SyncStats:
        """Build a new table from `docs`, switch state.json to it, drop the old table."""
        by_path = _unique(docs)
        hashes = {p: d.content_hash for p, d in by_path.items()}
        return self.rebuild_hashes(hashes, _docs_of(by_path), commit, allow_empty=allow_empty)

    def rebuild_hashes(
        self,
        hashes: Mapping[str, str],
        make: MakeDocs,
        commit: str | None,
        *,
        allow_empty: bool = False,
    ) -> SyncStats:
        """`rebuild` given every doc's path and content hash (see `sync_hashes`)."""
        t0 = time.perf_counter()
        with self.tables.lock:
            self.tables.follow()
            return self._rebuild(hashes, make, commit, t0, "requested", allow_empty)

    def _refuse_empty(self, count: int, allow_empty: bool) -> None:
        live = self.tables.live
        if not count and not allow_empty and live is not None and live.state.doc_count > 0:
            raise EmptyIndexRefused(
                f"refusing to replace a search index of {live.state.doc_count} docs with an "
                "empty one (the caller found no notes?); pass allow_empty=True if intended"
            )

    def _sync_incremental(
        self,
        live: Any,
        hashes: Mapping[str, str],
        make: MakeDocs,
        commit: str | None,
        t0: float,
        allow_empty: bool,
        held: dict[str, str] | None = None,
    ) -> SyncStats:
        """`held`: the table's content hashes by path, when the caller read them already."""
        self._refuse_empty(len(hashes), allow_empty)
        old = held if held is not None else _held(live.table)
        changed_paths = [p for p, h in hashes.items() if old.get(p) != h]
        added = sum(1 for p in changed_paths if p not in old)
        removed = sorted(p for p in old if p not in hashes)
        self._change_rows(live, changed_paths, make, hashes, removed, len(hashes), commit)
        return SyncStats(
            added=added,
            updated=len(changed_paths) - added,
            removed=len(removed),
            unchanged=len(hashes) - len(changed_paths),
            seconds=time.perf_counter() - t0,
        )

    def _change_rows(
        self,
        live: Any,
        changed_paths: Sequence[str],
        make: MakeDocs,
        hashes: Mapping[str, str],
        removed: Sequence[str],
        count: int,
        commit: str | None,
    ) -> None:
        """Write the docs of `changed_paths` (made by `make`, checked against `hashes`) and
        delete the rows of `removed` in the live table, which then holds `count` rows at
        `commit`; state.json names the table's new version."""
        table = live.table
        if changed_paths or removed:
            for start in range(0, max(len(changed_paths), 1), REBUILD_BATCH):
                batch = changed_paths[start : start + REBUILD_BATCH]
                changed = _made(make, batch, hashes)
                self._write_changes(table, changed, list(removed) if start == 0 else [])
            self._refresh_indices(table)
            release_arrow_memory()
        else:
            self._add_missing_indices(table)
        if changed_paths or removed or live.state.commit != commit or live.state.doc_count != count:
            state = IndexState(
                live.state.table, self.embedder.name, self.embedder.dim, commit, count, now()
            )
            self.tables.switch(state, table)

    def _write_changes(self, table: Any, changed: list[IndexDoc], removed: list[str]) -> None:
        gone = f"path IN ({', '.join(sql_str(p) for p in removed)})" if removed else None
        if not changed:
            if gone is not None:
                table.delete(gone)
            return
        data = to_arrow(changed, self._embed(changed), self.embedder.dim)
        merge = table.merge_insert("path").when_matched_update_all().when_not_matched_insert_all()
        if gone is not None:
            merge = merge.when_not_matched_by_source_delete(gone)
        merge.execute(data)

    def _refresh_indices(self, table: Any) -> None:
        """Fold pending rows into the indices once enough are pending; prune old versions."""
        if self._add_missing_indices(table):
            return
        stats = table.index_stats(FTS_INDEX)
        if stats is not None and stats.num_unindexed_rows >= FTS_REFRESH_PENDING:
            table.optimize(cleanup_older_than=_OLD_VERSIONS_KEEP)  # every index, one pass

    def _add_missing_indices(self, table: Any) -> bool:
        """Build the indices the table lacks (a table written before an index existed gains it
        at its next sync, without a rebuild); whether any was missing."""
        have = {index.name for index in table.list_indices()}
        if have.issuperset(index_names()):
            return False
        create_indices(table, have)
        return True

    def _embed(self, docs: Sequence[IndexDoc]) -> np.ndarray:
        # In batches: an embedder's working memory grows with its input (100k docs at once
        # would hold every distinct word's tokens and the whole batch's buffers).
        parts = [
            self.embedder.embed([d.text for d in docs[i : i + EMBED_BATCH]])
            for i in range(0, len(docs), EMBED_BATCH)
        ]
        vectors = (
            np.concatenate(parts) if parts else np.zeros((0, self.embedder.dim), dtype=np.float32)
        )
        if vectors.shape != (len(docs), self.embedder.dim):
            raise ValueError(
                f"embedder {self.embedder.name} returned shape {vectors.shape}, "
                f"expected {(len(docs), self.embedder.dim)}"
            )
        return vectors

    def _rebuild(
        self,
        hashes: Mapping[str, str],
        make: MakeDocs,
        commit: str | None,
        t0: float,
        reason: str,
        allow_empty: bool,
    ) -> SyncStats:
        self._refuse_empty(len(hashes), allow_empty)
        paths = sorted(hashes)
        batches = (
            _made(make, paths[start : start + REBUILD_BATCH], hashes)
            for start in range(0, max(len(paths), 1), REBUILD_BATCH)
        )
        return self._build(batches, commit, t0, reason, allow_empty)

    def rebuild_stream(
        self, batches: Iterable[Sequence[IndexDoc]], commit: str | None, *, allow_empty: bool
    ) -> SyncStats:
        """`rebuild` from docs made a batch at a time as the build asks for them (read from
        their files: `curator.search.catchup.reindex_files`), so that only one batch's texts
        are ever held; paths must come sorted and once each."""
        t0 = time.perf_counter()
        with self.tables.lock:
            self.tables.follow()
            return self._build(iter(batches), commit, t0, "requested", allow_empty)

    def _build(
        self,
        batches: Iterator[Sequence[IndexDoc]],
        commit: str | None,
        t0: float,
        reason: str,
        allow_empty: bool,
    ) -> SyncStats:
        dim = self.embedder.dim
        # Written in batches, each batch's docs made only when it is written, so that only one
        # batch's texts, Arrow columns and vectors are held at a time; readers never see this
        # table until state.json switches to it below.
        first = list(next(batches, []))
        count = len(first)
        data = to_arrow(first, self._embed(first), dim)
        del first
        db = self.tables.connect()
        name = f"{TABLE_PREFIX}{datetime.now(UTC):%Y%m%d%H%M%S}_{uuid.uuid4().hex[:8]}"
        table = db.create_table(name, data=data, schema=data.schema, mode="create")
        del data
        for chunk in batches:
            if chunk:
                table.add(to_arrow(chunk, self._embed(chunk), dim))
                count += len(chunk)
            del chunk
        try:
            self._refuse_empty(count, allow_empty)
        except EmptyIndexRefused:
            db.drop_table(name)
            raise
        create_indices(table)
        release_arrow_memory()
        state = IndexState(name, self.embedder.name, self.embedder.dim, commit, count, now())
        self.tables.switch(state, table)  # the switch-over: readers now follow the new table
        self.tables.drop_tables_except(name)
        return SyncStats(
            added=count,
            updated=0,
            removed=0,
            unchanged=0,
            seconds=time.perf_counter() - t0,
            rebuilt=True,
            reason=reason,
        )

    def sync_changes(
        self,
        changed: Sequence[IndexDoc],
        parsed: Collection[str],
        commit: str | None,
        *,
        allow_empty: bool,
    ) -> SyncStats | None:
        """The index brought in line given only what changed: `changed`, the docs of the
        files read again (one unchanged since is left as it is), and `parsed`, the path of
        every file that has a row now; any other row goes. None, having written nothing,
        when there is no usable index to change or it lacks the row of a file not read again
        (the caller then syncs from the whole palace)."""
        t0 = time.perf_counter()
        with self.tables.lock:
            live = self.tables.follow()
            if live is None or not self.tables.matches_embedder(live.state):
                return None
            held = _held(live.table)
            by_path = _unique(changed)
            if any(p not in held and p not in by_path for p in parsed):
                return None
            kept = {p: h for p, h in held.items() if p in parsed}
            kept.update((p, d.content_hash) for p, d in by_path.items())
            make = _docs_of(by_path)
            return self._sync_incremental(live, kept, make, commit, t0, allow_empty, held)

    def sync_known(
        self,
        seen: tuple[int, int, int] | None,
        changed: Sequence[IndexDoc],
        removed: Collection[str],
        count: int,
        commit: str | None,
        *,
        allow_empty: bool,
    ) -> SyncStats | None:
        """The index brought in line by a caller that knows every row of the table (the
        record of files kept with the write of state.json it `seen`): `changed`, the docs
        whose row is new or holds other bytes, `removed`, the paths whose row goes, `count`,
        the rows the table holds after. No row is read (at 100k notes, reading every row's
        hash to find the one a commit changed cost more than writing it). None, having
        written nothing, when the table is no longer that write's (another process synced
        since) or cannot be used: the caller then syncs by `sync_changes`."""
        t0 = time.perf_counter()
        with self.tables.lock:
            live = self.tables.follow()
            if (
                live is None
                or seen is None
                or self.tables.seen != seen
                or not self.tables.matches_embedder(live.state)
            ):
                return None
            self._refuse_empty(count, allow_empty)
            by_path = _unique(changed)
            gone = sorted(set(removed).difference(by_path))
            added = count - live.state.doc_count + len(gone)  # the rows before: doc_count
            hashes = {p: d.content_hash for p, d in by_path.items()}
            self._change_rows(live, list(by_path), _docs_of(by_path), hashes, gone, count, commit)
            return SyncStats(
                added=added,
                updated=len(by_path) - added,
                removed=len(gone),
                unchanged=count - len(by_path),
                seconds=time.perf_counter() - t0,
            )


def _held(table: Any) -> dict[str, str]:
    """The content hash of every row of `table`, by path."""
    current = table.search().select(["path", "content_hash"]).limit(None).to_arrow()
    paths = current.column("path").to_pylist()
    return dict(zip(paths, current.column("content_hash").to_pylist(), strict=True))


def _docs_of(by_path: Mapping[str, IndexDoc]) -> MakeDocs:
    return lambda paths: [by_path[p] for p in paths]


def _made(make: MakeDocs, paths: Sequence[str], hashes: Mapping[str, str]) -> list[IndexDoc]:
    """`make(paths)`, checked: one doc per path, in order, with the promised content hash."""
    docs = list(make(paths)) if paths else []
    if [d.path for d in docs] != list(paths):
        raise DocsMismatch("the docs made for a sync do not match the paths asked for")
    for doc in docs:
        if doc.content_hash != hashes[doc.path]:
            raise DocsMismatch(f"doc {doc.path!r} changed while the index was being synced")
    return docs


def _unique(docs: Iterable[IndexDoc]) -> dict[str, IndexDoc]:
    by_path: dict[str, IndexDoc] = {}
    for doc in docs:
        if doc.path in by_path:
            raise ValueError(f"two index docs share the path {doc.path!r}")
        by_path[doc.path] = doc
    return by_path


__all__ = ["IndexWriter", "MakeDocs"]
