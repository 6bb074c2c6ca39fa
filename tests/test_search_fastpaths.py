"""Search's fast paths give what their plain definitions give: each definition is written out
here as it reads, and compared with what search computes (hypothesis over hostile text)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from curator.model.note import DRAFT_BANNER
from curator.model.text import one_line
from curator.search.text import (
    _SENTENCE,
    SNIPPET_CHARS,
    WORD,
    key_terms,
    make_snippet,
    snippet_of,
    term_prefix,
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


@settings(max_examples=400, deadline=None)
@given(_TEXT, _TEXT, _TEXT, st.integers(10, 300))
def test_a_snippet_is_its_plain_definition(
    body: str, description: str, query: str, limit: int
) -> None:
    want = plain_snippet(body, description, query, limit)
    assert make_snippet(body, description, query, limit) == want
    assert make_snippet(body, description, query, limit) == want  # again, from what it kept


def test_a_body_shown_again_is_not_split_again() -> None:
    from curator.search.text import sentences_of

    body = "First we deploy. Then the queue drains.\n\nA retry follows."
    make_snippet(body, "", "deploy queue")
    before = sentences_of.cache_info().hits
    assert make_snippet(body, "", "retry") == ("A retry follows.", ((2, 7),))
    assert sentences_of.cache_info().hits == before + 1
