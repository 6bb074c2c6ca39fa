"""The retrieval core shared by search, ask and pack: candidates, their scores and the sum.

Candidates are the BM25 matches of the whole query in the concatenated text (LanceDB FTS), its
vector neighbours (the palace's embedder; the query's phrasings averaged) and, for short
queries, rapidfuzz matches of note names. Each candidate is then scored on its own: BM25F over
its fields (name, description, tags, body, context, each with its weight: see
`curator.search.fields`) and its cosine similarity, each divided by the best candidate's
and added with weights (a weighted sum ranks far better than reciprocal rank fusion here); a
query asking when adds the notes that say when (`curator.search.temporal`); natural-language
queries add soft term matching and the share of their key terms in the note's name. A note
takes a share of the best score in its thread: the candidates its context holds (the turns
around it in one conversation), those whose context holds it, and those whose context shares a
line with its own (`threads`). When some candidates' names hold a key term of a question (the
person or the system it asks about), the others are then scored down (`Tuning.unnamed`): a note
that mentions a person is seldom the one about them. A candidate sharing no
word with the query is dropped, so a query nothing matches finds nothing. A configured
re-ranker (`curator.search.rerank`) re-orders the best of what is left. Every candidate is
read through one `Filter`, so hidden rows never reach the sum.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from curator.model import fuzzy
from curator.model.dates import header_dates
from curator.model.note import Note
from curator.model.palace import Palace
from curator.search.candidates import Candidates, Row, Vector
from curator.search.embed import word_embedder
from curator.search.fields import FEATURES, FieldTerms, bm25f_each
from curator.search.filters import Filter
from curator.search.fuse import rrf, scaled
from curator.search.index import doc_row, note_context, palace_signature
from curator.search.names import Names
from curator.search.rerank import RERANK_TOP, reranker_at
from curator.search.store import IndexStore, rows_of
from curator.search.temporal import time_cue
from curator.search.text import (
    WORD,
    is_short,
    key_terms,
    name_share,
    natural_language,
    phrasings,
    stems,
    term_prefix,
)
from curator.search.words import Corpus, corpus, field_texts, key_words, note_fields, sif_weight

FUZZY_WEIGHT = 0.5
FUZZY_POOL = 300  # candidate names ranked by the fuzzy name rule
FILTER_VERDICTS = 16  # filters whose per-note verdicts a Ranker keeps (names as you type)
SOFT_CANDIDATES = 75  # rows each ranking contributes for a natural-language query (at least)
SOFT_FLOOR = 0.6  # soft term matching this strong keeps a candidate without a shared word
WORD_VECTOR_CACHE = 50_000
NOTE_WORD_CACHE = 20_000  # notes whose reading (and rows in `_word_matrix`) a Ranker keeps
PREPARE_BATCH = 1024  # index rows `prepare` holds as dicts at once

if TYPE_CHECKING:
    import pyarrow as pa

T = TypeVar("T")
Rows = dict[str, Row]
Scored = list[tuple[str, float]]
Scores = dict[str, float]
Part = tuple[float, np.ndarray]


@dataclass(frozen=True)
class Tuning:
    """The weights of ranking. The parts of the sum for what a natural-language query says
    weigh alike, by rule, not tuned: its words (lexical and vector sharing one weight), its key
    terms by meaning (`soft`) and its key terms in the name (`named`). The other constants were
    chosen by leave-one-out over the LoCoMo dev conversations (benchmarks/locomo.py, which also
    varies them, and the fixed weights, for its ablation)."""

    # BM25F weights of name, description, tags, body and context (None: plain BM25 of the
    # concatenated text, as LanceDB's FTS scores it)
    fields: tuple[float, ...] | None = (4.0, 1.5, 1.5, 1.0, 0.5)
    lexical: float = 0.5
    vector: float = 0.5
    # the vector's weight when the embedder reads text in context (minilm): its similarities
    # rank by meaning far better than averaged word vectors do, and earn a larger share
    contextual_vector: float = 1.0
    soft: float = 1.0  # soft term matching (natural-language queries): lexical + vector
    named: float = 1.0  # the share of the key terms in the name (ditto): lexical + vector
    # a natural-language query some candidates' names answer to (the person or the system it
    # asks about): each candidate whose name holds none of its key terms is scaled by this
    unnamed: float = 0.8
    time: float = 0.15  # a query asking when: the notes that say when
    dates: bool = True  # the dates a note's text speaks of count (its `dates` field)
    smooth: float = 0.3  # the share of a thread neighbour's score a note takes
    rrf: bool = False  # reciprocal rank fusion instead of the weighted sum
    floor: bool = True  # drop candidates sharing no word with the query
    rerank: bool = True  # the [index] reranker re-orders the best candidates, when configured


_NO_LINES: frozenset[str] = frozenset()  # one for each note without a context (not one each)


class NoteText:
    """What ranking reads of a candidate: its fields' text (`texts`, read when first asked: a
    palace that let go of its notes' text reads the note's file), its body and context as
    compared for smoothing, and (made when first needed) its field terms and key words. Its
    index row keeps its terms and words (`kept_stems`, `kept_words`), and its context is in its
    header, so a candidate whose row keeps them and that has no context is ranked without
    reading its text."""

    def __init__(
        self,
        texts: tuple[str, ...] | Callable[[], tuple[str, ...]],
        *,
        kept_stems: str | None = None,
        kept_words: str | None = None,
        context: str | None = None,
    ) -> None:
        """`texts`: the text per field of `FIELDS`, or what reads it; `context`: its context
        field's text (the last of `texts`), when known without reading them."""
        if callable(texts):
            self._texts: tuple[str, ...] | None = None
            self._read: Callable[[], tuple[str, ...]] | None = texts
        else:
            self._texts, self._read = texts, None
        self.raw_context = context if context is not None else self.texts[4]
        self.kept_stems = kept_stems
        self.kept_words = kept_words
        self._body: str | None = None
        self._context: str | None = None

    @property
    def texts(self) -> tuple[str, ...]:
        """Its text per field of `FIELDS` (read once, when first asked)."""
        if self._texts is None:
            assert self._read is not None
            self._texts, self._read = self._read(), None
        return self._texts

    @property
    def body(self) -> str:
        """Its body, whitespace collapsed (as compared for smoothing)."""
        if self._body is None:
            self._body = " ".join(self.texts[3].split())
        return self._body

    @property
    def context(self) -> str:
        """Its context, whitespace collapsed; none for a note without a body (read only
        for a note that has a context)."""
        if self._context is None:
            flat = " ".join(self.raw_context.split())
            self._context = flat if flat and self.body else ""
        return self._context

    @functools.cached_property
    def terms(self) -> FieldTerms:
        stems, self.kept_stems = self.kept_stems, None  # read once: held as the terms only
        if stems is not None:
            with contextlib.suppress(ValueError):  # not one line per field: read the text
                return FieldTerms.read(stems)
        return FieldTerms.of(self.texts)

    @property
    def words(self) -> list[str]:
        """Its `key_words` (soft term matching), read from what its row keeps (else worked
        out from its text once, and kept as a row keeps them): read only when its rows of
        the word matrix are made, so not held as a list of strings per note."""
        if self.kept_words is None:
            self.kept_words = " ".join(key_words(self.texts))
        return self.kept_words.split()

    @functools.cached_property
    def context_lines(self) -> frozenset[str]:
        """The lines of its context (whitespace collapsed), as compared for smoothing."""
        if not self.context:
            return _NO_LINES
        lines = (" ".join(line.split()) for line in self.raw_context.splitlines())
        return frozenset(line for line in lines if line)

    @property
    def rerank_text(self) -> str:
        """What the re-ranker reads of the note: its name, description and body."""
        name, description, _tags, body, _context = self.texts
        return "\n".join(t for t in (name, description, body) if t)


