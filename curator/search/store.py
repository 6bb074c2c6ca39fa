"""The derived search index: one LanceDB table of notes and drafts under `.curator/index/`.

Files are the truth; this index can always be rebuilt from them. Layout of `index_dir`:

- `state.json`   which table is current, and the embedder, dim, git commit and doc count it
                 reflects; rewritten atomically (temp file, fsync, os.replace). Readers follow it.
- `docs_*.lance` LanceDB tables; only the one named in state.json is live.
- `.gitignore`   "*", so the index never ends up in the palace's git history.

`sync()` is incremental (only docs whose content_hash changed are re-embedded; one merge_insert
transaction; one FTS refresh). `rebuild()` builds a new table, switches state.json to it and drops
the old one. An index that cannot be read (zero-byte state.json, truncated Lance manifest,
garbage) is moved aside to `<index_dir>.corrupt-<timestamp>/` and rebuilt by the next sync; queries
on a missing index raise `IndexUnavailable` instead of crashing.

One writer at a time is enforced by the curator writer lock; within a process, an RLock keeps a
UI worker thread and the main thread from tripping over each other. lancedb is imported lazily.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import math
import os
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from curator.search.docs import DOC_COLUMNS, IndexDoc
from curator.search.embed import Embedder

if TYPE_CHECKING:
    import pyarrow as pa

log = logging.getLogger(__name__)

STATE_FILE = "state.json"
SCHEMA_VERSION = 1
TABLE_PREFIX = "docs_"
# Columns returned by queries unless asked otherwise (the vector and FTS text are left out).
RESULT_COLUMNS: tuple[str, ...] = tuple(c for c in DOC_COLUMNS if c not in ("text",))
META_COLUMNS: tuple[str, ...] = tuple(c for c in DOC_COLUMNS if c not in ("text", "body"))
# Fold rows added since the last FTS build into the index once this many are pending (until then
# LanceDB searches them by a flat scan, which is exact but slower).
FTS_REFRESH_PENDING = 256
EMBED_BATCH = 4096  # docs embedded per call
REBUILD_BATCH = 16384  # docs written per batch by a rebuild
_OLD_VERSIONS_KEEP = timedelta(minutes=10)

T = TypeVar("T")
# Builds the docs of the given paths, in that order (see IndexStore.sync_hashes).
MakeDocs = Callable[[Sequence[str]], Sequence[IndexDoc]]


class SearchIndexError(RuntimeError):
    """Base class of search-index errors."""


class IndexUnavailable(SearchIndexError):
    """There is no usable index (never built, or moved aside as corrupt): run sync()."""


class DocsMismatch(SearchIndexError, ValueError):
    """The docs made for a sync do not match the paths or content hashes it was given (the
    palace changed under the sync, or a caller bug); nothing was written for them."""


class EmptyIndexRefused(SearchIndexError):
    """Refusing to replace a non-empty index with an empty one (pass allow_empty=True)."""


@dataclass(frozen=True)
class SyncStats:
    added: int
    updated: int
    removed: int
    unchanged: int
    seconds: float
    rebuilt: bool = False
    reason: str = ""  # why a rebuild happened ("" for an incremental sync)


@dataclass(frozen=True)
class IndexState:
    table: str
    embedder: str
    dim: int
    commit: str | None
    doc_count: int
    updated: str
    schema_version: int = SCHEMA_VERSION

    @classmethod
    def from_json(cls, raw: bytes) -> IndexState:
        data = json.loads(raw.decode("utf-8"))
        if not isinstance(data, dict):
            raise ValueError("state.json is not an object")
        table, embedder, dim = data.get("table"), data.get("embedder"), data.get("dim")
        commit, count, updated = data.get("commit"), data.get("doc_count"), data.get("updated")
        version = data.get("schema_version")
        if not (isinstance(table, str) and re.fullmatch(rf"{TABLE_PREFIX}[A-Za-z0-9_]+", table)):
            raise ValueError(f"state.json: bad table name {table!r}")
        if not isinstance(embedder, str) or not embedder:
            raise ValueError("state.json: missing embedder")
        if not isinstance(dim, int) or isinstance(dim, bool) or dim <= 0:
            raise ValueError(f"state.json: bad dim {dim!r}")
        if commit is not None and not isinstance(commit, str):
            raise ValueError("state.json: bad commit")
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise ValueError("state.json: bad doc_count")
        if not isinstance(version, int) or isinstance(version, bool):
            raise ValueError("state.json: bad schema_version")
        return cls(table, embedder, dim, commit, count, str(updated or ""), version)


# --------------------------------------------------------------------------- filters (SQL)


def sql_str(value: str) -> str:
    """A SQL string literal: single quotes doubled; NUL refused."""
    text = str(value)
    if "\x00" in text:
        raise ValueError("filter values may not contain NUL characters")
    return "'" + text.replace("'", "''") + "'"


def _sql_in(column: str, values: Sequence[str]) -> str:
    assert column in _FILTER_COLUMNS, column  # allow-listed names only
    if len(values) == 1:
        return f"{column} = {sql_str(values[0])}"
    return f"{column} IN ({', '.join(sql_str(v) for v in values)})"


_FILTER_COLUMNS = frozenset({"type", "scope", "status", "kind", "path", "slug"})


@dataclass(frozen=True)
class Filters:
    """Structured search filters; every value is quoted by `where_sql`, never spliced raw.

    A sequence means "any of"; an empty sequence means "no constraint". `tags_all` requires
    every listed tag. Sensitive docs are excluded unless `include_sensitive` is set.
    """

    types: Sequence[str] = ()
    scopes: Sequence[str] = ()
    statuses: Sequence[str] = ()
    kinds: Sequence[str] = ()
    stale: bool | None = None
    min_confidence: float | None = None
    include_sensitive: bool = False
    tags_all: Sequence[str] = ()
    paths: Sequence[str] = ()


def _as_values(value: str | Sequence[str]) -> list[str]:
    return [value] if isinstance(value, str) else [str(v) for v in value]


def where_sql(filters: Filters | None = None) -> str | None:
    """A LanceDB (DataFusion SQL) prefilter for `filters`, or None when nothing is filtered."""
    f = filters or Filters()
    clauses: list[str] = []
    for column, values in (
        ("type", f.types),
        ("scope", f.scopes),
        ("status", f.statuses),
        ("kind", f.kinds),
        ("path", f.paths),
    ):
        vals = _as_values(values)
        if vals:
            clauses.append(_sql_in(column, vals))
    if f.stale is not None:
        clauses.append("stale = true" if f.stale else "stale = false")
    if f.min_confidence is not None:
        floor = float(f.min_confidence)
        if not math.isfinite(floor):
            raise ValueError(f"min_confidence must be a finite number, got {f.min_confidence!r}")
        clauses.append(f"confidence >= {floor!r}")
    if not f.include_sensitive:
        clauses.append("sensitive = false")
    for tag in _as_values(f.tags_all):
        clauses.append(f"array_has(tags, {sql_str(tag)})")
    return " AND ".join(f"({c})" for c in clauses) if clauses else None


# --------------------------------------------------------------------------- arrow


def doc_schema(dim: int) -> pa.Schema:
    import pyarrow as pa

    return pa.schema(
        [
            pa.field("path", pa.string(), nullable=False),
            pa.field("slug", pa.string()),
            pa.field("name", pa.string()),
            pa.field("description", pa.string()),
            pa.field("type", pa.string()),
            pa.field("scope", pa.string()),
            pa.field("status", pa.string()),
            pa.field("confidence", pa.float64()),
            pa.field("stale", pa.bool_()),
            pa.field("stale_reason", pa.string()),
            pa.field("sensitive", pa.bool_()),
            pa.field("tags", pa.list_(pa.string())),
            pa.field("created", pa.string()),
            pa.field("reviewed", pa.string()),
            pa.field("kind", pa.string()),
            pa.field("content_hash", pa.string()),
            pa.field("text", pa.string()),
            pa.field("body", pa.string()),
            pa.field("vector", pa.list_(pa.float32(), dim)),
        ]
    )


def _to_arrow(docs: Sequence[IndexDoc], vectors: np.ndarray, dim: int) -> pa.Table:
    import pyarrow as pa

    schema = doc_schema(dim)
    columns: dict[str, Any] = {
        name: [list(getattr(d, name)) if name == "tags" else getattr(d, name) for d in docs]
        for name in DOC_COLUMNS
    }
    flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1))
    arrays = [pa.array(columns[n], type=schema.field(n).type) for n in DOC_COLUMNS]
    arrays.append(pa.FixedSizeListArray.from_arrays(flat, dim))
    return pa.Table.from_arrays(arrays, schema=schema)


# --------------------------------------------------------------------------- files


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    with contextlib.suppress(OSError):  # make the rename itself durable
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# --------------------------------------------------------------------------- store


@dataclass
class _Live:
    state: IndexState
    table: Any  # lancedb Table


@dataclass
class IndexStore:
    """The search index of one palace. Create with `IndexStore.open(index_dir, embedder)`."""

    index_dir: Path
    embedder: Embedder
    recovered: list[Path] = field(default_factory=list)  # dirs moved aside as corrupt
    _live: _Live | None = None
    _db: Any = None
    _lock: threading.RLock = field(default_factory=threading.RLock)

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
        live = self._live
        return live is not None and self._matches_embedder(live.state)

    @property
    def state(self) -> IndexState | None:
        live = self._live
        return live.state if live else None

    def _matches_embedder(self, state: IndexState) -> bool:
        return (
            state.embedder == self.embedder.name
            and state.dim == self.embedder.dim
            and state.schema_version == SCHEMA_VERSION
        )

    def _prepare_dir(self) -> None:
        self.index_dir.mkdir(parents=True, exist_ok=True)
        ignore = self.index_dir / ".gitignore"
        if not ignore.exists():
            _write_atomic(ignore, b"# derived search index: never commit\n*\n")

    def _connect(self) -> Any:
        if self._db is None:
            self._db = import_lancedb().connect(str(self.index_dir))
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
        """(Re)open the table named by state.json; quarantine the index if it is unreadable."""
        self._live = None
        try:
            state = self._read_state()
        except (ValueError, OSError, UnicodeDecodeError) as exc:
            self._quarantine(f"unreadable {STATE_FILE}: {exc}")
            return
        if state is None:
            return
        try:
            table = self._open_table(state)
        except Exception as exc:  # lance raises RuntimeError/OSError/ValueError for bad files
            self._quarantine(f"table {state.table} unreadable: {exc}")
            return
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
                (target / "REASON.txt").write_text(f"{_now()} {reason}\n", encoding="utf-8")
        except OSError as exc:
            log.error("could not move the corrupt index aside: %s", exc)
            return None
        finally:
            self._prepare_dir()
        self.recovered.append(target)
        return target

    # ---- reading

    def _with_table(self, fn: Callable[[Any], T]) -> T:
        """Run fn(table); on a read failure follow a switched state.json once, else quarantine."""
        with self._lock:
            live = self._live
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
        """Full-text (BM25) matches of `query`, best first; rows carry `_score` (higher=better)."""
        words = _fts_words(query)
        if not words or limit <= 0:
            return []
        cols = _checked_columns(columns)

        def run(table: Any) -> list[dict[str, Any]]:
            q = table.search(" ".join(words), query_type="fts")
            if where:
                q = q.where(where, prefilter=True)
            return list(q.select([*cols, "_score"]).limit(limit).to_list())

        return self._with_table(run)

    def vector(
        self,
        vec: Sequence[float] | np.ndarray,
        limit: int = 20,
        where: str | None = None,
        columns: Sequence[str] = RESULT_COLUMNS,
    ) -> list[dict[str, Any]]:
        """Nearest docs by cosine distance, best first; rows carry `_distance` (lower=better)
        and `similarity` = 1 - distance. A zero vector matches nothing."""
        arr = np.asarray(vec, dtype=np.float32).reshape(-1)
        if limit <= 0 or not np.any(arr):
            return []
        if arr.shape[0] != self.embedder.dim:
            raise ValueError(f"query vector has {arr.shape[0]} dims, index has {self.embedder.dim}")
        cols = _checked_columns(columns)

        def run(table: Any) -> list[dict[str, Any]]:
            q = table.search(arr, vector_column_name="vector").distance_type("cosine")
            if where:
                q = q.where(where, prefilter=True)
            rows = list(q.select([*cols, "_distance"]).limit(limit).to_list())
            for row in rows:
                row["similarity"] = 1.0 - float(row["_distance"])
            return rows

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

    def all_vectors(self, where: str | None = None) -> list[dict[str, Any]]:
        """Every row's fields without `text` but with `vector` (a numpy array), sorted by path."""
        cols = [*RESULT_COLUMNS, "vector"]

        def run(table: Any) -> list[dict[str, Any]]:
            q = table.search().select(cols)
            if where:
                q = q.where(where)
            data = _by_path(q.limit(None).to_arrow())
            rows = data.drop_columns(["vector"]).to_pylist()
            if rows:
                flat = data.column("vector").combine_chunks().flatten().to_numpy()
                vectors = np.asarray(flat, dtype=np.float32).reshape(len(rows), -1)
                for row, vec in zip(rows, vectors, strict=True):
                    row["vector"] = vec
            return list(rows)

        return self._with_table(run)

    def meta_table(self) -> pa.Table:
        """Every row's header fields (no body, text or vector) as an Arrow table, by path."""
        return self._with_table(
            lambda t: _by_path(t.search().select(list(META_COLUMNS)).limit(None).to_arrow())
        )

    def all_vectors_matrix(self) -> tuple[list[str], np.ndarray]:
        """Every row's path and vector as one (n, dim) float32 matrix, sorted by path. Read
        batch by batch into one preallocated matrix: the Arrow copy of the whole vector column
        (as large as the matrix itself) is never held."""
        dim = self.embedder.dim

        def run(table: Any) -> tuple[list[str], np.ndarray]:
            total = int(table.count_rows())
            matrix = np.empty((total, dim), dtype=np.float32)
            paths: list[str] = []
            reader = table.search().select(["path", "vector"]).limit(None).to_batches()
            for batch in reader:
                n = batch.num_rows
                if len(paths) + n > total:  # rows added under us: grow (rare)
                    matrix = np.concatenate([matrix, np.empty((n, dim), dtype=np.float32)])
                    total += n
                vectors = batch.column(1)
                values = vectors.values.slice(vectors.offset * dim, n * dim).to_numpy()
                matrix[len(paths) : len(paths) + n] = values.reshape(n, dim)
                paths.extend(str(p) for p in batch.column(0).to_pylist())
            matrix = matrix[: len(paths)]
            if any(a >= b for a, b in itertools.pairwise(paths)):
                order = sorted(range(len(paths)), key=paths.__getitem__)
                paths = [paths[i] for i in order]
                matrix = matrix[np.asarray(order, dtype=np.intp)]
            _release_arrow_memory()
            return paths, np.ascontiguousarray(matrix)

        return self._with_table(run)

    # ---- writing

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
        with self._lock:
            live = self._live
            if live is None:
                why = "recovered from a corrupt index" if self.recovered else "no index yet"
                return self._rebuild(hashes, make, commit, t0, why, allow_empty)
            if not self._matches_embedder(live.state):
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
                self._quarantine(f"sync failed on {live.state.table}: {exc}")
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
        with self._lock:
            return self._rebuild(hashes, make, commit, t0, "requested", allow_empty)

    def _refuse_empty(self, hashes: Mapping[str, str], allow_empty: bool) -> None:
        live = self._live
        if not hashes and not allow_empty and live is not None and live.state.doc_count > 0:
            raise EmptyIndexRefused(
                f"refusing to replace a search index of {live.state.doc_count} docs with an "
                "empty one (the caller found no notes?); pass allow_empty=True if intended"
            )

    def _sync_incremental(
        self,
        live: _Live,
        hashes: Mapping[str, str],
        make: MakeDocs,
        commit: str | None,
        t0: float,
        allow_empty: bool,
    ) -> SyncStats:
        self._refuse_empty(hashes, allow_empty)
        table = live.table
        current = table.search().select(["path", "content_hash"]).limit(None).to_arrow()
        old = dict(
            zip(
                current.column("path").to_pylist(),
                current.column("content_hash").to_pylist(),
                strict=True,
            )
        )
        del current
        changed_paths = [p for p, h in hashes.items() if old.get(p) != h]
        added = sum(1 for p in changed_paths if p not in old)
        removed = sorted(p for p in old if p not in hashes)
        if changed_paths or removed:
            for start in range(0, max(len(changed_paths), 1), REBUILD_BATCH):
                batch = changed_paths[start : start + REBUILD_BATCH]
                changed = _made(make, batch, hashes)
                self._write_changes(table, changed, removed if start == 0 else [])
            self._refresh_fts(table)
            _release_arrow_memory()
        count = len(hashes)
        if changed_paths or removed or live.state.commit != commit or live.state.doc_count != count:
            state = IndexState(
                live.state.table, self.embedder.name, self.embedder.dim, commit, count, _now()
            )
            self._write_state(state)
            self._live = _Live(state, table)
        return SyncStats(
            added=added,
            updated=len(changed_paths) - added,
            removed=len(removed),
            unchanged=len(hashes) - len(changed_paths),
            seconds=time.perf_counter() - t0,
        )

    def _write_changes(self, table: Any, changed: list[IndexDoc], removed: list[str]) -> None:
        gone = f"path IN ({', '.join(sql_str(p) for p in removed)})" if removed else None
        if not changed:
            if gone is not None:
                table.delete(gone)
            return
        data = _to_arrow(changed, self._embed(changed), self.embedder.dim)
        merge = table.merge_insert("path").when_matched_update_all().when_not_matched_insert_all()
        if gone is not None:
            merge = merge.when_not_matched_by_source_delete(gone)
        merge.execute(data)

    def _refresh_fts(self, table: Any) -> None:
        """Fold pending rows into the FTS index once enough are pending; prune old versions."""
        stats = table.index_stats("text_idx")
        pending = stats.num_unindexed_rows if stats is not None else 0
        if stats is None:
            _create_fts(table)
        elif pending >= FTS_REFRESH_PENDING:
            table.optimize(cleanup_older_than=_OLD_VERSIONS_KEEP)

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
        self._refuse_empty(hashes, allow_empty)
        paths = sorted(hashes)
        dim = self.embedder.dim
        # Written in batches, each batch's docs made only when it is written, so that only one
        # batch's texts, Arrow columns and vectors are held at a time; readers never see this
        # table until state.json switches to it below.
        first = _made(make, paths[:REBUILD_BATCH], hashes)
        data = _to_arrow(first, self._embed(first), dim)
        del first
        db = self._connect()
        name = f"{TABLE_PREFIX}{datetime.now(UTC):%Y%m%d%H%M%S}_{uuid.uuid4().hex[:8]}"
        table = db.create_table(name, data=data, schema=data.schema, mode="create")
        del data
        for start in range(REBUILD_BATCH, len(paths), REBUILD_BATCH):
            chunk = _made(make, paths[start : start + REBUILD_BATCH], hashes)
            table.add(_to_arrow(chunk, self._embed(chunk), dim))
            del chunk
        _create_fts(table)
        _release_arrow_memory()
        state = IndexState(name, self.embedder.name, self.embedder.dim, commit, len(paths), _now())
        self._write_state(state)  # the switch-over: readers now follow the new table
        self._live = _Live(state, table)
        self._drop_tables_except(name)
        return SyncStats(
            added=len(paths),
            updated=0,
            removed=0,
            unchanged=0,
            seconds=time.perf_counter() - t0,
            rebuilt=True,
            reason=reason,
        )

    def _drop_tables_except(self, keep: str) -> None:
        for entry in self.index_dir.glob(f"{TABLE_PREFIX}*.lance"):
            name = entry.name.removesuffix(".lance")
            if name == keep:
                continue
            try:
                self._connect().drop_table(name)
            except Exception as exc:  # a half-written table lance cannot open: remove the dir
                log.info("dropping old index table %s failed (%s); removing files", name, exc)
                _rmtree(entry)

    def _write_state(self, state: IndexState) -> None:
        raw = json.dumps(asdict(state), indent=2, sort_keys=True).encode("utf-8") + b"\n"
        _write_atomic(self.index_dir / STATE_FILE, raw)


