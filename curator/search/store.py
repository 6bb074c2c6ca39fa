"""The derived search index: one LanceDB table of notes and drafts under `.curator/index/`.

Files are the truth; this index can always be rebuilt from them. An `IndexStore` composes the
index folder's tables (`curator.search.tables`: state.json, following other processes, moving
a damaged index aside) with their writer (`curator.search.writes`: sync, rebuild) and reads
them here; queries on a missing index raise `IndexUnavailable` instead of crashing. The caller
holds its store (a `curator.session.Session` keeps one); nothing is cached per process.
One writer at a time is enforced by the curator writer lock. lancedb is imported lazily.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from curator.search.arrow import TABLE_COLUMNS, by_path
from curator.search.docs import DOC_COLUMNS
from curator.search.embed import Embedder
from curator.search.state import (
    STATE_FILE,
    DocsMismatch,
    EmptyIndexRefused,
    IndexState,
    IndexUnavailable,
    SearchIndexError,
    SyncStats,
)
from curator.search.tables import IndexTables
from curator.search.writes import IndexWriter, MakeDocs

if TYPE_CHECKING:
    import pyarrow as pa

log = logging.getLogger(__name__)

# Columns returned by queries unless asked otherwise (the vector and FTS text are left out).
RESULT_COLUMNS: tuple[str, ...] = tuple(c for c in DOC_COLUMNS if c not in ("text",))
WITH_VECTOR: tuple[str, ...] = (*RESULT_COLUMNS, "vector")  # result rows with their vector
MAX_ROWS = 1_000_000  # the most rows one query may ask for (LanceDB refuses absurd limits)


@dataclass
class IndexStore:
    """The search index of one palace. Create with `IndexStore.open(index_dir, embedder)`."""

    tables: IndexTables
    writer: IndexWriter  # sync and rebuild

    @classmethod
    def open(cls, index_dir: Path | str, embedder: Embedder) -> IndexStore:
        """Open (or prepare) the index in `index_dir`. Never raises for a corrupt index: it is
        moved aside (see `recovered`) and the store reports `ready == False` until synced."""
        tables = IndexTables.open(Path(index_dir), embedder)
        return cls(tables, IndexWriter(tables))

    @property
    def index_dir(self) -> Path:
        return self.tables.index_dir

    @property
    def embedder(self) -> Embedder:
        return self.tables.embedder

    @property
    def recovered(self) -> list[Path]:
        """Index folders moved aside as corrupt."""
        return self.tables.recovered

    @property
    def ready(self) -> bool:
        """True when a table is open and was built with this store's embedder."""
        live = self.tables.follow()
        return live is not None and self.tables.matches_embedder(live.state)

    @property
    def state(self) -> IndexState | None:
        live = self.tables.follow()
        return live.state if live else None

    # ---- reading

    def count(self) -> int:
        return int(self.tables.read(lambda t: t.count_rows()))

    def fts(
        self,
        query: str,
        limit: int = 20,
        where: str | None = None,
        columns: Sequence[str] = RESULT_COLUMNS,
    ) -> list[dict[str, Any]]:
        """Full-text (BM25) matches of `query`, best first; rows carry `_score` (higher=better)
        and, when `columns` name it, `vector` as a numpy array."""
        words = _fts_words(query)
        if not words or _checked_limit(limit) == 0:
            return []
        cols = _checked_columns(columns)

        def run(table: Any) -> list[dict[str, Any]]:
            q = table.search(" ".join(words), query_type="fts")
            if where:
                q = q.where(where, prefilter=True)
            return rows_of(q.select([*cols, "_score"]).limit(limit).to_arrow())

        return self.tables.read(run)

    def vector(
        self,
        vec: Sequence[float] | np.ndarray,
        limit: int = 20,
        where: str | None = None,
        columns: Sequence[str] = RESULT_COLUMNS,
    ) -> list[dict[str, Any]]:
        """Nearest docs by cosine distance, best first; rows carry `_distance` (lower=better)
        and `similarity` = 1 - distance (and `vector`, as for `fts`). A zero vector matches
        nothing. LanceDB compares the query with every row passing `where` (the table has no
        approximate vector index), so the nearest rows are exact."""
        arr = np.asarray(vec, dtype=np.float32).reshape(-1)
        if _checked_limit(limit) == 0 or not np.any(arr):
            return []
        if arr.shape[0] != self.embedder.dim:
            raise ValueError(f"query vector has {arr.shape[0]} dims, index has {self.embedder.dim}")
        cols = _checked_columns(columns)

        def run(table: Any) -> list[dict[str, Any]]:
            q = table.search(arr, vector_column_name="vector").distance_type("cosine")
            if where:
                q = q.where(where, prefilter=True)
            rows = rows_of(q.select([*cols, "_distance"]).limit(limit).to_arrow())
            for row in rows:
                row["similarity"] = 1.0 - float(row["_distance"])
            return rows

        return self.tables.read(run)

    def hybrid(
        self,
        text: str,
        vec: Sequence[float] | np.ndarray,
        limit: int = 20,
        where: str | None = None,
        columns: Sequence[str] = RESULT_COLUMNS,
    ) -> list[dict[str, Any]]:
        """The full-text matches of `text` and the nearest docs to `vec` in one LanceDB hybrid
        query (both legs run side by side, each taking `limit` rows; the union fused by
        reciprocal rank and cut at `limit`). Each row carries `_score` (BM25, None when only
        the vector leg found it), `_distance` (cosine, None when only the full-text leg found
        it) and `_relevance_score` (the fusion). With no words or a zero vector, the one leg
        that can run."""
        arr = np.asarray(vec, dtype=np.float32).reshape(-1)
        words = _fts_words(text)
        if not words:
            return self.vector(arr, limit, where, columns)
        if not np.any(arr):
            return self.fts(text, limit, where, columns)
        if _checked_limit(limit) == 0:
            return []
        if arr.shape[0] != self.embedder.dim:
            raise ValueError(f"query vector has {arr.shape[0]} dims, index has {self.embedder.dim}")
        cols = _checked_columns(columns)

        def run(table: Any) -> list[dict[str, Any]]:
            inner = _async_table(table)
            if inner is None:
                return rows_of(synchronous_hybrid(table, arr, words, limit, where, cols))
            from lancedb.background_loop import LOOP
            from lancedb.rerankers import RRFReranker

            q = inner.query().nearest_to(arr).column("vector")
            q = q.distance_type("cosine").nearest_to_text(" ".join(words))
            if where:
                q = q.where(where)  # before both legs (a prefilter)
            q = q.rerank(RRFReranker(return_score="all")).select(cols).limit(limit)
            return rows_of(LOOP.run(q.with_row_id().to_arrow()))

        return self.tables.read(run)

    def take(self, row_ids: Sequence[int], columns: Sequence[str]) -> list[dict[str, Any]]:
        """The rows of `row_ids` (the `_rowid` a query's rows carry: of the table as it was
        read then; a rebuild since gives other rows, so a caller matches what it takes by
        path), `columns` of each, in no particular order."""
        cols = _checked_columns(columns)
        ids = [int(i) for i in row_ids]
        if not ids:
            return []
        return self.tables.read(lambda t: rows_of(t.take_row_ids(ids).select(cols).to_arrow()))

    def embed_query(self, text: str) -> np.ndarray:
        """The embedding of a query text with this index's embedder."""
        return self.embedder.embed([text])[0]

    def columns(self, names: Sequence[str], where: str | None = None) -> pa.Table:
        """Every row's (passing `where`) `names` columns (`path` among them) as one Arrow
        table in path order: what a query that reads no palace needs of every note
        (`curator.search.cold`)."""
        cols = _checked_columns(names)

        def run(table: Any) -> pa.Table:
            q = table.search().select(cols)
            if where:
                q = q.where(where)
            return by_path(q.limit(None).to_arrow())

        return self.tables.read(run)

    def scan(self, names: Sequence[str], size: int, each: Callable[[pa.RecordBatch], bool]) -> bool:
        """Every row's `names` columns handed to `each` `size` rows at a time, as the table is
        read (one batch held, not the table: a scan of a large index's text columns would
        otherwise hold them all at once), until `each` returns False; whether every row was
        handed over. The table stays locked meanwhile: a query waits for the batch at hand."""
        cols = _checked_columns(names)

        def run(table: Any) -> bool:
            return all(map(each, table.search().select(cols).limit(None).to_batches(size)))

        return self.tables.read(run)

    def all_rows(
        self, where: str | None = None, columns: Sequence[str] = WITH_VECTOR
    ) -> list[dict[str, Any]]:
        """`columns` as row dicts (by default all but `text`, with the `vector` as a numpy
        array)."""
        return rows_of(self.columns(columns, where))


