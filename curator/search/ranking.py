"""The retrieval core shared by search, ask and pack: candidate rankings and their fusion.

BM25 full text (LanceDB FTS) and vector neighbours (the palace's embedder) are fused by
reciprocal rank; queries of more than a few words are also run as their key terms (stopwords
removed) and fused; natural-language queries (questions, sentences) have every candidate
re-ranked by soft term matching and by the share of their key terms in the note's name; short
queries (up to three words, or an as-you-type prefix) add a rapidfuzz ranking over note names.
Every ranking reads through one `Filter`, so hidden rows never reach fusion.
"""

from __future__ import annotations

import bisect
import itertools
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from curator.model.palace import Palace
from curator.search.filters import Filter
from curator.search.fuse import rrf
from curator.search.index import palace_signature
from curator.search.snapshot import Snapshot, StaleSnapshot
from curator.search.store import IndexStore
from curator.search.text import (
    STOPWORDS,
    WORD,
    is_short,
    key_terms,
    name_share,
    natural_language,
    phrasings,
    term_prefix,
)
from curator.search.words import sif_weight, word_freq

FUZZY_CUTOFF = 70.0
FUZZY_WEIGHT = 0.5
# Reciprocal-rank fusion: a small k lets a clear first place count; BM25 leads, vectors add
# recall (static WordLlama embeddings are a weaker signal than BM25 on most text).
FUSE_K = 10
FUZZY_PREFIX_WORDS = 200  # name words an as-you-type prefix may expand to
FUZZY_POOL = 300  # candidate names ranked by rapidfuzz
FTS_WEIGHT = 1.0
VECTOR_WEIGHT = 0.7  # shared by the vector rankings of the phrasings
# Soft term matching re-ranks the candidates of natural-language queries; keyword lookups keep
# the BM25-led order. A note's name is its title: a key term in it counts on top of the term's
# match anywhere in the note (title weighting, as in BM25F), so a note named for what the query
# asks about leads one that only mentions it. Their rankings are fused with the usual RRF
# constant (60: the rank prior stays gentle, term matching decides) from a deeper pool.
SOFT_FUSE_K = 60
SOFT_CANDIDATES = 50  # rows each ranking contributes for a natural-language query (at least)
SOFT_WEIGHT = 2.0
NAME_WEIGHT = 1.0
WORD_VECTOR_CACHE = 50_000
NOTE_WORD_CACHE = 20_000  # notes whose key words a Ranker keeps

Rows = dict[str, dict[str, Any]]
Scored = list[tuple[str, float]]