def _create_fts(table: Any) -> None:
    from lancedb.index import FTS

    table.create_index("text", config=FTS(with_position=False), replace=True, name="text_idx")


def import_lancedb() -> Any:
    """`import lancedb` with the cyclic garbage collector paused: the import allocates tens of
    thousands of objects (pydantic models of its namespace client) and would otherwise trigger
    several full collections over a growing heap (~0.1 s of a cold search's ~1 s import).

    The REST client of Lance namespaces is not run at import either (see `_defer_init`)."""
    import gc

    for package in DEFERRED_PACKAGES:
        _defer_init(package)
    enabled = gc.isenabled()
    gc.disable()
    try:
        import lancedb
    finally:
        if enabled:
            gc.enable()
    return lancedb


# lancedb imports only models from this generated REST client, whose package __init__ also
# imports every API class: ~0.45 s of the ~0.95 s `import lancedb`, for remote namespaces
# curator never uses.
DEFERRED_PACKAGES = ("lance_namespace_urllib3_client",)


def _defer_init(name: str) -> None:
    """Register package `name` without running its `__init__`: its submodules import as usual
    (from the package's folder), and the first attribute asked of the package itself runs the
    real `__init__` in place, so nothing that uses it can tell the difference."""
    import importlib.util
    import sys

    if name in sys.modules:
        return
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return
    module = importlib.util.module_from_spec(spec)
    loader = spec.loader

    def run_init(attr: str) -> Any:
        del module.__dict__["__getattr__"]
        loader.exec_module(module)
        return getattr(module, attr)

    module.__dict__["__getattr__"] = run_init
    sys.modules[name] = module