def _async_table(table: Any) -> Any | None:
    """The asynchronous face of LanceDB's table `table` (the very table, not another handle
    on it: what a writer added is read), or None where this LanceDB keeps none there. Its
    hybrid query runs both legs together on LanceDB's own event loop, where the synchronous
    one starts and joins a pool of two threads for each query (a few ms of hand-offs on a
    busy machine, and its tail): the same rows, fused by the same code."""
    from lancedb.table import AsyncTable

    inner = getattr(table, "_table", None)
    return inner if isinstance(inner, AsyncTable) else None


def synchronous_hybrid(
    table: Any,
    vec: np.ndarray,
    words: Sequence[str],
    limit: int,
    where: str | None,
    columns: Sequence[str],
) -> pa.Table:
    """`IndexStore.hybrid`'s query on LanceDB's synchronous API: what runs where the table
    has no asynchronous face (a LanceDB that keeps it elsewhere), the same rows and scores."""
    from lancedb.rerankers import RRFReranker

    q = table.search(query_type="hybrid", vector_column_name="vector")
    q = q.vector(vec).text(" ".join(words)).distance_type("cosine")
    if where:
        q = q.where(where, prefilter=True)
    q = q.rerank(RRFReranker(return_score="all")).select(list(columns))
    return q.limit(limit).with_row_id(True).to_arrow()


