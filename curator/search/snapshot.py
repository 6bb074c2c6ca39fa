"""The in-memory snapshot of the index that as-you-type and vector ranking read.

Every row's header fields (as Arrow columns), its name words and (lazily) its vector are held in
memory for as-you-type name matching, filter masks and brute-force vector search (a matrix
product is far faster than a scan through the table). Row dicts are made only for the rows a
query returns. A Searcher rebuilds its snapshot whenever the index state changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from curator.search.filters import Filter
from curator.search.store import IndexStore
from curator.search.text import WORD

ROW_CACHE = 4096  # row dicts kept per snapshot
MASK_CACHE = 64  # filter masks kept per snapshot


class StaleSnapshot(Exception):
    """The table changed under the snapshot (the caller falls back to querying the table)."""


@dataclass
class Snapshot:
    key: tuple[str, str, int]  # (table, updated, doc count) of the index state it reflects
    table: Any  # pyarrow.Table of META_COLUMNS, sorted by path
    paths: list[str]
    names: list[str]  # lower-cased
    vocab: list[str]  # sorted distinct name words
    postings: dict[str, np.ndarray]
    name_lens: np.ndarray
    vectors: np.ndarray | None = None
    masks: dict[Filter, tuple[np.ndarray, int]] = field(default_factory=dict)
    columns: dict[str, np.ndarray] = field(default_factory=dict)
    _positions: dict[str, int] | None = None
    _rows: dict[int, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def load(cls, store: IndexStore, key: tuple[str, str, int]) -> Snapshot:
        return cls.of_table(store.meta_table(), key)

    @classmethod
    def of_table(cls, table: Any, key: tuple[str, str, int]) -> Snapshot:
        """The snapshot of an Arrow table of index rows sorted by path."""
        paths = [str(p) for p in table.column("path").to_pylist()]
        names = [str(n or "").lower() for n in table.column("name").to_pylist()]
        lists: dict[str, list[int]] = {}
        for i, name in enumerate(names):
            for word in set(WORD.findall(name)):
                lists.setdefault(word, []).append(i)
        postings = {w: np.asarray(ix, dtype=np.int64) for w, ix in lists.items()}
        lens = np.fromiter((len(n) for n in names), dtype=np.int64, count=len(names))
        return cls(key, table, paths, names, sorted(postings), postings, lens)

    def __len__(self) -> int:
        return len(self.paths)

    def position(self, path: str) -> int | None:
        """The row number of `path` (None when it is not in the snapshot)."""
        if self._positions is None:
            self._positions = {p: i for i, p in enumerate(self.paths)}
        return self._positions.get(path)

    def row(self, i: int) -> dict[str, Any]:
        found = self._rows.get(i)
        if found is None:
            found = self.table.slice(i, 1).to_pylist()[0]
            if len(self._rows) > ROW_CACHE:
                self._rows.clear()
            self._rows[i] = found
        return dict(found)

    def mask(self, flt: Filter) -> tuple[np.ndarray, int]:
        """(rows the filter hides, how many rows pass), cached per filter."""
        found = self.masks.get(flt)
        if found is None:
            ok = flt.mask(self.column, len(self))
            found = (~ok, int(ok.sum()))
            if len(self.masks) > MASK_CACHE:
                self.masks.clear()
            self.masks[flt] = found
        return found

    def column(self, name: str) -> np.ndarray:
        """One header column as numpy: bools for stale/sensitive, floats (None as 0.0) for
        confidence, an object array of strings (None as "") for the rest."""
        col = self.columns.get(name)
        if col is None:
            values = self.table.column(name).to_pylist()
            if name in ("stale", "sensitive"):
                col = np.fromiter((bool(v) for v in values), bool, len(values))
            elif name == "confidence":
                col = np.fromiter((float(v or 0.0) for v in values), float, len(values))
            else:
                col = np.asarray([str(v or "") for v in values], dtype=object)
            self.columns[name] = col
        return col

    def load_vectors(self, store: IndexStore) -> np.ndarray:
        if self.vectors is None:
            paths, vectors = store.all_vectors_matrix()
            if paths != self.paths:
                raise StaleSnapshot()
            self.vectors = vectors
        return self.vectors


__all__ = ["Snapshot", "StaleSnapshot"]
