"""The derived search index: one LanceDB table of notes and drafts under `.curator/index/`.

Files are the truth; this index can always be rebuilt from them. Layout of `index_dir`:

- `state.json`   which table is current (see `curator.search.state`); readers follow it.
- `docs_*.lance` LanceDB tables; only the one named in state.json is live.
- `.gitignore`   "*", so the index never ends up in the palace's git history.

This module opens and reads the index; writing (sync, rebuild) is in `curator.search.writes`.
An index that cannot be read (zero-byte state.json, truncated Lance manifest, garbage) is moved
aside to `<index_dir>.corrupt-<timestamp>/` (only the newest such copy is kept) and rebuilt by
the next sync; queries on a missing index raise `IndexUnavailable` instead of crashing.

A store follows state.json: when another process has synced or rebuilt the index since the
store last read it (its mtime, size or inode changed), the next read reopens the table it names.
The caller holds its store (a `curator.session.Session` keeps one); nothing is cached per process.

One writer at a time is enforced by the curator writer lock; within a process, an RLock keeps a
UI worker thread and the main thread from tripping over each other. lancedb is imported lazily.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import re
import shutil
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from curator.fsutil import atomic_write
from curator.search.arrow import by_path
from curator.search.docs import DOC_COLUMNS
from curator.search.embed import Embedder
from curator.search.state import (
    SCHEMA_VERSION,
    STATE_FILE,
    DocsMismatch,
    EmptyIndexRefused,
    IndexState,
    IndexUnavailable,
    SearchIndexError,
    SyncStats,
    now,
    state_signature,
)
from curator.search.writes import IndexWrites, MakeDocs

if TYPE_CHECKING:
    import pyarrow as pa

log = logging.getLogger(__name__)

# Columns returned by queries unless asked otherwise (the vector and FTS text are left out).
RESULT_COLUMNS: tuple[str, ...] = tuple(c for c in DOC_COLUMNS if c not in ("text",))
META_COLUMNS: tuple[str, ...] = tuple(
    c for c in DOC_COLUMNS if c not in ("text", "body", "context")
)
WITH_VECTOR: tuple[str, ...] = (*RESULT_COLUMNS, "vector")  # result rows with their vector
MAX_ROWS = 1_000_000  # the most rows one query may ask for (LanceDB refuses absurd limits)

T = TypeVar("T")


_SWITCHES = 5  # state.json changes by other processes followed within one load


@dataclass
class _Live:
    state: IndexState
    table: Any  # lancedb Table


@dataclass
class IndexStore(IndexWrites):
    """The search index of one palace. Create with `IndexStore.open(index_dir, embedder)`."""

    index_dir: Path
    embedder: Embedder
    recovered: list[Path] = field(default_factory=list)  # dirs moved aside as corrupt
    _live: _Live | None = None
    _db: Any = None
    _lock: threading.RLock = field(default_factory=threading.RLock)
    _seen: tuple[int, int, int] | None = None  # the state.json the store last read or wrote

    # ---- opening

    @classmethod
    def open(cls, index_dir: Path | str, embedder: Embedder) -> IndexStore:
        """Open (or prepare) the index in `index_dir`. Never raises for a corrupt index: it is
        moved aside (see `recovered`) and the store reports `ready == False` until synced."""
        store = cls(Path(index_dir), embedder)
        with store._lock:
            store._prepare_dir()
            store._load()
        return store

    @property
    def ready(self) -> bool:
        """True when a table is open and was built with this store's embedder."""
        live = self._follow()
        return live is not None and self._matches_embedder(live.state)

    @property
    def state(self) -> IndexState | None:
        live = self._follow()
        return live.state if live else None

    def _follow(self) -> _Live | None:
        """The open table, reopened first when state.json changed since the store last read
        or wrote it (another process synced or rebuilt the index, or damaged or removed it)."""
        with self._lock:
            if state_signature(self.index_dir) != self._seen:
                self._load()
            return self._live

    def _matches_embedder(self, state: IndexState) -> bool:
        return (
            state.embedder == self.embedder.name
            and state.dim == self.embedder.dim
            and state.schema_version == SCHEMA_VERSION
        )

    def _prepare_dir(self) -> None:
        if self.index_dir.exists() and not self.index_dir.is_dir():
            raise SearchIndexError(
                "is not a folder, so the search index cannot live there: move or remove it",
                path=str(self.index_dir),
            )
        self.index_dir.mkdir(parents=True, exist_ok=True)
        ignore = self.index_dir / ".gitignore"
        if not ignore.exists():
            atomic_write(ignore, b"# derived search index: never commit\n*\n")

    def _connect(self) -> Any:
        if self._db is None:
            import lancedb

            self._db = lancedb.connect(str(self.index_dir))
        return self._db

    def _read_state(self) -> IndexState | None:
        """The state file, None when absent. Raises ValueError/OSError when unreadable."""
        path = self.index_dir / STATE_FILE
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        if not raw:
            raise ValueError("state.json is empty (zero bytes)")
        return IndexState.from_json(raw)

    def _load(self) -> None:
        """(Re)open the table named by state.json; quarantine the index if it is unreadable.

        A table that cannot be opened while state.json changed meanwhile is not damage:
        another process switched to a new table (a rebuild) and dropped the one read here, so
        the new state is read again instead of moving everyone's index aside."""
        self._live = None
        for _attempt in range(_SWITCHES):
            self._seen = seen = state_signature(self.index_dir)  # a later change reopens
            try:
                state = self._read_state()
            except (ValueError, OSError, UnicodeDecodeError) as exc:
                if state_signature(self.index_dir) != seen:
                    continue
                self._quarantine(f"unreadable {STATE_FILE}: {exc}")
                return
            if state is None or state.schema_version != SCHEMA_VERSION:
                return  # none yet, or of an older layout: the next sync rebuilds it
            try:
                table = self._open_table(state)
            except Exception as exc:  # lance raises RuntimeError/OSError/ValueError for bad files
                if state_signature(self.index_dir) != seen:
                    continue
                self._quarantine(f"table {state.table} unreadable: {exc}")
                return
            self._set_live(state, table)
            return
        # state.json kept changing under every attempt: leave it to the next call to follow

    def _set_live(self, state: IndexState, table: Any) -> None:
        if not isinstance(table, tuple(_SCHEMA_ONCE.values())):
            table.__class__ = _schema_once(type(table))
        self._live = _Live(state, table)

    def _open_table(self, state: IndexState) -> Any:
        table = self._connect().open_table(state.table)
        schema = table.schema
        names = [f.name for f in schema]
        if names != [*DOC_COLUMNS, "vector"]:
            raise ValueError(f"unexpected columns {names}")
        if schema.field("vector").type.list_size != state.dim:
            raise ValueError("vector width does not match state.json dim")
        table.search().select(["path"]).limit(1).to_arrow()  # probe: reads a data file
        return table

    def _quarantine(self, reason: str) -> Path | None:
        """Move the whole index dir aside and start an empty one. Never raises for I/O."""
        self._live = None
        self._db = None
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        target = self.index_dir.with_name(f"{self.index_dir.name}.corrupt-{stamp}")
        n = 1
        while target.exists():
            n += 1
            target = self.index_dir.with_name(f"{self.index_dir.name}.corrupt-{stamp}-{n}")
        log.warning("search index unreadable (%s); moving it aside to %s", reason, target)
        try:
            os.replace(self.index_dir, target)
            with contextlib.suppress(OSError):
                (target / "REASON.txt").write_text(f"{now()} {reason}\n", encoding="utf-8")
        except OSError as exc:
            log.error("could not move the corrupt index aside: %s", exc)
            return None
        finally:
            self._prepare_dir()
        self.recovered.append(target)
        self._drop_older_copies(keep=target)
        return target

    def _drop_older_copies(self, keep: Path) -> None:
        """Keep only the newest copy moved aside: each is a whole derived index, and the
        files are the truth (an index that broke again would otherwise pile up copies)."""
        for old in self.index_dir.parent.glob(f"{self.index_dir.name}.corrupt-*"):
            if old != keep and old.is_dir() and not old.is_symlink():
                shutil.rmtree(old, ignore_errors=True)

    # ---- reading

    def _with_table(self, fn: Callable[[Any], T]) -> T:
        """Run fn(table); on a read failure follow a switched state.json once, else quarantine."""
        with self._lock:
            live = self._follow()
            if live is None:
                raise IndexUnavailable(f"no search index in {self.index_dir}: run sync")
            try:
                return fn(live.table)
            except (SearchIndexError, ValueError):
                raise  # lance reports a bad query (e.g. where clause) as ValueError
            except Exception as exc:
                error: Exception = exc
            # Another process may have rebuilt and dropped our table: follow state.json once.
            self._load()
            if self._live is not None and self._live.state.table != live.state.table:
                try:
                    return fn(self._live.table)
                except SearchIndexError:
                    raise
                except Exception as exc:
                    error = exc
            if self._live is not None:
                self._quarantine(f"query failed on {self._live.state.table}: {error}")
            raise IndexUnavailable(
                f"search index was unreadable and moved aside ({error}); run sync"
            ) from error

    def count(self) -> int:
        return int(self._with_table(lambda t: t.count_rows()))

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

        return self._with_table(run)

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

        return self._with_table(run)

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
            from lancedb.rerankers import RRFReranker

            q = table.search(query_type="hybrid", vector_column_name="vector")
            q = q.vector(arr).text(" ".join(words)).distance_type("cosine")
            if where:
                q = q.where(where, prefilter=True)
            q = q.rerank(RRFReranker(return_score="all"))
            return rows_of(q.select(cols).limit(limit).to_arrow())

        return self._with_table(run)

    def embed_query(self, text: str) -> np.ndarray:
        """The embedding of a query text with this index's embedder."""
        return self.embedder.embed([text])[0]

    def all_docs_meta(self, where: str | None = None) -> list[dict[str, Any]]:
        """Every row's header fields (no body, text or vector), sorted by path."""

        def run(table: Any) -> list[dict[str, Any]]:
            q = table.search().select(list(META_COLUMNS))
            if where:
                q = q.where(where)
            rows = q.limit(None).to_arrow().sort_by("path").to_pylist()
            return list(rows)

        return self._with_table(run)

    def all_vectors(
        self, where: str | None = None, columns: Sequence[str] = RESULT_COLUMNS
    ) -> list[dict[str, Any]]:
        """Every row's `columns` (without `text` by default) and its `vector` (a numpy array),
        sorted by path."""
        cols = [*_checked_columns(columns), "vector"]

        def run(table: Any) -> list[dict[str, Any]]:
            q = table.search().select(cols)
            if where:
                q = q.where(where)
            return rows_of(by_path(q.limit(None).to_arrow()))

        return self._with_table(run)


