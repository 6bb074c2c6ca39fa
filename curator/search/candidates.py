"""Where a ranking's candidates come from (`curator.search.ranking.Ranker` takes one):

- `IndexCandidates(store)`: the LanceDB index: BM25 matches and vector neighbours in one
  hybrid query prefiltered by the filter's SQL, and the store's embedder for the query's vector, the
  soft term matching and the names matched as you type;
- `curator.search.lexical.PalaceCandidates(palace)`: the parsed palace alone, for a process
  that cannot wait for the index to open (no embedder: no vector part).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from curator.model.palace import Palace
from curator.search.fields import FEATURES
from curator.search.filters import Filter, sql_str
from curator.search.store import IndexStore
from curator.search.words import Corpus

Row = dict[str, Any]
Vector = np.ndarray | None
# The hybrid query's rows per candidate asked for: each of its legs (BM25, vectors) takes this
# many times `n` and their union is cut there by rank fusion: as many candidates as two
# separate queries of `n` gave, chosen among the best of both
HYBRID_DEPTH = 2


class Ranker(Protocol):
    """What a source asks of the ranker it feeds (`curator.search.ranking.Ranker`)."""

    palace: Palace
    tuning: Any

    def query_vector(self, text: str) -> np.ndarray: ...

    def _corpus(self) -> Corpus: ...

    def _note_text(self, path: str, row: Row) -> Any: ...

    def _doc_row(self, path: str) -> Row: ...

    def _has_read(self, path: str) -> bool: ...

    def _held_vector(self, path: str) -> np.ndarray | None: ...

    def _hold_vector(self, path: str, vector: np.ndarray) -> None: ...


class Candidates(Protocol):
    @property
    def store(self) -> IndexStore | None:
        """The open index (None: the palace alone)."""
        ...

    @property
    def embedder(self) -> Any | None:
        """What embeds queries and words (None: no vector part, no soft term matching)."""
        ...

    @property
    def names_as_you_type(self) -> bool:
        """Short queries add fuzzy matches of note names."""
        ...

    @property
    def index_dir(self) -> Path: ...

    def found(
        self, ranker: Ranker, texts: Sequence[str], flt: Filter, n: int
    ) -> tuple[list[Row], Vector]:
        """The candidates passing `flt` for the query's phrasings `texts`, each row with its
        `_score` (BM25, or None) and its vector when it has one; and the query vector."""
        ...

    def embed_query(self, text: str) -> np.ndarray: ...


@dataclass
class IndexCandidates:
    store: IndexStore
    names_as_you_type: bool = True

    @property
    def embedder(self) -> Any:
        return self.store.embedder

    @property
    def index_dir(self) -> Path:
        return self.store.index_dir

    def found(
        self, ranker: Ranker, texts: Sequence[str], flt: Filter, n: int
    ) -> tuple[list[Row], Vector]:
        """The BM25 matches of the first phrasing and the nearest rows to the mean of the
        phrasings' vectors, `n` of each, in one LanceDB hybrid query prefiltered by the
        filter's SQL; and that query vector (None when no phrasing has one). The query
        reads paths only: each row's vector is the ranker's, or taken with its features."""
        vecs = [v for v in (ranker.query_vector(t) for t in texts) if np.any(v)]
        query = np.mean(np.stack(vecs), axis=0).astype(np.float32) if vecs else None
        found = self.store.hybrid(
            texts[0],
            query if query is not None else np.zeros(self.store.embedder.dim, np.float32),
            limit=HYBRID_DEPTH * n,
            where=flt.sql(),
            columns=("path",),
        )
        return self._kept(ranker, self._whole(ranker, found)), query

    def _whole(self, ranker: Ranker, found: list[Row]) -> list[Row]:
        """The rows the hybrid query found (path, vector and scores) with every other field:
        a note of the ranker's palace as `doc_row` makes it (the index row it was synced from),
        any other from the table. LanceDB reads each column it returns from disk, so the query
        asks for two and the palace, already in memory, gives the rest."""
        out: list[Row] = []
        missing: list[str] = []
        for row in found:
            path = str(row["path"])
            note = ranker.palace.by_rel.get(path)
            if note is None or not note.ok:
                missing.append(path)
                continue
            out.append({**ranker._doc_row(path), **row})
        if missing:
            listed = ", ".join(sql_str(p) for p in missing)
            full = {str(r["path"]): r for r in self.store.all_rows(where=f"path IN ({listed})")}
            scores = {str(r["path"]): r for r in found}
            out += [{**full[p], **scores[p]} for p in missing if p in full]
        return out

    def _kept(self, ranker: Ranker, rows: list[Row]) -> list[Row]:
        """`rows`, each with its vector, and each the ranker has not read yet with what its
        index row keeps of the note for ranking (`FEATURES`): the ranker's own when it holds
        them, else taken by row id after the hybrid query (which would read them for both its
        legs' rows, twice as many, and again for the rows the ranker holds; a vector is 1 KB).
        A row written from other bytes than the candidate's (the files changed since the last
        sync; a rebuild between the two reads) gives no features (ranking then reads the
        note's text) and its vector is not held; a row the take misses is read by path."""
        unread: dict[int, Row] = {}
        for row in rows:
            path = str(row["path"])
            if row.get("vector") is None:
                row["vector"] = ranker._held_vector(path)
            if isinstance(row.get("_rowid"), int) and (
                row["vector"] is None or not ranker._has_read(path)
            ):
                unread[int(row["_rowid"])] = row
        taken = self.store.take(list(unread), ("path", "content_hash", *FEATURES, "vector"))
        by_path = {str(r["path"]): r for r in taken}
        for row in unread.values():
            path = str(row["path"])
            kept = by_path.get(path)
            if kept is None:
                continue
            if row["vector"] is None:
                row["vector"] = kept["vector"]
            if kept["content_hash"] == row["content_hash"]:
                row.update({name: kept[name] for name in FEATURES})
                ranker._hold_vector(path, kept["vector"])
        lacking = {str(r["path"]): r for r in rows if r.get("vector") is None}
        if lacking:
            listed = ", ".join(sql_str(p) for p in lacking)
            for r in self.store.all_rows(where=f"path IN ({listed})", columns=("path", "vector")):
                lacking[str(r["path"])]["vector"] = r["vector"]
        return rows

    def embed_query(self, text: str) -> np.ndarray:
        return self.store.embed_query(text)
