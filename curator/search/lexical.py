"""`PalaceCandidates`: the candidate source of a `Searcher.over_palace(palace)`, which searches,
asks and packs over the parsed palace alone, for a process that cannot wait for the index
(importing LanceDB and loading the embedder take seconds, many more on a busy machine): the
prompt hook's first prompt, while the warm server opens the index.

The ranking is `Ranker.fused`, unchanged; only its inputs differ. The candidates are the notes
sharing a stem with the query (chosen by a quick BM25 of the stems' substring counts in each
note's lower-cased fields, then scored by BM25F: the lexical score the full ranking gives them
too), and there is no vector neighbour, no soft term match and no fuzzy name match (the first
two need the embedder; names are left to BM25F, which weighs them already). Every candidate
passes the request's `Filter` (its per-row check), visibility included. Search, ask and pack
work; dupes (which reads the index's vectors) does not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from curator.model.palace import Palace
from curator.search.candidates import Ranker, Row, Vector
from curator.search.fields import K1, B, bm25f, idf
from curator.search.filters import Filter, SearchError
from curator.search.index import doc_row, index_dir
from curator.search.text import stem_probes
from curator.search.words import FIELDS, Corpus, note_fields

PROBE = 3  # candidates scored by BM25F per result asked for
COMMON = 0.3  # a stem in more notes than this share chooses candidates only when too few are


@dataclass(frozen=True)
class _Text:
    paths: list[str]
    text: str  # every note's lower-cased fields, NUL between notes
    starts: np.ndarray  # where each note's text starts
    norm: np.ndarray  # BM25's length normalisation of each note (K1 included)


@dataclass
class PalaceCandidates:
    """Candidates from the parsed palace alone (see the module docstring): nothing opens
    LanceDB or the embedder."""

    palace: Palace
    store: None = None
    embedder: None = None  # no vector part, no soft term matching
    names_as_you_type: bool = False  # BM25F weighs the names already
    _all: _Text | None = field(init=False, default=None)

    @property
    def index_dir(self) -> Path:
        return index_dir(self.palace.root)  # where the corpus statistics are cached

    def embed_query(self, text: str) -> np.ndarray:
        raise SearchError("this answer is made without the search index (no embedder)")

    def found(
        self, ranker: Ranker, texts: Sequence[str], flt: Filter, n: int
    ) -> tuple[list[Row], Vector]:
        return self.fts(ranker, texts[0], flt, n), None  # no embedder: no vector part

    def _text(self) -> _Text:
        """Every parsed note's and draft's fields, lower-cased, in one string (made once)."""
        if self._all is None:
            notes = [n for n in self.palace.all() if n.ok]
            texts = ["\n".join(note_fields(n)).lower() for n in notes]
            lengths = np.fromiter((len(t) + 1 for t in texts), dtype=np.int64, count=len(texts))
            starts = np.cumsum(lengths) - lengths
            mean = float(lengths.mean()) if len(texts) else 1.0
            norm = K1 * (1.0 - B + B * lengths / mean)
            self._all = _Text([n.rel for n in notes], "\0".join(texts), starts, norm)
        return self._all

    def fts(self, ranker: Ranker, text: str, flt: Filter, n: int) -> list[dict[str, Any]]:
        """The `n` notes passing `flt` with the best BM25F score for `text` (above zero),
        chosen among the best by a quick BM25 of substring counts of its telling stems over the
        whole text (as the index's full text search chooses the candidates BM25F scores)."""
        probes = stem_probes(text)
        terms = list(probes)
        if not terms or n <= 0:
            return []
        stats = ranker._corpus()
        every = self._text()
        rare = {t: p for t, p in probes.items() if stats.df.get(t, 0) <= COMMON * stats.docs}
        quick = self._quick(rare, every, stats)
        if np.count_nonzero(quick) < PROBE * n:  # too few: the common stems choose too
            common = {t: p for t, p in probes.items() if t not in rare}
            quick += self._quick(common, every, stats)
        order = np.flatnonzero(quick > 0)
        order = order[np.lexsort((order, -quick[order]))]
        fields = ranker.tuning.fields or (1.0,) * len(FIELDS)
        chosen: list[tuple[float, str, dict[str, Any]]] = []
        for i in order.tolist():
            rel = every.paths[i]
            note = self.palace.by_rel[rel]
            row = doc_row(self.palace, note)
            if not flt.ok(row):
                continue
            exact = bm25f(terms, ranker._note_text(rel, row).terms, stats, fields)
            if exact > 0:
                row["_score"] = exact
                chosen.append((-exact, rel, row))
                if len(chosen) >= PROBE * n:
                    break
        chosen.sort(key=lambda t: (t[0], t[1]))
        return [row for _, _, row in chosen[:n]]

    @staticmethod
    def _quick(probes: dict[str, str], every: _Text, stats: Corpus) -> np.ndarray:
        """Per note, BM25 of the terms' substring counts in its text (each stem counted as
        its probe: `stem_probes`)."""
        quick = np.zeros(len(every.paths))
        for term, probe in probes.items():
            found = [m.start() for m in re.finditer(re.escape(probe), every.text)]
            if found:
                at = np.searchsorted(every.starts, np.asarray(found), side="right") - 1
                tf = np.bincount(at, minlength=len(every.paths))
                quick += idf(stats, term) * tf / (tf + every.norm)
        return quick


__all__ = ["PalaceCandidates"]
