"""Queries over the derived index: search, ask, pack and dupes.

Python API (the CLI and the app both use it; `curator.model` never imports this module):

    from curator.model.palace import Palace
    from curator.search import Searcher

    s = Searcher(Palace.open(path))          # opens .curator/index and syncs it incrementally
    s.search("stripe webhooks", types=["feedback"], limit=10)  -> list[Hit]
    s.ask("how do we deploy?")                                 -> Answer (sources by authority)
    s.pack("fix the invoice pdf worker", budget=2000, floor=0.7) -> str (markdown)
    s.dupes("inbox/2026-11-24-x.md")                           -> list[Candidate]
    s.dupes(all=True)                                          -> list[DupePair]

The module functions `search(palace, ...)`, `ask(palace, ...)`, `pack(palace, ...)` and
`dupes(palace, ...)` do the same through one cached `Searcher` per Palace object.

Ranking: BM25 full text (LanceDB FTS) and vector neighbours (the palace's embedder) are fused by
reciprocal rank; queries of more than a few words are also run as their key terms (stopwords
removed) and fused; natural-language queries (questions, sentences) have every candidate re-ranked
by soft term matching and by the share of their key terms in the note's name; short queries (up
to three words, or an as-you-type prefix) add a rapidfuzz ranking over note names. Search scores
superseded and retired notes down (each hit names its successor). Every result passes
`curator.search.visibility.visible`: sensitive notes and notes in sensitive scopes appear only
with `include_sensitive=True`.
"""

from __future__ import annotations

import bisect
import itertools
import json
import math
import os
import re
import threading
import weakref
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, overload

import numpy as np

from curator.errors import CuratorError
from curator.model.note import DRAFT_BANNER, Note
from curator.model.palace import Palace
from curator.model.text import one_line
from curator.search.docs import make_text
from curator.search.fuse import rrf
from curator.search.index import open_index, palace_signature, sync_index
from curator.search.store import EmptyIndexRefused, Filters, IndexStore, SyncStats, where_sql
from curator.search.visibility import and_where, sensitive_scopes, visible, where_visible

# How many rows each ranking contributes before fusion (per requested result).
CANDIDATES_PER_RESULT = 3
MIN_CANDIDATES = 30
FUZZY_MAX_WORDS = 3
FUZZY_CUTOFF = 70.0
FUZZY_WEIGHT = 0.5
# Reciprocal-rank fusion: a small k lets a clear first place count; BM25 leads, vectors add
# recall (static WordLlama embeddings are a weaker signal than BM25 on most text).
FUSE_K = 10
FUZZY_PREFIX_WORDS = 200  # name words an as-you-type prefix may expand to
FUZZY_POOL = 300  # candidate names ranked by rapidfuzz
FTS_WEIGHT = 1.0
VECTOR_WEIGHT = 0.7  # shared by the vector rankings of the phrasings
SIF_A = 1e-3  # smooth inverse frequency weight (the usual default of Arora et al.)
WORD_FREQ_SAMPLE = 1000  # notes sampled for word frequencies
WORD_FREQ_FILE = "words.json"  # those counts, kept beside the index for the next process
# Soft term matching re-ranks the candidates of natural-language queries (with function words,
# or 4+ key terms); keyword lookups keep the BM25-led order. A note's name is its title: a key
# term in it counts on top of the term's match anywhere in the note (title weighting, as in
# BM25F), so a note named for what the query asks about leads one that only mentions it.
# Their rankings are fused with the usual RRF constant (60: the rank prior stays gentle, term
# matching decides) from a deeper pool, and every candidate is re-ranked.
SOFT_MIN_TERMS = 4
SOFT_FUSE_K = 60
SOFT_CANDIDATES = 50  # rows each ranking contributes for a natural-language query (at least)
SOFT_WEIGHT = 2.0
NAME_WEIGHT = 1.0
WORD_VECTOR_CACHE = 50_000
NOTE_WORD_CACHE = 20_000  # notes whose key words a Searcher keeps
STALE_PENALTY = 0.5
SUPERSEDED_PENALTY = 0.5  # search lists a replaced note below the notes that are current
RELEVANCE_FLOOR = 0.65  # ask and pack keep candidates scoring at least this share of the best
SNIPPET_CHARS = 220

