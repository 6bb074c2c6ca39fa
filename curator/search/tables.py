"""The index folder's tables: which one is live (state.json), following other processes'
switches, and moving a damaged index aside.

Layout of `index_dir`:

- `state.json`   which table is current (see `curator.search.state`); readers follow it.
- `docs_*.lance` LanceDB tables; only the one named in state.json is live.
- `.gitignore`   "*", so the index never ends up in the palace's git history.

An index that cannot be read (zero-byte state.json, truncated Lance manifest, garbage) is moved
aside to `<index_dir>.corrupt-<timestamp>/` (only the newest such copy is kept) and rebuilt by
the next sync. The tables follow state.json: when another process has synced or rebuilt the
index since they last read it (its mtime, size or inode changed), the next use reopens the
table it names. The reads (`curator.search.store`) and the writes (`curator.search.writes`)
share one `IndexTables`; an RLock keeps a UI worker thread and the main thread apart.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import shutil
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from curator.fsutil import atomic_write
from curator.search.arrow import TABLE_COLUMNS
from curator.search.embed import Embedder
from curator.search.state import (
    SCHEMA_VERSION,
    STATE_FILE,
    TABLE_PREFIX,
    IndexState,
    IndexUnavailable,
    SearchIndexError,
    now,
    state_signature,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

_SWITCHES = 5  # state.json changes by other processes followed within one load


@dataclass
class Live:
    """The table state.json names, open."""

    state: IndexState
    table: Any  # lancedb Table


@dataclass
class IndexTables:
    """The tables of one index folder, built by `embedder`. Open with `IndexTables.open`."""

    index_dir: Path
    embedder: Embedder
    recovered: list[Path] = field(default_factory=list)  # dirs moved aside as corrupt
    lock: threading.RLock = field(default_factory=threading.RLock)
    _live: Live | None = None
    _db: Any = None
    _seen: tuple[int, int, int] | None = None  # the state.json last read or written

    @classmethod
    def open(cls, index_dir: Path, embedder: Embedder) -> IndexTables:
        """Prepare `index_dir` and open its live table. Never raises for a corrupt index: it
        is moved aside (see `recovered`)."""
        tables = cls(index_dir, embedder)
        with tables.lock:
            tables._prepare_dir()
            tables.load()
        return tables

    @property
    def live(self) -> Live | None:
        """The open table as last followed (see `follow`)."""
        return self._live

    @property
    def seen(self) -> tuple[int, int, int] | None:
        """state.json's (mtime, size, inode) as this process last read or wrote it: which
        write of it the open table is (`updated` alone is to the second)."""
        return self._seen

    def follow(self) -> Live | None:
        """The open table, reopened first when state.json changed since it was last read or
        written (another process synced or rebuilt the index, or damaged or removed it)."""
        with self.lock:
            if state_signature(self.index_dir) != self._seen:
                self.load()
            return self._live

    def matches_embedder(self, state: IndexState) -> bool:
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

    def connect(self) -> Any:
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

    def load(self) -> None:
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
                self.quarantine(f"unreadable {STATE_FILE}: {exc}")
                return
            if state is None or state.schema_version != SCHEMA_VERSION:
                return  # none yet, or of an older layout: the next sync rebuilds it
            try:
                table = self._open_table(state)
            except Exception as exc:  # lance raises RuntimeError/OSError/ValueError for bad files
                if state_signature(self.index_dir) != seen:
                    continue
                self.quarantine(f"table {state.table} unreadable: {exc}")
                return
            self.set_live(state, table)
            return
        # state.json kept changing under every attempt: leave it to the next call to follow

    def set_live(self, state: IndexState, table: Any) -> None:
        if not isinstance(table, tuple(_SCHEMA_ONCE.values())):
            table.__class__ = _schema_once(type(table))
        self._live = Live(state, table)

    def _open_table(self, state: IndexState) -> Any:
        table = self.connect().open_table(state.table)
        schema = table.schema
        names = [f.name for f in schema]
        if names != [*TABLE_COLUMNS, "vector"]:
            raise ValueError(f"unexpected columns {names}")
        if schema.field("vector").type.list_size != state.dim:
            raise ValueError("vector width does not match state.json dim")
        table.search().select(["path"]).limit(1).to_arrow()  # probe: reads a data file
        return table

    def quarantine(self, reason: str) -> Path | None:
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

    def read(self, fn: Callable[[Any], T]) -> T:
        """Run fn(table); on a read failure follow a switched state.json once, else quarantine."""
        with self.lock:
            live = self.follow()
            if live is None:
                raise IndexUnavailable(f"no search index in {self.index_dir}: run sync")
            try:
                return fn(live.table)
            except (SearchIndexError, ValueError):
                raise  # lance reports a bad query (e.g. where clause) as ValueError
            except Exception as exc:
                error: Exception = exc
            # Another process may have rebuilt and dropped our table: follow state.json once.
            self.load()
            if self._live is not None and self._live.state.table != live.state.table:
                try:
                    return fn(self._live.table)
                except SearchIndexError:
                    raise
                except Exception as exc:
                    error = exc
            if self._live is not None:
                self.quarantine(f"query failed on {self._live.state.table}: {error}")
            raise IndexUnavailable(
                f"search index was unreadable and moved aside ({error}); run sync"
            ) from error

    def switch(self, state: IndexState, table: Any) -> None:
        """Make `table` the live one: state.json names it (atomically), readers follow."""
        raw = json.dumps(asdict(state), indent=2, sort_keys=True).encode("utf-8") + b"\n"
        atomic_write(self.index_dir / STATE_FILE, raw)
        self._seen = state_signature(self.index_dir)  # its own write: no need to reopen
        self.set_live(state, table)

    def drop_tables_except(self, keep: str) -> None:
        for entry in self.index_dir.glob(f"{TABLE_PREFIX}*.lance"):
            name = entry.name.removesuffix(".lance")
            if name == keep:
                continue
            try:
                self.connect().drop_table(name)
            except Exception as exc:  # a half-written table lance cannot open: remove the dir
                log.info("dropping old index table %s failed (%s); removing files", name, exc)
                shutil.rmtree(entry, ignore_errors=True)


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


__all__ = ["IndexTables", "Live"]