def similarities(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b.T (cosine similarities of unit rows), by numpy's own single-threaded loop: the
    products of one query are small, and handing them to the multi-threaded BLAS costs more
    than it saves; on shared, busy cores its thread hand-offs set the tail latency."""
    return np.einsum("ij,kj->ik", a, b)


@dataclass
class Ranker:
    """Rankings over one palace's index (`Searcher` adds search, ask, pack and dupes)."""

    palace: Palace
    store: IndexStore = field(init=False)
    _snap: Snapshot | None = field(init=False, default=None)
    _freq: tuple[dict[str, int], int] | None = field(init=False, default=None)
    _words: dict[str, np.ndarray] = field(init=False, default_factory=dict)
    _note_word_cache: dict[str, tuple[str, ...]] = field(init=False, default_factory=dict)
    _lock: threading.RLock = field(init=False, default_factory=threading.RLock)

    def query_vector(self, text: str) -> np.ndarray:
        """The query's embedding with smooth inverse frequency weights: each distinct word's
        embedding weighted by its rarity in this palace. Documents keep their plain embedding."""
        words = list(dict.fromkeys(WORD.findall(text.lower())))
        if not words:
            return self.store.embed_query(text)
        freq, total = self._word_freq()
        vectors = self.store.embedder.embed(words)
        weights = np.asarray([sif_weight(freq, total, w) for w in words], dtype=np.float32)
        vec = (vectors * weights[:, None]).sum(axis=0)
        norm = float(np.linalg.norm(vec))
        return (vec / norm).astype(np.float32) if norm > 0 else vec.astype(np.float32)

    def _word_freq(self) -> tuple[dict[str, int], int]:
        with self._lock:
            if self._freq is None:
                counts = word_freq(self.palace, self.store.index_dir, palace_signature(self.palace))
                self._freq = (counts, max(1, sum(counts.values())))
            return self._freq

    def snapshot(self) -> Snapshot:
        state = self.store.state
        key = (state.table, state.updated, state.doc_count) if state else ("", "", 0)
        with self._lock:
            if self._snap is None or self._snap.key != key:
                self._snap = Snapshot.load(self.store, key)
            return self._snap

    def vector(self, vec: np.ndarray, flt: Filter, n: int) -> list[dict[str, Any]]:
        """Nearest rows by cosine similarity: one matrix product over the snapshot's vectors
        (always the same code path, so rankings never depend on what ran before in the
        process; LanceDB's scan only if the table changed under the snapshot)."""
        snap = self.snapshot()
        try:
            matrix = snap.load_vectors(self.store)
        except StaleSnapshot:
            return self.store.vector(vec, limit=n, where=flt.sql())
        if not len(snap) or not np.any(vec):
            return []
        hidden, passing = snap.mask(flt)
        k = min(n, passing)
        if k <= 0:
            return []
        sims = similarities(matrix, np.asarray(vec, dtype=np.float32)[None, :])[:, 0]
        sims[hidden] = -np.inf
        top = np.argpartition(sims, len(sims) - k)[len(sims) - k :]
        order = sorted(top.tolist(), key=lambda i: (-float(sims[i]), snap.paths[i]))
        return [{**snap.row(i), "similarity": float(sims[i])} for i in order]

    def fts(self, text: str, flt: Filter, n: int) -> list[dict[str, Any]]:
        """BM25 matches. When the filter lets most rows through (known from the snapshot), one
        unfiltered query fetching twice as many rows and filtered here is cheaper than a SQL
        prefilter, and exact: the best n passing rows are among them whenever n of them pass;
        otherwise the prefiltered query runs."""
        snap = self.snapshot()
        if len(snap):
            _hidden, passing = snap.mask(flt)
            if passing >= len(snap) * 0.5:
                rows = self.store.fts(text, limit=2 * n)
                ok = [r for r in rows if flt.ok(r)]
                if len(ok) >= n or len(rows) < 2 * n:
                    return ok[:n]
        return self.store.fts(text, limit=n, where=flt.sql())

    def _rankings(
        self, texts: Sequence[str], flt: Filter, n: int
    ) -> tuple[list[list[str]], list[float], Rows]:
        """Rankings to fuse, their weights, and the rows by path: BM25 of the whole query (the
        FTS analyzer drops stopwords itself, so the key-terms phrasing would repeat it) and the
        vector neighbours of every phrasing (embeddings do change without stopwords)."""
        rows: Rows = {}
        rankings: list[list[str]] = []
        weights: list[float] = []
        if not texts:
            return rankings, weights, rows
        results = [(self.fts(texts[0], flt, n), FTS_WEIGHT)]
        for text in texts:
            vec = self.query_vector(text)
            results.append((self.vector(vec, flt, n), VECTOR_WEIGHT / len(texts)))
        for ranking, weight in results:
            rankings.append([str(r["path"]) for r in ranking])
            weights.append(weight)
            for r in ranking:
                rows.setdefault(str(r["path"]), r)
        return rankings, weights, rows

    def _name_counts(self, snap: Snapshot, words: list[str]) -> np.ndarray:
        """Per row, how many query words match a word of its name: as a prefix (as you type)
        or, for words of four letters or more, as a near miss (rapidfuzz over the vocabulary)."""
        from rapidfuzz import fuzz, process

        counts = np.zeros(len(snap), dtype=np.int64)
        for word in words:
            near: set[str] = set()
            lo = bisect.bisect_left(snap.vocab, word)
            for v in itertools.islice(snap.vocab, lo, lo + FUZZY_PREFIX_WORDS):
                if not v.startswith(word):
                    break
                near.add(v)
            if len(word) >= 4:
                for v, _score, _i in process.extract(
                    word, snap.vocab, scorer=fuzz.ratio, score_cutoff=80, limit=10
                ):
                    near.add(v)
            hit = np.zeros(len(snap), dtype=bool)
            for v in near:
                hit[snap.postings[v]] = True
            counts += hit
        return counts

    def fuzzy(self, query: str, flt: Filter, n: int) -> list[tuple[str, dict[str, Any]]]:
        """Note names close to a short query, best first; candidate names (most query words
        matched, then the shortest) are ranked by rapidfuzz against the whole query."""
        from rapidfuzz import fuzz

        snap = self.snapshot()
        words = WORD.findall(query.lower())
        if not words or not len(snap):
            return []
        counts = self._name_counts(snap, words)
        hidden, _passing = snap.mask(flt)
        counts[hidden] = 0
        idx = np.flatnonzero(counts)
        if not len(idx):
            return []
        key = -counts[idx] * (1 << 20) + snap.name_lens[idx]
        if len(idx) > FUZZY_POOL:
            idx = idx[np.argpartition(key, FUZZY_POOL)[:FUZZY_POOL]]
        q = " ".join(words)
        scored = [
            (fuzz.WRatio(q, snap.names[i]) + 10.0 * int(counts[i]), snap.paths[i], i)
            for i in idx.tolist()
        ]
        scored.sort(key=lambda t: (-t[0], t[1]))
        return [(p, snap.row(i)) for s, p, i in scored[:n] if s >= FUZZY_CUTOFF]

    def fused(self, query: str, flt: Filter, n: int, *, fuzzy: bool) -> tuple[Scored, Rows]:
        """Candidates for `query` passing `flt`, fused and scored within 0..1, and their rows."""
        natural = natural_language(query)
        k = SOFT_FUSE_K if natural else FUSE_K
        if natural:
            n = max(n, SOFT_CANDIDATES)
        rankings, weights, rows = self._rankings(phrasings(query), flt, n)
        if fuzzy and is_short(query):
            names = self.fuzzy(query, flt, n)
            if names:
                rankings.append([p for p, _ in names])
                weights.append(FUZZY_WEIGHT)
                for p, r in names:
                    rows.setdefault(p, r)
        fused = rrf(rankings, k=k, weights=weights)
        best = sum(weights) / (k + 1)
        scored = [(p, s / best) for p, s in fused if p in rows]
        if natural:
            scored = self._soft_rerank(query, scored, rows)
        return scored, rows

    def _soft_rerank(self, query: str, scored: Scored, rows: Rows) -> Scored:
        """Re-rank every candidate of a natural-language query by soft term matching: each key
        term counts with its best cosine similarity to any word of the note (so "kids" meets
        "children"), weighted by inverse frequency like the query vector; and by the share of
        the key terms in the note's name. score = (fused + SOFT_WEIGHT * soft + NAME_WEIGHT *
        named) / (1 + SOFT_WEIGHT + NAME_WEIGHT), so scores stay within 0..1."""
        terms = key_terms(query)
        freq, total = self._word_freq()
        weights = np.asarray([sif_weight(freq, total, w) for w in terms])
        prefixes = [term_prefix(t) for t in terms]
        note_words = [self._note_words(path, rows[path]) for path, _score in scored]
        vocab = list(dict.fromkeys(w for words in note_words for w in words))
        column = {w: i for i, w in enumerate(vocab)}
        sims = np.zeros((len(terms), 0), dtype=np.float32)
        if vocab and terms:
            pairs = similarities(self._word_vectors(terms), self._word_vectors(vocab))
            sims = np.clip(pairs, 0.0, 1.0)
        total_weight = float(weights.sum())
        scale = 1 + SOFT_WEIGHT + NAME_WEIGHT
        out = []
        for (path, score), words in zip(scored, note_words, strict=True):
            soft = 0.0
            if words and total_weight > 0:
                cols = np.fromiter((column[w] for w in words), dtype=np.intp, count=len(words))
                soft = float(sims[:, cols].max(axis=1) @ weights) / total_weight
            named = name_share(str(rows[path].get("name") or ""), prefixes)
            out.append((path, (score + SOFT_WEIGHT * soft + NAME_WEIGHT * named) / scale))
        out.sort(key=lambda kv: (-kv[1], kv[0]))
        return out

    def _note_words(self, path: str, row: dict[str, Any]) -> tuple[str, ...]:
        """The distinct key words of a note's name, description and body (no stopwords),
        cached for notes of this palace (whose text cannot change under it)."""
        found = self._note_word_cache.get(path)
        if found is None:
            note = self.palace.by_rel.get(path)
            if note is not None and note.ok:
                text = f"{note.name}\n{note.description}\n{note.body}"
            else:
                text = "\n".join(str(row.get(k) or "") for k in ("name", "description", "body"))
            words = set(WORD.findall(text.lower())) - STOPWORDS
            found = tuple(w for w in words if len(w) >= 2 or w.isdigit())
            if note is not None:
                if len(self._note_word_cache) >= NOTE_WORD_CACHE:
                    self._note_word_cache.clear()
                self._note_word_cache[path] = found
        return found

    def _word_vectors(self, words: Sequence[str]) -> np.ndarray:
        """Embeddings of single words, cached (bounded)."""
        cache = self._words
        missing = [w for w in dict.fromkeys(words) if w not in cache]
        if missing:
            if len(cache) + len(missing) > WORD_VECTOR_CACHE:
                cache.clear()
            for word, vec in zip(missing, self.store.embedder.embed(missing), strict=True):
                cache[word] = vec
        return np.asarray([cache[w] for w in words], dtype=np.float32)


__all__ = ["Ranker", "Rows", "Scored"]