_WORD = re.compile(r"\w+", re.UNICODE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n\s*\n|\n(?=\s*[-*>#]|\s*\d+\.)")

_STOPWORD_TEXT = """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing done down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves
    ever also get got let lets may might must shall us whats wheres whos hows
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


# --------------------------------------------------------------------------- values


@dataclass(frozen=True)
class Hit:
    """One search result. `spans` are (start, end) offsets of query terms in `snippet`."""

    path: str
    name: str
    type: str
    score: float
    snippet: str
    spans: tuple[tuple[int, int], ...] = ()
    kind: str = "note"
    status: str = ""
    scope: str = ""
    stale: bool = False
    stale_reason: str = ""
    confidence: float | None = None
    description: str = ""
    created: str = ""
    reviewed: str = ""
    sensitive: bool = False
    successor: str | None = None  # for a superseded note: the active end of its chain

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["spans"] = [list(s) for s in self.spans]
        return data


@dataclass(frozen=True)
class Source:
    """One source of an answer, in authority order."""

    path: str
    name: str
    type: str
    authority_rank: int  # position of the type in palace.toml authority (drafts: after all)
    score: float
    snippet: str
    spans: tuple[tuple[int, int], ...] = ()
    stale: bool = False
    stale_reason: str = ""
    superseded_from: tuple[str, ...] = ()  # superseded notes this source stands in for
    draft: bool = False
    label: str = ""  # "unreviewed draft", "stale: <reason>", or ""
    scope: str = ""
    sensitive: bool = False
    confidence: float | None = None
    reviewed: str = ""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["spans"] = [list(s) for s in self.spans]
        data["superseded_from"] = list(self.superseded_from)
        return data


@dataclass(frozen=True)
class Answer:
    question: str
    phrasings: tuple[str, ...]
    sources: tuple[Source, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "phrasings": list(self.phrasings),
            "sources": [s.to_json() for s in self.sources],
        }


@dataclass(frozen=True)
class Candidate:
    """A near-duplicate candidate: vector neighbour, confirmed by rapidfuzz text overlap."""

    path: str
    name: str
    score: float
    vector_sim: float
    fuzz: float
    kind: str = "note"
    type: str = ""
    status: str = ""
    scope: str = ""
    sensitive: bool = False

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class DupePair:
    a: str
    b: str
    a_name: str
    b_name: str
    score: float
    vector_sim: float
    fuzz: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class SearchError(CuratorError):
    """A search request that cannot be answered as asked (bad filter, unknown note...)."""


# --------------------------------------------------------------------------- text helpers


def key_terms(text: str) -> list[str]:
    """The words of `text` without stopwords and one-letter words, in order, unique."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if word in STOPWORDS or (len(word) < 2 and not word.isdigit()):
            continue
        seen.setdefault(word, None)
    return list(seen)


def phrasings(query: str) -> list[str]:
    """The whole query, and (when different) its key terms."""
    whole = " ".join(_WORD.findall(query))
    out = [whole] if whole else []
    terms = " ".join(key_terms(query))
    if terms and terms.lower() != whole.lower():
        out.append(terms)
    return out


def _term_prefix(term: str) -> str:
    """A crude stem for highlighting: 'deploying' and 'deploys' both start with 'deploy'."""
    if len(term) <= 4:
        return term
    for suffix in ("ingly", "edly", "ing", "ies", "ied", "ed", "es", "ly", "s"):
        if term.endswith(suffix) and len(term) - len(suffix) >= 4:
            return term[: -len(suffix)]
    return term


def _spans(text: str, prefixes: Sequence[str]) -> list[tuple[int, int]]:
    """Spans of words in `text` that start with one of `prefixes` (case-insensitive)."""
    if not prefixes:
        return []
    out = []
    for m in _WORD.finditer(text):
        low = m.group().lower()
        if any(low.startswith(p) for p in prefixes):
            out.append((m.start(), m.end()))
    return out


def make_snippet(
    body: str, description: str, query: str, limit: int = SNIPPET_CHARS
) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The sentence(s) of the note that best match the query, cleaned to one line, with the
    spans of the query terms in it. Falls back to the description, then the body's start."""
    prefixes = sorted({_term_prefix(t) for t in key_terms(query)})
    text = body.replace(DRAFT_BANNER, "")
    sentences = [one_line(s) for s in _SENTENCE.split(text)]
    sentences = [s for s in sentences if s]
    best = ""
    if prefixes and sentences:
        scored = []
        for i, sent in enumerate(sentences):
            words = {w.lower() for w in _WORD.findall(sent)}
            hits = {p for p in prefixes for w in words if w.startswith(p)}
            scored.append((len(hits), -i, i))
        count, _, idx = max(scored)
        if count:
            best = sentences[idx]
            if len(best) < limit // 2 and idx + 1 < len(sentences):
                best = f"{best} {sentences[idx + 1]}"
    if not best:
        best = one_line(description) or (sentences[0] if sentences else "")
    if len(best) > limit:
        first = _spans(best, prefixes)
        start = 0
        if first and first[0][0] > limit // 2:
            start = best.rfind(" ", 0, first[0][0] - limit // 4) + 1
        best = ("…" if start else "") + best[start:]
        best = one_line(best, limit)
    return best, tuple(_spans(best, prefixes))


# --------------------------------------------------------------------------- the searcher


@dataclass(frozen=True)
class _Filter:
    """Structured filters, hashable (masks over the snapshot are cached per filter)."""

    types: tuple[str, ...] = ()
    scopes: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    stale: bool | None = None
    floor: float | None = None
    drafts: bool = False
    include_sensitive: bool = False

    @classmethod
    def of(cls, **filters: Any) -> _Filter:
        statuses = tuple(_values(filters.get("status")))
        floor = filters.get("min_confidence")
        return cls(
            types=tuple(_values(filters.get("types"))),
            scopes=tuple(_values(filters.get("scope"))),
            statuses=statuses,
            stale=filters.get("stale"),
            floor=None if floor is None else float(floor),
            drafts=bool(filters.get("drafts")) or "draft" in statuses,
            include_sensitive=bool(filters.get("include_sensitive")),
        )

    def ok(self, palace: Palace, row: dict[str, Any]) -> bool:
        return (
            (not self.types or row.get("type") in self.types)
            and (not self.scopes or row.get("scope") in self.scopes)
            and (not self.statuses or row.get("status") in self.statuses)
            and (self.drafts or row.get("kind") == "note")
            and (self.stale is None or bool(row.get("stale")) == self.stale)
            and (self.floor is None or float(row.get("confidence") or 0.0) >= self.floor)
            and visible(palace, row, include_sensitive=self.include_sensitive)
        )


@dataclass
class _Snapshot:
    """Every row's header fields (as Arrow columns), its name words and (lazily) its vector,
    held in memory for as-you-type name matching, filter masks and brute-force vector search
    (a matrix product is far faster than a scan through the table). Row dicts are made only for
    the rows a query returns. Rebuilt whenever the index state changes."""

    key: tuple[str, str, int]
    table: Any  # pyarrow.Table of META_COLUMNS, sorted by path
    paths: list[str]
    names: list[str]  # lower-cased
    vocab: list[str]  # sorted distinct name words
    postings: dict[str, np.ndarray]
    name_lens: np.ndarray
    vectors: np.ndarray | None = None
    masks: dict[_Filter, tuple[np.ndarray, int]] = field(default_factory=dict)
    columns: dict[str, np.ndarray] = field(default_factory=dict)
    _rows: dict[int, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def load(cls, store: IndexStore, key: tuple[str, str, int]) -> _Snapshot:
        table = store.meta_table()
        paths = [str(p) for p in table.column("path").to_pylist()]
        names = [str(n or "").lower() for n in table.column("name").to_pylist()]
        lists: dict[str, list[int]] = {}
        for i, name in enumerate(names):
            for word in set(_WORD.findall(name)):
                lists.setdefault(word, []).append(i)
        postings = {w: np.asarray(ix, dtype=np.int64) for w, ix in lists.items()}
        lens = np.fromiter((len(n) for n in names), dtype=np.int64, count=len(names))
        return cls(key, table, paths, names, sorted(postings), postings, lens)

    def __len__(self) -> int:
        return len(self.paths)

    def row(self, i: int) -> dict[str, Any]:
        found = self._rows.get(i)
        if found is None:
            found = self.table.slice(i, 1).to_pylist()[0]
            if len(self._rows) > 4096:
                self._rows.clear()
            self._rows[i] = found
        return dict(found)

    def mask(self, palace: Palace, flt: _Filter) -> tuple[np.ndarray, int]:
        """(rows hidden by the filter, how many rows pass) — cached per filter. The same rules
        as `_Filter.ok` (and so `visible`), computed over columns at once."""
        found = self.masks.get(flt)
        if found is None:
            ok = self._mask(palace, flt)
            found = (~ok, int(ok.sum()))
            if len(self.masks) > 64:
                self.masks.clear()
            self.masks[flt] = found
        return found

    def _column(self, name: str) -> np.ndarray:
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

    def _mask(self, palace: Palace, flt: _Filter) -> np.ndarray:
        ok = np.ones(len(self), dtype=bool)
        for name, allowed in (
            ("type", flt.types),
            ("scope", flt.scopes),
            ("status", flt.statuses),
        ):
            if allowed:
                ok &= np.isin(self._column(name), list(allowed))
        if not flt.drafts:
            ok &= self._column("kind") == "note"
        if flt.stale is not None:
            ok &= self._column("stale") == flt.stale
        if flt.floor is not None:
            ok &= self._column("confidence") >= flt.floor
        if not flt.include_sensitive:  # visibility: the column form of visible()
            ok &= ~self._column("sensitive")
            hidden_scopes = sensitive_scopes(palace)
            if hidden_scopes:
                ok &= ~np.isin(self._column("scope"), hidden_scopes)
        return ok

    def load_vectors(self, store: IndexStore) -> np.ndarray:
        if self.vectors is None:
            paths, vectors = store.all_vectors_matrix()
            if paths != self.paths:  # changed under us: the caller falls back to the table
                raise _StaleSnapshot()
            self.vectors = vectors
        return self.vectors


class _StaleSnapshot(Exception):
    pass


@dataclass
class Searcher:
    """Queries over one palace's index. Construction syncs the index (incremental)."""

    palace: Palace
    sync: bool = True
    store: IndexStore = field(init=False)
    sync_stats: SyncStats | None = field(init=False, default=None)
    _snap: _Snapshot | None = field(init=False, default=None)
    _freq: tuple[dict[str, int], int] | None = field(init=False, default=None)
    _words: dict[str, np.ndarray] = field(init=False, default_factory=dict)
    _note_word_cache: dict[str, tuple[str, ...]] = field(init=False, default_factory=dict)
    _lock: threading.RLock = field(init=False, default_factory=threading.RLock)

    def __post_init__(self) -> None:
        self.store = open_index(self.palace)
        if self.sync or not self.store.ready:
            try:
                self.sync_stats = sync_index(self.palace, store=self.store)
            except EmptyIndexRefused as exc:
                broken = sum(1 for n in self.palace.all() if not n.ok)
                raise SearchError(
                    f"{exc}. {broken} notes or drafts failed to parse; run 'curator check'"
                ) from None

    @property
    def recovered(self) -> list[str]:
        """Index folders moved aside as corrupt while opening (already rebuilt)."""
        return [str(p) for p in self.store.recovered]

    # ---- filters

    def _where(
        self,
        *,
        types: str | Sequence[str] | None = None,
        scope: str | Sequence[str] | None = None,
        status: str | Sequence[str] | None = None,
        stale: bool | None = None,
        min_confidence: float | None = None,
        drafts: bool = False,
        include_sensitive: bool = False,
    ) -> str | None:
        statuses = _values(status)
        kinds: list[str] = [] if drafts or "draft" in statuses else ["note"]
        if min_confidence is not None and not 0 <= float(min_confidence) <= 1:
            raise SearchError(f"min_confidence must be within 0..1, got {min_confidence}")
        base = where_sql(
            Filters(
                types=_values(types),
                scopes=_values(scope),
                statuses=statuses,
                kinds=kinds,
                stale=stale,
                min_confidence=min_confidence,
                include_sensitive=True,  # visibility is applied by where_visible below
            )
        )
        return and_where(base, where_visible(self.palace, include_sensitive=include_sensitive))

    # ---- retrieval core

    def query_vector(self, text: str) -> np.ndarray:
        """The query's embedding with smooth inverse frequency weights (Arora et al., 2017):
        each distinct word's embedding weighted by a / (a + p(word)), p its frequency in this
        palace, so that words every note uses ("the", a person's name, "really") count for
        little and rare, telling words for a lot. Documents keep their plain embedding."""
        words = list(dict.fromkeys(_WORD.findall(text.lower())))
        if not words:
            return self.store.embed_query(text)
        freq, total = self._word_freq()
        vectors = self.store.embedder.embed(words)
        weights = np.asarray(
            [SIF_A / (SIF_A + freq.get(w, 0) / total) for w in words], dtype=np.float32
        )
        vec = (vectors * weights[:, None]).sum(axis=0)
        norm = float(np.linalg.norm(vec))
        return (vec / norm).astype(np.float32) if norm > 0 else vec.astype(np.float32)

    def _word_freq(self) -> tuple[dict[str, int], int]:
        """Word counts over (a deterministic sample of) the palace's notes and drafts. The
        counts are kept in the index folder, keyed by the palace fingerprint, so that a one-shot
        process reads them instead of scanning a thousand notes (same counts either way)."""
        with self._lock:
            if self._freq is None:
                signature = f"{palace_signature(self.palace)}:{WORD_FREQ_SAMPLE}"
                path = self.store.index_dir / WORD_FREQ_FILE
                counts = _read_word_freq(path, signature)
                if counts is None:
                    counts = self._count_words()
                    _write_word_freq(path, signature, counts)
                self._freq = (counts, max(1, sum(counts.values())))
            return self._freq

    def _count_words(self) -> dict[str, int]:
        notes = [n for n in self.palace.all() if n.ok]
        step = max(1, len(notes) // WORD_FREQ_SAMPLE)
        counts: dict[str, int] = {}
        for note in notes[::step]:
            for w in _WORD.findall(f"{note.name} {note.description} {note.body}".lower()):
                counts[w] = counts.get(w, 0) + 1
        return counts

    def _snapshot(self) -> _Snapshot:
        state = self.store.state
        key = (state.table, state.updated, state.doc_count) if state else ("", "", 0)
        with self._lock:
            if self._snap is None or self._snap.key != key:
                self._snap = _Snapshot.load(self.store, key)
            return self._snap

    def _vector(
        self, vec: np.ndarray, where: str | None, flt: _Filter, n: int
    ) -> list[dict[str, Any]]:
        """Nearest rows by cosine similarity: the vectors are held in memory and searched by one
        matrix product (always the same code path, so rankings never depend on what ran
        before in the process; LanceDB's scan only if the table changed under the snapshot)."""
        snap = self._snapshot()
        try:
            matrix = snap.load_vectors(self.store)
        except _StaleSnapshot:
            return self.store.vector(vec, limit=n, where=where)
        if not len(snap) or not np.any(vec):
            return []
        hidden, passing = snap.mask(self.palace, flt)
        k = min(n, passing)
        if k <= 0:
            return []
        sims = matrix @ np.asarray(vec, dtype=np.float32)
        sims[hidden] = -np.inf
        top = np.argpartition(sims, len(sims) - k)[len(sims) - k :]
        order = sorted(top.tolist(), key=lambda i: (-float(sims[i]), snap.paths[i]))
        return [{**snap.row(i), "similarity": float(sims[i])} for i in order]

    def _fts(self, text: str, where: str | None, flt: _Filter, n: int) -> list[dict[str, Any]]:
        """BM25 matches. When the filter lets most rows through (known from the snapshot), one
        unfiltered query fetching twice as many rows and filtered here is cheaper than a SQL
        prefilter, and exact: the best n passing rows are among them whenever n of them pass;
        otherwise the prefiltered query runs."""
        snap = self._snapshot()
        if len(snap):
            _hidden, passing = snap.mask(self.palace, flt)
            if passing >= len(snap) * 0.5:
                rows = self.store.fts(text, limit=2 * n)
                ok = [r for r in rows if flt.ok(self.palace, r)]
                if len(ok) >= n or len(rows) < 2 * n:
                    return ok[:n]
        return self.store.fts(text, limit=n, where=where)

    def _rankings(
        self, texts: Sequence[str], where: str | None, flt: _Filter, n: int
    ) -> tuple[list[list[str]], list[float], dict[str, dict[str, Any]]]:
        """Rankings to fuse, their weights, and the rows by path: BM25 of the whole query (the
        FTS analyzer drops stopwords itself, so the key-terms phrasing would repeat it) and the
        vector neighbours of every phrasing (embeddings do change without stopwords)."""
        rows: dict[str, dict[str, Any]] = {}
        rankings: list[list[str]] = []
        weights: list[float] = []
        if not texts:
            return rankings, weights, rows
        results = [(self._fts(texts[0], where, flt, n), FTS_WEIGHT)]
        for text in texts:
            vec = self.query_vector(text)
            results.append((self._vector(vec, where, flt, n), VECTOR_WEIGHT / len(texts)))
        for ranking, weight in results:
            rankings.append([str(r["path"]) for r in ranking])
            weights.append(weight)
            for r in ranking:
                rows.setdefault(str(r["path"]), r)
        return rankings, weights, rows

    def _fuzzy(self, query: str, flt: _Filter, n: int) -> list[tuple[str, dict[str, Any]]]:
        """Note names close to a short query, best first: every query word may be a prefix (as
        you type) or a near miss (rapidfuzz over the name vocabulary); candidate names are then
        ranked by rapidfuzz against the whole query."""
        from rapidfuzz import fuzz, process

        snap = self._snapshot()
        words = _WORD.findall(query.lower())
        if not words or not len(snap):
            return []
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
        hidden, _passing = snap.mask(self.palace, flt)
        counts[hidden] = 0
        idx = np.flatnonzero(counts)
        if not len(idx):
            return []
        # most query words matched first, then the shortest names
        key = -counts[idx] * (1 << 20) + snap.name_lens[idx]
        if len(idx) > FUZZY_POOL:
            idx = idx[np.argpartition(key, FUZZY_POOL)[:FUZZY_POOL]]
        pool = idx.tolist()
        q = " ".join(words)
        scored = [
            (fuzz.WRatio(q, snap.names[i]) + 10.0 * int(counts[i]), snap.paths[i], i) for i in pool
        ]
        scored.sort(key=lambda t: (-t[0], t[1]))
        return [(p, snap.row(i)) for s, p, i in scored[:n] if s >= FUZZY_CUTOFF]

    def _fused(
        self,
        query: str,
        *,
        where: str | None,
        flt: _Filter,
        n: int,
        fuzzy: bool,
    ) -> tuple[list[tuple[str, float]], dict[str, dict[str, Any]]]:
        natural = _natural_language(query)
        k = SOFT_FUSE_K if natural else FUSE_K
        if natural:
            n = max(n, SOFT_CANDIDATES)
        texts = phrasings(query)
        rankings, weights, rows = self._rankings(texts, where, flt, n)
        if fuzzy and _is_short(query):
            names = self._fuzzy(query, flt, n)
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

    def _soft_rerank(
        self,
        query: str,
        scored: list[tuple[str, float]],
        rows: dict[str, dict[str, Any]],
    ) -> list[tuple[str, float]]:
        """Re-rank every candidate of a natural-language query by soft term matching: each key term
        of the query counts with its best cosine similarity to any word of the note (so "kids"
        meets "children"), weighted by inverse frequency like the query vector; and by the
        share of the key terms found in the note's name (its title). score = (fused +
        SOFT_WEIGHT * soft + NAME_WEIGHT * named) / (1 + SOFT_WEIGHT + NAME_WEIGHT), so scores
        stay within 0..1."""
        terms = key_terms(query)
        freq, total = self._word_freq()
        weights = np.asarray([SIF_A / (SIF_A + freq.get(w, 0) / total) for w in terms])
        prefixes = [_term_prefix(t) for t in terms]
        # One similarity row per distinct word of all the candidates, then per note the best
        # match of each term among its own words.
        note_words = [self._note_words(path, rows[path]) for path, _score in scored]
        vocab = list(dict.fromkeys(w for words in note_words for w in words))
        column = {w: i for i, w in enumerate(vocab)}
        sims = np.zeros((len(terms), 0), dtype=np.float32)
        if vocab and terms:
            sims = np.clip(self._word_vectors(terms) @ self._word_vectors(vocab).T, 0.0, 1.0)
        total_weight = float(weights.sum())
        scale = 1 + SOFT_WEIGHT + NAME_WEIGHT
        out = []
        for (path, score), words in zip(scored, note_words, strict=True):
            soft = 0.0
            if words and total_weight > 0:
                cols = np.fromiter((column[w] for w in words), dtype=np.intp, count=len(words))
                soft = float(sims[:, cols].max(axis=1) @ weights) / total_weight
            named = _name_share(str(rows[path].get("name") or ""), prefixes)
            out.append((path, (score + SOFT_WEIGHT * soft + NAME_WEIGHT * named) / scale))
        out.sort(key=lambda kv: (-kv[1], kv[0]))
        return out

    def _note_words(self, path: str, row: dict[str, Any]) -> tuple[str, ...]:
        """The distinct key words of a note's name, description and body (no stopwords),
        cached per Searcher for notes of its palace (whose text cannot change under it)."""
        found = self._note_word_cache.get(path)
        if found is None:
            low = self._note_text(path, row).lower()
            found = tuple(
                w for w in set(_WORD.findall(low)) - STOPWORDS if len(w) >= 2 or w.isdigit()
            )
            if path in self.palace.by_rel:
                if len(self._note_word_cache) >= NOTE_WORD_CACHE:
                    self._note_word_cache.clear()
                self._note_word_cache[path] = found
        return found

    def _note_text(self, path: str, row: dict[str, Any]) -> str:
        note = self.palace.by_rel.get(path)
        if note is not None and note.ok:
            return f"{note.name}\n{note.description}\n{note.body}"
        return "\n".join(str(row.get(k) or "") for k in ("name", "description", "body"))

    def _word_vectors(self, words: Sequence[str]) -> np.ndarray:
        """Embeddings of single words, cached per Searcher (bounded)."""
        cache = self._words
        missing = [w for w in dict.fromkeys(words) if w not in cache]
        if missing:
            if len(cache) + len(missing) > WORD_VECTOR_CACHE:
                cache.clear()
            for word, vec in zip(missing, self.store.embedder.embed(missing), strict=True):
                cache[word] = vec
        return np.asarray([cache[w] for w in words], dtype=np.float32)

    # ---- search

    def search(
        self,
        query: str,
        *,
        types: str | Sequence[str] | None = None,
        scope: str | Sequence[str] | None = None,
        status: str | Sequence[str] | None = None,
        stale: bool | None = None,
        min_confidence: float | None = None,
        drafts: bool = False,
        limit: int = 10,
        include_sensitive: bool = False,
    ) -> list[Hit]:
        """Hybrid search: BM25 + vectors fused by rank, plus fuzzy names for short queries."""
        if limit <= 0:
            return []
        filters: dict[str, Any] = dict(
            types=types,
            scope=scope,
            status=status,
            stale=stale,
            min_confidence=min_confidence,
            drafts=drafts,
            include_sensitive=include_sensitive,
        )
        where = self._where(**filters)
        flt = _Filter.of(**filters)
        n = max(limit * CANDIDATES_PER_RESULT, MIN_CANDIDATES)
        scored, rows = self._fused(query, where=where, flt=flt, n=n, fuzzy=True)
        hits = []
        for path, score in _superseded_down(scored, rows):
            row = rows[path]
            if not flt.ok(self.palace, row):  # the one visibility check, applied to every result
                continue
            hits.append(self._hit(row, score, query))
            if len(hits) >= limit:
                break
        return hits

    def _hit(self, row: dict[str, Any], score: float, query: str) -> Hit:
        snippet, spans = make_snippet(
            str(row.get("body") or ""), str(row.get("description") or ""), query
        )
        successor = None
        if row.get("status") in ("superseded", "retired"):
            note = self.palace.by_rel.get(str(row["path"]))
            nxt = self.palace.successor(note) if note is not None else None
            successor = nxt.rel if nxt is not None else None
        return Hit(
            path=str(row["path"]),
            name=one_line(str(row.get("name") or "")),
            type=str(row.get("type") or ""),
            score=round(float(score), 6),
            snippet=snippet,
            spans=spans,
            kind=str(row.get("kind") or "note"),
            status=str(row.get("status") or ""),
            scope=str(row.get("scope") or ""),
            stale=bool(row.get("stale")),
            stale_reason=one_line(str(row.get("stale_reason") or "")),
            confidence=row.get("confidence"),
            description=one_line(str(row.get("description") or "")),
            created=str(row.get("created") or ""),
            reviewed=str(row.get("reviewed") or ""),
            sensitive=bool(row.get("sensitive")),
            successor=successor,
        )

    # ---- ask

    def ask(self, question: str, *, limit: int = 8, include_sensitive: bool = False) -> Answer:
        """Sources for a question in order of authority: palace.toml authority order, stale
        notes flagged and ranked down, superseded notes replaced by their successor, drafts
        last and labelled unreviewed."""
        if limit <= 0:
            return Answer(question, tuple(phrasings(question)), ())
        filters: dict[str, Any] = dict(drafts=True, include_sensitive=include_sensitive)
        where = self._where(**filters)
        flt = _Filter.of(**filters)
        n = max(limit * CANDIDATES_PER_RESULT, MIN_CANDIDATES)
        scored, rows = self._fused(question, where=where, flt=flt, n=n, fuzzy=False)
        scored = _relevant(scored)
        authority = {t: i for i, t in enumerate(self.palace.config.authority)}
        last = len(authority)
        chosen: dict[str, Source] = {}
        for path, score in scored:
            row = rows[path]
            if not flt.ok(self.palace, row):
                continue
            superseded_from: tuple[str, ...] = ()
            if row.get("status") in ("superseded", "retired"):
                note = self.palace.by_rel.get(path)
                nxt = self.palace.successor(note) if note is not None else None
                if nxt is None or not visible(
                    self.palace, nxt, include_sensitive=include_sensitive
                ):
                    continue  # never returned as itself
                superseded_from = (path,)
                row = _note_row(self.palace, nxt)
                path = nxt.rel
            stale = bool(row.get("stale"))
            draft = row.get("kind") == "draft"
            adjusted = score * (STALE_PENALTY if stale else 1.0)
            prev = chosen.get(path)
            if prev is not None:
                merged = tuple(sorted({*prev.superseded_from, *superseded_from}))
                chosen[path] = _replace_source(prev, max(prev.score, adjusted), merged)
                continue
            if len(chosen) >= limit:
                continue
            snippet, spans = make_snippet(
                str(row.get("body") or ""), str(row.get("description") or ""), question
            )
            reason = one_line(str(row.get("stale_reason") or ""))
            label = (
                "unreviewed draft"
                if draft
                else (f"stale: {reason}" if stale and reason else "stale" if stale else "")
            )
            chosen[path] = Source(
                path=path,
                name=one_line(str(row.get("name") or "")),
                type=str(row.get("type") or ""),
                authority_rank=last + 1 if draft else authority.get(str(row.get("type")), last),
                score=round(adjusted, 6),
                snippet=snippet,
                spans=spans,
                stale=stale,
                stale_reason=reason,
                superseded_from=superseded_from,
                draft=draft,
                label=label,
                scope=str(row.get("scope") or ""),
                sensitive=bool(row.get("sensitive")),
                confidence=row.get("confidence"),
                reviewed=str(row.get("reviewed") or row.get("created") or ""),
            )
        ordered = sorted(
            chosen.values(), key=lambda s: (s.draft, s.authority_rank, s.stale, -s.score, s.path)
        )
        return Answer(question, tuple(phrasings(question)), tuple(ordered))

    # ---- pack

    def pack(
        self,
        goal: str,
        *,
        budget: int = 2000,
        floor: float = 0.7,
        include_sensitive: bool = False,
        candidates: int = 30,
    ) -> str:
        """A markdown memory pack for `goal`: reviewed, active notes at or above the confidence
        floor, best first, cut to `budget` tokens (≈ characters / 4). Stale notes are left out
        and named on one warning line. Deterministic: same palace and goal, same bytes."""
        if budget <= 0:
            raise SearchError(f"budget must be a positive number of tokens, got {budget}")
        if not 0 <= floor <= 1:
            raise SearchError(f"floor must be within 0..1, got {floor}")
        filters: dict[str, Any] = dict(
            status="active", min_confidence=floor, include_sensitive=include_sensitive
        )
        where = self._where(**filters)
        flt = _Filter.of(**filters)
        scored, rows = self._fused(goal, where=where, flt=flt, n=candidates, fuzzy=False)
        scored = _relevant(scored)
        header = [f"# Memory pack: {one_line(goal, 120)}", ""]
        entries: list[str] = []
        stale: list[str] = []
        used = _tokens("\n".join(header)) + 60  # room for the summary and warning lines
        for path, _score in scored[:candidates]:
            row = rows[path]
            if not flt.ok(self.palace, row):
                continue
            if row.get("stale"):
                stale.append(path)
                continue
            for entry in _pack_entries(row):
                cost = _tokens(entry)
                if used + cost <= budget:
                    entries.append(entry)
                    used += cost
                    break
        lines = list(header)
        lines.append(
            f"_{len(entries)} notes from memory, confidence ≥ {floor:g}, ~{used} of {budget} "
            "tokens. Each is a hint, not truth: check it against the repository before acting._"
        )
        lines.append("")
        if stale:
            lines.append(f"> ⚠ left out as stale (re-verify before use): {', '.join(stale)}")
            lines.append("")
        lines.extend(entries)
        return "\n".join(lines).rstrip() + "\n"

    # ---- dupes

    @overload
    def dupes(
        self,
        ref: str | None = None,
        *,
        text: str | None = None,
        all: Literal[False] = False,
        limit: int = 5,
        include_sensitive: bool = False,
    ) -> list[Candidate]: ...

    @overload
    def dupes(
        self,
        ref: None = None,
        *,
        text: None = None,
        all: Literal[True],
        limit: int = 5,
        include_sensitive: bool = False,
    ) -> list[DupePair]: ...

    @overload
    def dupes(
        self,
        ref: str | None = None,
        *,
        text: str | None = None,
        all: bool = False,
        limit: int = 5,
        include_sensitive: bool = False,
    ) -> list[Candidate] | list[DupePair]: ...

    def dupes(
        self,
        ref: str | None = None,
        *,
        text: str | None = None,
        all: bool = False,
        limit: int = 5,
        include_sensitive: bool = False,
    ) -> list[Candidate] | list[DupePair]:
        """Ranked near-duplicate candidates (never merged): of a note or draft (`ref`), of a
        text about to be captured (`text`, e.g. by capture before it writes a draft), or the
        likeliest pairs in the whole palace (`all=True`)."""
        if all:
            if ref is not None or text is not None:
                raise SearchError("dupes --all takes no note")
            return self.dupe_pairs(limit=limit, include_sensitive=include_sensitive)
        if (ref is None) == (text is None):
            raise SearchError("dupes needs exactly one of a note, a text or --all")
        exclude = ""
        if ref is not None:
            note = self.palace.find(ref)
            if not visible(self.palace, note, include_sensitive=include_sensitive):
                raise SearchError(
                    f"{note.rel} is sensitive; pass --include-sensitive to look for its dupes"
                )
            text = make_text(note.name, note.description, note.tags, note.body)
            exclude = note.rel
        assert text is not None
        where = and_where(
            "status NOT IN ('superseded', 'retired')",
            where_visible(self.palace, include_sensitive=include_sensitive),
        )
        vec = self.store.embed_query(text)
        rows = self.store.vector(vec, limit=limit * 4 + 8, where=where)
        from rapidfuzz import fuzz

        base = _fuzz_text(text)
        out: list[Candidate] = []
        for row in rows:
            if row["path"] == exclude or not visible(
                self.palace, row, include_sensitive=include_sensitive
            ):
                continue
            other = _fuzz_text(
                make_text(
                    str(row.get("name") or ""),
                    str(row.get("description") or ""),
                    list(row.get("tags") or []),
                    str(row.get("body") or ""),
                )
            )
            fz = fuzz.token_set_ratio(base, other) / 100.0
            sim = max(0.0, float(row["similarity"]))
            out.append(
                Candidate(
                    path=str(row["path"]),
                    name=one_line(str(row.get("name") or "")),
                    score=round(0.5 * sim + 0.5 * fz, 6),
                    vector_sim=round(sim, 6),
                    fuzz=round(fz, 6),
                    kind=str(row.get("kind") or ""),
                    type=str(row.get("type") or ""),
                    status=str(row.get("status") or ""),
                    scope=str(row.get("scope") or ""),
                    sensitive=bool(row.get("sensitive")),
                )
            )
        out.sort(key=lambda c: (-c.score, c.path))
        return out[:limit]

    def dupe_pairs(self, *, limit: int = 5, include_sensitive: bool = False) -> list[DupePair]:
        """The likeliest near-duplicate pairs in the palace, best first (never merged)."""
        from rapidfuzz import fuzz

        where = and_where(
            "status NOT IN ('superseded', 'retired')",
            where_visible(self.palace, include_sensitive=include_sensitive),
        )
        rows = self.store.all_vectors(where=where)
        rows = [r for r in rows if visible(self.palace, r, include_sensitive=include_sensitive)]
        if len(rows) < 2:
            return []
        mat = np.asarray([r["vector"] for r in rows], dtype=np.float32)
        k = min(3, len(rows) - 1)
        pairs: dict[tuple[int, int], float] = {}
        for start in range(0, len(rows), 1024):
            block = mat[start : start + 1024] @ mat.T
            for i in range(block.shape[0]):
                block[i, start + i] = -2.0
            top = np.argpartition(-block, k - 1, axis=1)[:, :k]
            for i in range(block.shape[0]):
                for j in top[i]:
                    a, b = sorted((start + i, int(j)))
                    pairs[(a, b)] = float(block[i, j])
        best = sorted(pairs.items(), key=lambda kv: -kv[1])[: max(limit * 4, 20)]
        out = []
        for (a, b), sim in best:
            ra, rb = rows[a], rows[b]
            fz = fuzz.token_set_ratio(_fuzz_text(_row_text(ra)), _fuzz_text(_row_text(rb))) / 100.0
            sim = max(0.0, sim)
            out.append(
                DupePair(
                    a=str(ra["path"]),
                    b=str(rb["path"]),
                    a_name=one_line(str(ra.get("name") or "")),
                    b_name=one_line(str(rb.get("name") or "")),
                    score=round(0.5 * sim + 0.5 * fz, 6),
                    vector_sim=round(sim, 6),
                    fuzz=round(fz, 6),
                )
            )
        out.sort(key=lambda p: (-p.score, p.a, p.b))
        return out[:limit]


# --------------------------------------------------------------------------- helpers


def _natural_language(query: str) -> bool:
    """A question or sentence rather than a keyword lookup: it has function words (or is long)
    and at least two key terms."""
    words = _WORD.findall(query)
    terms = key_terms(query)
    return len(terms) >= 2 and (len(words) > len(terms) or len(terms) >= SOFT_MIN_TERMS)


def _read_word_freq(path: Any, signature: str) -> dict[str, int] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("signature") != signature:
        return None
    counts = data.get("counts")
    if not isinstance(counts, dict) or not all(isinstance(v, int) for v in counts.values()):
        return None
    return counts


def _write_word_freq(path: Any, signature: str, counts: dict[str, int]) -> None:
    """Best effort (derived data, like the index itself): a failure only costs the next
    process a rescan."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        tmp.write_text(
            json.dumps({"signature": signature, "counts": counts}, ensure_ascii=False),
            encoding="utf-8",
        )
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass


def _name_share(name: str, prefixes: Sequence[str]) -> float:
    """The share of the query's key terms (as crude stems, see `_term_prefix`) that start a
    word of the note's name."""
    if not prefixes:
        return 0.0
    words = [w.lower() for w in _WORD.findall(name)]
    return sum(1 for p in prefixes if any(w.startswith(p) for w in words)) / len(prefixes)


def _superseded_down(
    scored: list[tuple[str, float]], rows: dict[str, dict[str, Any]]
) -> list[tuple[str, float]]:
    """Superseded and retired notes scored down (not dropped: search shows history too, each
    hit pointing at its successor), so the current note on a subject leads its old versions."""
    out = [
        (p, s * SUPERSEDED_PENALTY if rows[p].get("status") in ("superseded", "retired") else s)
        for p, s in scored
    ]
    out.sort(key=lambda kv: (-kv[1], kv[0]))
    return out


def _relevant(scored: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """Drop candidates far below the best one: ask and pack reorder by authority or fill a
    budget, so a weak match must not ride in on a vector neighbourhood alone."""
    if not scored:
        return scored
    floor = RELEVANCE_FLOOR * scored[0][1]
    return [(p, s) for p, s in scored if s >= floor]


def _values(value: str | Sequence[str] | None) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value else []
    return [str(v) for v in value if v]


def _is_short(query: str) -> bool:
    words = _WORD.findall(query)
    return 0 < len(words) <= FUZZY_MAX_WORDS


def _note_row(palace: Palace, note: Note) -> dict[str, Any]:
    from curator.search.index import doc_from_note

    doc = doc_from_note(palace, note)
    return {k: getattr(doc, k) for k in doc.__dataclass_fields__}


def _replace_source(src: Source, score: float, merged: tuple[str, ...]) -> Source:
    from dataclasses import replace

    return replace(src, score=round(score, 6), superseded_from=merged)


def _row_text(row: dict[str, Any]) -> str:
    return make_text(
        str(row.get("name") or ""),
        str(row.get("description") or ""),
        list(row.get("tags") or []),
        str(row.get("body") or ""),
    )


def _fuzz_text(text: str) -> str:
    return " ".join(_WORD.findall(text.replace(DRAFT_BANNER, "").lower()))[:4000]


def _tokens(text: str) -> int:
    """A deterministic token estimate: one token per four characters, rounded up."""
    return math.ceil(len(text) / 4)


def _pack_entries(row: dict[str, Any]) -> list[str]:
    """The full entry for a note, then a shorter one (description only) if the full one is big."""
    name = one_line(str(row.get("name") or ""))
    date = str(row.get("reviewed") or row.get("created") or "")[:10]
    when = f" (reviewed {date})" if row.get("reviewed") else (f" (created {date})" if date else "")
    head = f"## {name}\n> hint, not truth — source: {row['path']}{when}\n"
    desc = one_line(str(row.get("description") or ""))
    body = _clean_body(str(row.get("body") or ""))
    full = f"{head}\n{desc}\n\n{body}\n" if desc else f"{head}\n{body}\n"
    short = f"{head}\n{desc}\n" if desc else ""
    return [full, short] if short and short != full else [full]


def _clean_body(body: str) -> str:
    from curator.model.text import clean

    lines = [ln.rstrip() for ln in clean(body).strip().splitlines()]
    out: list[str] = []
    for ln in lines:  # collapse runs of blank lines
        if ln or (out and out[-1]):
            out.append(ln)
    return "\n".join(out).strip()


# --------------------------------------------------------------------------- module API

_SEARCHERS: weakref.WeakKeyDictionary[Palace, Searcher] = weakref.WeakKeyDictionary()
_SEARCHERS_LOCK = threading.Lock()


def searcher(palace: Palace) -> Searcher:
    """The cached Searcher of a Palace object (synced once when first made)."""
    with _SEARCHERS_LOCK:
        found = _SEARCHERS.get(palace)
        if found is None:
            found = Searcher(palace)
            _SEARCHERS[palace] = found
        return found


def search(palace: Palace, query: str, **kwargs: Any) -> list[Hit]:
    return searcher(palace).search(query, **kwargs)


def ask(palace: Palace, question: str, **kwargs: Any) -> Answer:
    return searcher(palace).ask(question, **kwargs)


def pack(palace: Palace, goal: str, **kwargs: Any) -> str:
    return searcher(palace).pack(goal, **kwargs)


def dupes(palace: Palace, ref: str | None = None, **kwargs: Any) -> list[Any]:
    return list(searcher(palace).dupes(ref, **kwargs))


__all__ = [
    "Answer",
    "Candidate",
    "DupePair",
    "Hit",
    "SearchError",
    "Searcher",
    "Source",
    "ask",
    "dupes",
    "key_terms",
    "make_snippet",
    "pack",
    "phrasings",
    "search",
    "searcher",
]