def rows_of(data: pa.Table) -> list[dict[str, Any]]:
    """An Arrow result as row dicts, a `vector` column as one float32 numpy array per row."""
    if "vector" not in data.column_names:
        return list(data.to_pylist())
    rows = data.drop_columns(["vector"]).to_pylist()
    if rows:
        flat = data.column("vector").combine_chunks().flatten().to_numpy()
        vectors = np.asarray(flat, dtype=np.float32).reshape(len(rows), -1)
        for row, vec in zip(rows, vectors, strict=True):
            row["vector"] = vec
    return list(rows)


_FTS_WORD = re.compile(r"\w+", re.UNICODE)


def _fts_words(query: str) -> list[str]:
    """The plain words of a user query: FTS receives words only, never query syntax."""
    return _FTS_WORD.findall(query or "")


def _checked_limit(limit: object) -> int:
    """A row count for LanceDB: negative means none; more than MAX_ROWS (or not a whole
    number) is the caller's error, raised before the query (never taken for a broken index)."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit > MAX_ROWS:
        raise ValueError(f"row limit must be a whole number up to {MAX_ROWS}, got {limit!r}")
    return max(0, limit)


def _checked_columns(columns: Sequence[str]) -> list[str]:
    allowed = {*TABLE_COLUMNS, "vector"}
    bad = [c for c in columns if c not in allowed]
    if bad:
        raise ValueError(f"unknown index columns {bad}")
    return list(columns)


__all__ = [
    "RESULT_COLUMNS",
    "STATE_FILE",
    "WITH_VECTOR",
    "DocsMismatch",
    "EmptyIndexRefused",
    "IndexState",
    "IndexStore",
    "IndexUnavailable",
    "IndexWriter",
    "MakeDocs",
    "SearchIndexError",
    "SyncStats",
    "rows_of",
    "synchronous_hybrid",
]
