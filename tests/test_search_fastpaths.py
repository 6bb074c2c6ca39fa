"""Search's fast paths give what their plain definitions give: each definition is written out
here as it reads, and compared with what search computes (hypothesis over hostile text)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from curator.model.note import DRAFT_BANNER
from curator.model.palace import Palace
from curator.model.text import one_line
from curator.search.searcher import Searcher
from curator.search.text import (
    _SENTENCE,
    SNIPPET_CHARS,
    WORD,
    key_terms,
    make_snippet,
    name_share,
    snippet_of,
    spans,
    term_prefix,
    words_of,
)

# words that meet query terms, sentence ends, blank lines, list marks, escapes and controls
_PIECES = st.sampled_from(
    ["deploy", "deploying", "Deploys", "queue", "retry", "the", "kids", "children", "a", "x1",
     ". ", "! ", "? ", "\n", "\n\n", "\n- ", "\n1. ", "\n> ", " ", "\t", "\r\n", "\x1b[31m",
     "\x07", "\u202e", "é", "naïve", "…", DRAFT_BANNER, "ÉCOLE", "ǅ"]
)  # fmt: skip
_TEXT = st.lists(st.one_of(_PIECES, st.text(max_size=6)), max_size=60).map("".join)


def plain_snippet(body: str, description: str, query: str, limit: int = SNIPPET_CHARS) -> tuple:
    """The snippet as defined: every sentence split and cleaned, and how many of the query's
    term prefixes start one of its words, counted word by word."""
    prefixes = sorted({term_prefix(t) for t in key_terms(query)})
    sentences = [one_line(s) for s in _SENTENCE.split(body.replace(DRAFT_BANNER, ""))]
    sentences = [s for s in sentences if s]
    hits = []
    for sent in sentences:
        words = [w.lower() for w in WORD.findall(sent)]
        hits.append(
            sum(1 for p in prefixes if " " not in p and any(w.startswith(p) for w in words))
        )
    return snippet_of(sentences, hits, description, prefixes, limit)


@settings(deadline=None)
@given(_TEXT, _TEXT, _TEXT, st.integers(10, 300))
def test_a_snippet_is_its_plain_definition(
    body: str, description: str, query: str, limit: int
) -> None:
    want = plain_snippet(body, description, query, limit)
    assert make_snippet(body, description, query, limit) == want
    assert make_snippet(body, description, query, limit) == want  # again, from what it kept


@settings(deadline=None)
@given(_TEXT, st.lists(st.sampled_from(["dep", "deploy", "queu", "kid", "é", "x1", "ǆ", ""])))
def test_spans_are_their_plain_definition(text: str, prefixes: list[str]) -> None:
    words = [(m.start(), m.end(), m.group().lower()) for m in WORD.finditer(text)]
    want = [(a, b) for a, b, w in words if any(w.startswith(p) for p in prefixes)]
    assert spans(text, prefixes) == want


def test_a_body_shown_again_is_not_split_again() -> None:
    from curator.search.text import sentences_of

    body = "First we deploy. Then the queue drains.\n\nA retry follows."
    make_snippet(body, "", "deploy queue")
    before = sentences_of.cache_info().hits
    assert make_snippet(body, "", "retry") == ("A retry follows.", ((2, 7),))
    assert sentences_of.cache_info().hits == before + 1


@settings(deadline=None)
@given(_TEXT, st.lists(st.sampled_from(["dep", "deploy", "queu", "kid", "é", "a b", "x1"])))
def test_a_name_share_is_its_plain_definition(name: str, prefixes: list[str]) -> None:
    words = [w.lower() for w in WORD.findall(name)]
    starts = [p for p in prefixes if " " not in p and any(w.startswith(p) for w in words)]
    want = len(starts) / len(prefixes) if prefixes else 0.0
    assert name_share(name, prefixes) == want
    assert name_share(name, prefixes) == want  # again, from the words it kept


def test_a_name_read_again_is_not_split_again() -> None:
    name_share("Deploy the retry queue", ["deploy"])
    before = words_of.cache_info().hits
    assert name_share("Deploy the retry queue", ["retr", "queu", "kid"]) == 2 / 3
    assert words_of.cache_info().hits == before + 1


QUERIES = [
    "what does the team prefer for deploys?",
    "deploy",
    "how do we run the tests",
    "dep",
    "who reviews the billing worker?",
    "retry queue",
]


def test_search_answers_alike_from_what_it_kept_and_afresh(indexed_palace: Path) -> None:
    # Real files, a real LanceDB index and WordLlama: a searcher that has answered every query
    # before (its notes' terms, words, rows, snippets and served bodies kept) ranks and shows
    # exactly what a fresh one does, and so does a fresh one after it
    from curator.search import text

    kept = Searcher(Palace.open(indexed_palace))
    for q in QUERIES:
        kept.search(q, limit=10)
    for q in QUERIES:
        again = kept.search(q, limit=10)
        text.sentences_of.cache_clear()
        text.words_of.cache_clear()
        fresh = Searcher(Palace.open(indexed_palace), sync=False).search(q, limit=10)
        assert again == fresh, q
        assert again, q


def test_a_query_vector_is_its_plain_definition(indexed_palace: Path) -> None:
    # Each distinct word of the query embedded on its own by the palace's embedder (WordLlama)
    # and weighted by its rarity: the ranker reads its words' rows of the word matrix it keeps
    # (filled by earlier queries and soft term matching), the same numbers bit for bit
    import numpy as np

    from curator.search.words import sif_weight

    searcher = Searcher(Palace.open(indexed_palace))
    embedder = searcher.source.embedder
    for q in [*QUERIES, *QUERIES]:  # the second time from the words it kept
        searcher.search(q, limit=5)
        words = list(dict.fromkeys(WORD.findall(q.lower())))
        if not words:
            continue
        freq = searcher._corpus().counts
        total = max(1, sum(freq.values()))
        weights = np.asarray([sif_weight(freq, total, w) for w in words], dtype=np.float32)
        vec = (embedder.embed(words) * weights[:, None]).sum(axis=0)
        norm = float(np.linalg.norm(vec))
        want = (vec / norm).astype(np.float32) if norm > 0 else vec.astype(np.float32)
        assert np.array_equal(searcher.query_vector(q), want), q