def threads(notes: Sequence[NoteText]) -> list[set[int]]:
    """Per note, the other notes of its thread: those its context holds, those whose context
    holds it, and those whose context shares a line with its own (captured from the same
    passage: with one turn on each side as context, the turns two away)."""
    out: list[set[int]] = [set() for _ in notes]
    by_line: dict[str, list[int]] = {}
    for i, note in enumerate(notes):
        for line in note.context_lines:
            by_line.setdefault(line, []).append(i)
    for group in by_line.values():
        for i in group:
            out[i].update(group)
    for i, note in enumerate(notes):
        if not note.context:
            continue
        for j, other in enumerate(notes):
            if other.body and other.body in note.context:
                out[i].add(j)
                out[j].add(i)
    for i, found in enumerate(out):
        found.discard(i)
    return out


def smoothed(score: np.ndarray, notes: Sequence[NoteText], share: float) -> np.ndarray:
    """Each note's score plus `share` times the best score among the other notes of its
    thread (see `threads`), rescaled into 0..1."""
    out = score.copy()
    for i, others in enumerate(threads(notes)):
        if others:
            out[i] += share * max(float(score[j]) for j in others)
    return out / (1.0 + share)


def similarities(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b.T (cosine similarities of unit rows), by numpy's own single-threaded loop: the
    products of one query are small, and handing them to the multi-threaded BLAS costs more
    than it saves; on shared, busy cores its thread hand-offs set the tail latency."""
    return np.einsum("ij,kj->ik", a, b)


@dataclass
class Ranker:
    """Rankings over one palace, of the candidates its `source` finds (the index, or the
    palace alone); `Searcher` adds search, ask, pack and dupes."""

    palace: Palace
    source: Candidates = field(init=False)
    _names: tuple[weakref.ref[Palace], Names] | None = field(init=False, default=None)
    tuning: Tuning = field(init=False, default=Tuning())
    _stats: Corpus | None = field(init=False, default=None)
    # single words' embeddings, each a row of one matrix (`_word_rows`), and per note the rows
    # of its key words (`_note_word_rows`)
    _word_row: dict[str, int] = field(init=False, default_factory=dict)
    _word_matrix: np.ndarray | None = field(init=False, default=None)
    # per note, what ranking read of it: held while the palace holds that very note (`_held`)
    _note_rows: dict[str, tuple[Note, np.ndarray]] = field(init=False, default_factory=dict)
    _note_text_cache: dict[str, tuple[Note, NoteText]] = field(init=False, default_factory=dict)
    _doc_rows: dict[str, tuple[Note, Row]] = field(init=False, default_factory=dict)
    # per note, its index row's vector (of a row written from that very note's bytes)
    _vectors: dict[str, tuple[Note, np.ndarray]] = field(init=False, default_factory=dict)
    _verdicts: dict[tuple[Filter, date], dict[int, bool]] = field(init=False, default_factory=dict)
    _prepared: weakref.ref[Palace] | None = field(init=False, default=None)  # `prepare`'s palace
    _lock: threading.RLock = field(init=False, default_factory=threading.RLock)

    def query_vector(self, text: str) -> np.ndarray:
        """The query's embedding with smooth inverse frequency weights: each distinct word's
        embedding weighted by its rarity in this palace. Documents keep their plain embedding,
        and so does the query for an embedder that reads words in context (MiniLM)."""
        embedder = self.source.embedder
        if embedder is None:
            return np.zeros(1, dtype=np.float32)  # no embedder: no vector part
        words = list(dict.fromkeys(WORD.findall(text.lower())))
        if not words or self._contextual():
            return self.source.embed_query(text)
        freq = self._corpus().counts
        total = max(1, sum(freq.values()))
        vectors = self._word_vectors(words)  # each word's own embedding, kept for the next query
        weights = np.asarray([sif_weight(freq, total, w) for w in words], dtype=np.float32)
        vec = (vectors * weights[:, None]).sum(axis=0)
        norm = float(np.linalg.norm(vec))
        return (vec / norm).astype(np.float32) if norm > 0 else vec.astype(np.float32)

    def found(self, texts: Sequence[str], flt: Filter, n: int) -> tuple[list[Row], Vector]:
        """The candidates passing `flt` the source finds for the phrasings `texts` (rows carry
        `_score`, BM25 or None, and their vector), and the query vector (or None)."""
        return self.source.found(self, texts, flt, n)

    def _doc_row(self, path: str) -> Row:
        """`doc_row` of a parsed note of this palace without its body (read only for the
        notes shown: `row_body`), cached while the palace holds that very note (a note's
        text cannot change under it); the caller gets its own copy."""
        return dict(self._held_row(path))

    def _held_row(self, path: str, note: Note | None = None) -> Row:
        """`_doc_row`'s row (of `note`, else of the palace's note at `path`) as held: the
        caller copies it before changing it."""
        note = note or self.palace.by_rel[path]
        found = _held(self._doc_rows, path, note)
        if found is None:
            found = _hold(self._doc_rows, path, note, doc_row(self.palace, note, body=False))
        return found

    def prepare(self, busy: Callable[[], bool] | None = None) -> int:
        """What ranking reads of a candidate, worked out ahead for every note of the palace it
        does not hold yet (a long-lived server does this while quiet: `curator.agents.settling`):
        its row (`_doc_row`), its vector and field terms as its index row keeps them (what
        `IndexCandidates` takes after a query), and its key words' rows of the word matrix.
        A question meeting its candidates for the first time then looks them up instead of
        taking and reading them: the same values, so the same hits. A note whose index row was
        written from other bytes is left to the query (which reads its text). Only for a
        palace whose notes fit the caches (NOTE_WORD_CACHE) and whose words fit the word
        matrix: held for every note of a larger one, they would not fit a server's memory,
        and its candidates are read per query, their words embedded ahead (`_words_ahead`)
        when they fit the word matrix. `busy` is asked before each batch of
        notes: when a request came, it stops, and the next call goes on with the notes left
        (`prepared` names the palace only once it is done). Returns how many notes it read."""
        palace = self.palace  # what it reads is held for its notes, if replaced meanwhile
        done, read = self._read_ahead(palace, busy or (lambda: False))
        if done:
            self._prepared = weakref.ref(palace)
        return read

    def _read_ahead(self, palace: Palace, busy: Callable[[], bool]) -> tuple[bool, int]:
        """`prepare`'s work: whether it finished, and how many notes it read."""
        store = self.source.store
        notes = [n for n in palace.all() if n.ok]
        if store is None or self.source.embedder is None:
            return True, 0
        if len(notes) > NOTE_WORD_CACHE:
            return self._words_ahead(store, busy), 0
        self._let_go_of_others()
        fresh = [n for n in notes if not self._has_read(n.rel) or self._held_vector(n.rel) is None]
        if not fresh or busy():
            return not fresh, 0
        import pyarrow as pa

        wanted = {n.rel: n for n in fresh}
        table = store.columns(("path", "content_hash", *FEATURES, "vector"))
        read = 0
        for i, batch in enumerate(table.to_batches(PREPARE_BATCH)):  # rows, words: a batch
            if i and busy():  # at a time, a request waiting no longer than one batch
                return False, read
            ready: list[str] = []
            for row in rows_of(pa.Table.from_batches([batch])):
                path = str(row["path"])
                note = wanted.get(path)
                if note is None:
                    continue
                if row["content_hash"] != self._held_row(path, note)["content_hash"]:
                    continue  # a row of other bytes: the query reads the note
                _hold(self._vectors, path, note, row["vector"])
                _ = self._read_note(path, note, row).terms  # parsed now, not by a query
                ready.append(path)
            rows: Rows = {p: {} for p in ready}  # each note's reading is held: no row is read
            with self._lock:
                words = {w for p in ready for w in self._note_words(p, rows[p])}
                if len(self._word_row) + len(words - self._word_row.keys()) <= WORD_VECTOR_CACHE:
                    self._note_word_rows(ready, rows)  # else left to the queries
            read += len(ready)
        return True, read

    def _words_ahead(self, store: IndexStore, busy: Callable[[], bool]) -> bool:
        """For a palace whose notes' readings do not fit the caches: the key words its index
        rows keep, embedded ahead as rows of the word matrix when they fit it (a word's row is
        its embedding, whichever note or query asks), so a question meeting new candidates
        looks their words up instead of embedding them. Whether it finished (a request stops
        it between batches; the next quiet moment reads the words again)."""
        import pyarrow.compute as pc

        words: set[str] = set()
        stopped = False

        def add(batch: pa.RecordBatch) -> bool:
            nonlocal stopped
            stopped = busy()
            if not stopped:
                split = pc.list_flatten(pc.split_pattern(batch.column(0), " "))
                words.update(pc.unique(split).to_pylist())
            return not stopped and len(words) <= WORD_VECTOR_CACHE

        if not store.scan(("words",), PREPARE_BATCH, add):
            return not stopped  # too many words to hold: left to the queries
        words.discard("")
        with self._lock:
            new = sorted(words - self._word_row.keys())
            if len(self._word_row) + len(new) > WORD_VECTOR_CACHE:
                return True
        for start in range(0, len(new), PREPARE_BATCH):
            if busy():
                return False
            if self._word_rows(new[start : start + PREPARE_BATCH]):
                self._note_rows.clear()  # the matrix started afresh: every note's rows moved
        return True

    @property
    def prepared(self) -> Palace | None:
        """The palace `prepare` last ran over (whatever it found to do), while it lives."""
        return self._prepared() if self._prepared is not None else None

    def _let_go_of_others(self) -> None:
        """What the caches hold of notes the palace no longer holds (deleted, or changed: a
        changed note is a new object), let go, so they never crowd out the palace's own."""
        by_rel = self.palace.by_rel
        for cache in (self._doc_rows, self._note_text_cache, self._note_rows, self._vectors):
            for path, (note, _value) in list(cache.items()):
                if by_rel.get(path) is not note:
                    cache.pop(path, None)

    def names(self) -> Names:
        """The names of this searcher's palace, their words and postings (made once per
        palace: the as-you-type search of `benchmarks/bench_engine.py`'s prefix row reads
        them on every keystroke). The palace is held weakly: a reloaded one is freed."""
        with self._lock:
            held = self._names
            if held is None or held[0]() is not self.palace:
                held = self._names = (weakref.ref(self.palace), Names.of(self.palace))
                self._verdicts.clear()  # of the notes of the palace before
            return held[1]

    def fuzzy(self, query: str, flt: Filter, n: int) -> list[tuple[str, dict[str, Any]]]:
        """Note names close to a short query, best first: the notes passing `flt` whose names
        match the most query words (then the shortest names) are ranked by `fuzzy` against
        the whole query. Read from the palace, so each candidate is checked by the filter's
        per-row rendering, in that order, until the pool is full (each note's verdict kept for
        the next query with the same filter on the same day)."""
        if not self.source.names_as_you_type:
            return []  # the palace alone: BM25F weighs the names already
        words = WORD.findall(query.lower())
        names = self.names()
        if not words or not names.rels:
            return []
        counts = names.counts(words)
        idx = np.flatnonzero(counts)
        passes = self._passes(flt)
        pool: list[int] = []
        for i in idx[np.lexsort((idx, names.lengths[idx], -counts[idx]))].tolist():
            ok = passes.get(i)
            if ok is None:
                ok = passes[i] = flt.ok(names.filter_row(i, self.palace))
            if ok:
                pool.append(i)
                if len(pool) >= FUZZY_POOL:
                    break
        if not pool:
            return []
        bonus = 10.0 * counts[pool]
        cutoff = max(0.0, fuzzy.CUTOFF - float(bonus.max()))
        ratios = fuzzy.scores(" ".join(words), [names.name(i) for i in pool], cutoff)
        scored = [
            (r + b, names.rels[i], i)
            for r, b, i in zip(ratios.tolist(), bonus.tolist(), pool, strict=True)
            if r + b >= fuzzy.CUTOFF
        ]
        scored.sort(key=lambda t: (-t[0], t[1]))
        return [(p, self._doc_row(p)) for _s, p, i in scored[:n]]

    def _passes(self, flt: Filter) -> dict[int, bool]:
        """Which notes of `names()` pass `flt` today, as found so far (a note's verdict can
        change only with the palace, whose new names start afresh, or with the date)."""
        key = (flt, date.today())
        with self._lock:
            found = self._verdicts.get(key)
            if found is None:
                if len(self._verdicts) >= FILTER_VERDICTS:
                    self._verdicts.clear()
                found = self._verdicts[key] = {}
            return found

    def _similarities(self, query: Vector, rows: Rows) -> Scores:
        """Cosine similarity to the query vector of every row in `rows` (each carries its
        vector); nothing without a query vector."""
        held = [(p, r["vector"]) for p, r in rows.items() if r.get("vector") is not None]
        if query is None or not held:
            return {}
        sims = similarities(np.stack([v for _, v in held]), query[None, :])[:, 0]
        return {p: float(s) for (p, _), s in zip(held, sims, strict=True)}

    def fused(self, query: str, flt: Filter, n: int, *, fuzzy: bool) -> tuple[Scored, Rows]:
        """Candidates for `query` passing `flt`, scored within 0..1 (best first), and their
        rows; nothing when no candidate shares a word with the query (the relevance floor)."""
        texts = phrasings(query)
        if not texts:
            return [], {}
        tune = self.tuning
        natural = natural_language(query)
        if natural:
            n = max(n, SOFT_CANDIDATES)
        rows: Rows = {}
        bm25: Scores = {}
        found, query_vec = self.found(texts, flt, n)
        for r in found:
            path = str(r["path"])
            rows.setdefault(path, r)
            bm25[path] = float(r.get("_score") or 0.0)
        sims = self._similarities(query_vec, rows)
        names: Scores = {}
        if fuzzy and is_short(query):
            by_name = self.fuzzy(query, flt, n)
            for rank, (path, r) in enumerate(by_name):
                rows.setdefault(path, r)
                names[path] = 1.0 - rank / len(by_name)
        if not rows:
            return [], rows
        paths = sorted(rows)
        notes = [self._note_text(p, rows[p]) for p in paths]
        if tune.fields is None:
            lex = np.asarray([bm25.get(p, 0.0) for p in paths])
        else:
            terms = list(dict.fromkeys(stems(query)))
            corpus = self._corpus()
            lex = bm25f_each(terms, [t.terms for t in notes], corpus, tune.fields)
        vec = np.asarray([sims.get(p, 0.0) for p in paths])
        parts = self._parts(lex, vec, paths)
        if names:
            parts.append((FUZZY_WEIGHT, np.asarray([names.get(p, 0.0) for p in paths])))
        if tune.time:
            parts += self._time_part(query, paths, rows, notes)
        soft = named = np.zeros(len(paths))
        if natural and (tune.soft or tune.named or tune.floor or tune.unnamed != 1.0):
            soft, named = self._soft_scores(query, paths, rows)
            parts += [(tune.soft, soft), (tune.named, named)]
        total = sum(w for w, _ in parts) or 1.0
        score = sum((w * a for w, a in parts), np.zeros(len(paths))) / total
        if tune.smooth:
            score = smoothed(score, notes, tune.smooth)
        if tune.unnamed != 1.0 and named.any():
            # after smoothing: a turn addressing the person lends its score to the reply of the
            # person named, then ranks below it
            score = np.where(named > 0, score, score * tune.unnamed)
        keep = np.ones(len(paths), dtype=bool)
        if tune.floor:
            keep = (lex > 0) | (np.asarray([names.get(p, 0.0) for p in paths]) > 0)
            keep |= soft >= SOFT_FLOOR
        scored = [(p, float(s)) for p, s, k in zip(paths, score, keep, strict=True) if k]
        scored.sort(key=lambda kv: (-kv[1], kv[0]))
        reranker = self.palace.config.index.reranker
        if reranker and tune.rerank and len(scored) > 1:
            text = {p: note for p, note in zip(paths, notes, strict=True)}
            top = [text[p].rerank_text for p, _ in scored[:RERANK_TOP]]
            scored = reranker_at(reranker).rerank(query, scored, top)
        return scored, rows

    def _time_part(
        self, query: str, paths: list[str], rows: Rows, notes: Sequence[NoteText]
    ) -> list[Part]:
        """The time cue's part of the sum: per candidate, whether its date or a date its text
        speaks of (its `dates` field) falls in a period the query names, or the query asks
        when and the note says when (`curator.search.temporal`); no part without a cue."""
        cue = time_cue(query)
        if cue is None:
            return []
        when = []
        for path, text in zip(paths, notes, strict=True):
            note = self.palace.by_rel.get(path)
            ok = self.tuning.dates and note is not None and note.ok
            dates = header_dates(note.header.get("dates")) if ok and note else []
            when.append(cue.match(str(rows[path].get("created") or ""), text.body, dates))
        return [(self.tuning.time, np.asarray(when))]

    def _parts(self, lex: np.ndarray, vec: np.ndarray, paths: list[str]) -> list[Part]:
        """The lexical and vector scores as weighted parts of the sum: each divided by the best
        over the candidates (or, with `Tuning.rrf`, both fused by reciprocal rank instead)."""
        tune = self.tuning
        vector = tune.contextual_vector if self._contextual() else tune.vector
        if not tune.rrf:
            return [(tune.lexical, scaled(lex)), (vector, scaled(vec))]
        order = [[paths[i] for i in np.argsort(-a, kind="stable") if a[i] > 0] for a in (lex, vec)]
        fused = dict(rrf(order, weights=[tune.lexical, vector]))
        return [(1.0, scaled(np.asarray([fused.get(p, 0.0) for p in paths])))]

    def _contextual(self) -> bool:
        """Whether the index's embedder reads a text as a whole (not as a bag of words)."""
        return bool(getattr(self.source.embedder, "contextual", False))

    def _corpus(self) -> Corpus:
        with self._lock:
            if self._stats is None:
                signature = palace_signature(self.palace)
                self._stats = corpus(self.palace, self.source.index_dir, signature)
            return self._stats

    def _note_text(self, path: str, row: dict[str, Any]) -> NoteText:
        """What ranking reads of a candidate (its field terms and key words as its row keeps
        them, when it does: `curator.search.candidates.IndexCandidates`), cached while the
        palace holds that very note (a note's text cannot change under it)."""
        return self._read_note(path, self.palace.by_rel.get(path), row)

    def _read_note(self, path: str, note: Note | None, row: dict[str, Any]) -> NoteText:
        """`_note_text` of `note`, the note at `path` (None: a row the palace has no note
        for)."""
        found = _held(self._note_text_cache, path, note)
        if found is None:
            stems, words = (_str(row.get(k)) for k in FEATURES)
            if note is not None and note.ok:
                found = NoteText(
                    functools.partial(note_fields, note),
                    kept_stems=stems,
                    kept_words=words,
                    context=note_context(note),
                )
                _hold(self._note_text_cache, path, note, found)
            else:
                found = NoteText(row_fields(row), kept_stems=stems, kept_words=words)
        return found

    def _soft_scores(self, query: str, paths: list[str], rows: Rows) -> tuple[np.ndarray, ...]:
        """Per candidate of a natural-language query: soft term matching (each key term counts
        with its best cosine similarity to any word of the note, so "kids" meets "children",
        weighted by inverse frequency like the query vector) and the share of the key terms in
        the note's name; both within 0..1."""
        terms = key_terms(query)
        freq = self._corpus().counts
        total = max(1, sum(freq.values()))
        weights = np.asarray([sif_weight(freq, total, w) for w in terms])
        prefixes = [term_prefix(t) for t in terms]
        soft = np.zeros(len(paths))
        total_weight = float(weights.sum())
        if terms and total_weight > 0 and self.source.embedder is not None:
            term_vectors = self._word_vectors(terms)  # first: the notes' rows are read after
            note_rows = self._note_word_rows(paths, rows)
            lengths = np.fromiter(map(len, note_rows), dtype=np.intp, count=len(note_rows))
            has = lengths > 0
            if has.any():
                # each note's best similarity per term: the terms against each distinct word
                # once, then one reduction over every note's columns
                vocab, cols = np.unique(np.concatenate(note_rows), return_inverse=True)
                assert self._word_matrix is not None
                pairs = similarities(term_vectors, self._word_matrix[vocab])
                sims = np.clip(pairs, 0.0, 1.0)
                starts = (np.cumsum(lengths) - lengths)[has]
                best = np.maximum.reduceat(sims[:, cols], starts, axis=1)
                soft[has] = (weights @ best) / total_weight
        named = np.asarray([name_share(str(rows[p].get("name") or ""), prefixes) for p in paths])
        return soft, named.astype(np.float64).reshape(len(paths))

    def _held_vector(self, path: str) -> np.ndarray | None:
        """The vector of the index row of the note at `path` (`_hold_vector`), while the
        palace holds that very note."""
        return _held(self._vectors, path, self.palace.by_rel.get(path))

    def _hold_vector(self, path: str, vector: np.ndarray) -> None:
        """Keep the vector of the index row written from the bytes of the note at `path`."""
        note = self.palace.by_rel.get(path)
        if note is not None:
            _hold(self._vectors, path, note, vector)

    def _has_read(self, path: str) -> bool:
        """Whether ranking holds what it read of the candidate at `path` (`_note_text`)."""
        return _held(self._note_text_cache, path, self.palace.by_rel.get(path)) is not None

    def _note_words(self, path: str, row: dict[str, Any]) -> list[str]:
        """A candidate's key words (`NoteText.words`)."""
        return self._note_text(path, row).words

    def _note_word_rows(self, paths: Sequence[str], rows: Rows) -> list[np.ndarray]:
        """Per note, the rows of `_word_matrix` holding its key words (`_note_words`), the
        words first seen embedded in one call; cached beside its words. The notes not held
        are looked up together: one array for all, split per note."""
        notes = [self.palace.by_rel.get(p) for p in paths]
        out = [_held(self._note_rows, p, note) for p, note in zip(paths, notes, strict=True)]
        new = [i for i, held in enumerate(out) if held is None]
        words = {i: self._note_words(paths[i], rows[paths[i]]) for i in new}
        every = list(itertools.chain.from_iterable(words.values()))
        at = list(map(self._word_row.get, every))
        if None in at:
            if self._word_rows([w for w, i in zip(every, at, strict=True) if i is None]):
                self._note_rows.clear()  # the matrix started afresh: every note's rows moved
                new = list(range(len(paths)))
                words = {i: words.get(i) or self._note_words(paths[i], rows[paths[i]]) for i in new}
                every = list(itertools.chain.from_iterable(words[i] for i in new))
                self._word_rows(every)
            at = list(map(self._word_row.__getitem__, every))
        flat = np.asarray(at, dtype=np.intp)
        counts = np.fromiter((len(words[i]) for i in new), dtype=np.intp, count=len(new))
        ends = np.cumsum(counts)
        for i, start, end in zip(new, (ends - counts).tolist(), ends.tolist(), strict=True):
            note, found = notes[i], flat[start:end]
            out[i] = _hold(self._note_rows, paths[i], note, found) if note is not None else found
        return [o if o is not None else flat[:0] for o in out]

    def _word_rows(self, words: Sequence[str]) -> bool:
        """Embed the `words` not in `_word_matrix` yet, in one call, as new rows (bounded:
        past WORD_VECTOR_CACHE words the matrix starts afresh); whether rows held before
        were dropped."""
        with self._lock:  # a server's quiet `prepare` adds rows beside its queries
            return self._new_word_rows(words)

    def _new_word_rows(self, words: Sequence[str]) -> bool:
        index = self._word_row
        missing = [w for w in dict.fromkeys(words) if w not in index]
        if not missing:
            return False
        dropped = bool(index) and len(index) + len(missing) > WORD_VECTOR_CACHE
        if dropped:
            index.clear()
            missing = list(dict.fromkeys(words))
        embedder = self.source.embedder
        assert embedder is not None  # soft term matching asks only with one
        vectors = np.asarray(word_embedder(embedder).embed(missing), dtype=np.float32)
        vectors = vectors.reshape(len(missing), -1)
        used = len(index)
        matrix = self._word_matrix
        if dropped or matrix is None or matrix.shape[1] != vectors.shape[1]:
            matrix = np.empty((max(1024, len(missing)), vectors.shape[1]), dtype=np.float32)
        elif used + len(missing) > len(matrix):
            grown = np.empty((max(2 * len(matrix), used + len(missing)), matrix.shape[1]),
                             dtype=np.float32)  # fmt: skip
            grown[:used] = matrix[:used]
            matrix = grown
        matrix[used : used + len(missing)] = vectors
        self._word_matrix = matrix
        for i, word in enumerate(missing, start=used):
            index[word] = i
        return dropped

    def _word_vectors(self, words: Sequence[str]) -> np.ndarray:
        """Embeddings of single words (rows of `_word_matrix`, embedded when first seen);
        zeros without an embedder (soft term matching then adds nothing)."""
        if self.source.embedder is None:
            return np.zeros((len(words), 1), dtype=np.float32)
        if self._word_rows(words):
            self._note_rows.clear()
        assert self._word_matrix is not None
        return self._word_matrix[[self._word_row[w] for w in words]]