def _release_arrow_memory() -> None:
    """Hand memory Arrow's pool and malloc kept from freed buffers back to the OS (after a bulk
    read, an update or a rebuild: they would otherwise keep the high-water mark)."""
    import pyarrow as pa

    with contextlib.suppress(Exception):
        pa.default_memory_pool().release_unused()


def _by_path(data: pa.Table) -> pa.Table:
    """`data` sorted by path. A table is usually stored in path order already (a rebuild writes
    it so), and checking that is far cheaper than sorting (a take of every column)."""
    import pyarrow.compute as pc

    paths = data.column("path")
    n = len(paths)
    if n < 2 or pc.all(pc.less(paths.slice(0, n - 1), paths.slice(1))).as_py():
        return data
    return data.sort_by("path")


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


_FTS_WORD = re.compile(r"\w+", re.UNICODE)


def _fts_words(query: str) -> list[str]:
    """The plain words of a user query: FTS receives words only, never query syntax."""
    return _FTS_WORD.findall(query or "")


def _checked_columns(columns: Sequence[str]) -> list[str]:
    allowed = set(DOC_COLUMNS) | {"vector"}
    bad = [c for c in columns if c not in allowed]
    if bad:
        raise ValueError(f"unknown index columns {bad}")
    return list(columns)


def _rmtree(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)