_SCHEMA_ONCE: dict[type, type] = {}


def _schema_once(cls: type) -> type:
    """`cls` (LanceDB's table) with its schema read once per opened table: LanceDB reads it
    afresh from the dataset on each query it builds (three times per hybrid query), and a
    table curator opened keeps its columns for life (a rebuild writes a new table)."""
    found = _SCHEMA_ONCE.get(cls)
    if found is None:

        class SchemaOnce(cls):
            @functools.cached_property
            def schema(self) -> Any:
                return cls.schema.fget(self)  # type: ignore[attr-defined]

        SchemaOnce.__name__ = SchemaOnce.__qualname__ = f"SchemaOnce{cls.__name__}"
        found = _SCHEMA_ONCE[cls] = SchemaOnce
    return found


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
    allowed = set(DOC_COLUMNS) | {"vector"}
    bad = [c for c in columns if c not in allowed]
    if bad:
        raise ValueError(f"unknown index columns {bad}")
    return list(columns)


__all__ = [
    "META_COLUMNS",
    "RESULT_COLUMNS",
    "STATE_FILE",
    "WITH_VECTOR",
    "DocsMismatch",
    "EmptyIndexRefused",
    "IndexState",
    "IndexStore",
    "IndexUnavailable",
    "MakeDocs",
    "SearchIndexError",
    "SyncStats",
    "rows_of",
]