def row_fields(row: Row) -> tuple[str, ...]:
    """The text per field of `FIELDS` of an index row."""
    tags = row.get("tags")
    return field_texts(
        str(row.get("name") or ""),
        str(row.get("description") or ""),
        [str(t) for t in tags] if isinstance(tags, list | tuple) else [],
        str(row.get("body") or ""),
        str(row.get("context") or ""),
    )


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _held(cache: dict[str, tuple[Note, T]], path: str, note: Note | None) -> T | None:
    """What `cache` holds for `path` while it was read from this very `note` (a palace reload
    shares every unchanged note, and a changed one is a new object, read afresh)."""
    found = cache.get(path)
    return found[1] if found is not None and note is not None and found[0] is note else None


def _hold(cache: dict[str, tuple[Note, T]], path: str, note: Note, value: T) -> T:
    """Keep `value`, read from `note`, in `cache` (bounded: past NOTE_WORD_CACHE notes it
    starts afresh)."""
    if len(cache) >= NOTE_WORD_CACHE:
        cache.clear()
    cache[path] = (note, value)
    return value


__all__ = ["Ranker", "Rows", "Scored"]


RELEVANCE_FLOOR = 0.65  # ask and pack keep candidates scoring at least this share of the best


def relevant(scored: Scored) -> Scored:
    """Drop candidates far below the best one: ask and pack reorder by authority or fill a
    budget, so a weak match must not ride in on a vector neighbourhood alone."""
    if not scored:
        return scored
    floor = RELEVANCE_FLOOR * scored[0][1]
    return [(p, s) for p, s in scored if s >= floor]
