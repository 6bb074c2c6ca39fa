"""Field-aware lexical scoring (BM25F, Robertson et al. 2004): a note's name, description,
tags, body and context each count with their own weight and length normalisation, so a query
word in a note's name (the person, the system it is about) counts for more than the same word
in its body, and the conversation a fact came from (its context) for less than the fact.

    score = sum over query terms t of idf(t) * tf(t) / (K1 + tf(t)),
    tf(t) = sum over fields f of weight_f * count_f(t) / (1 - B + B * len_f / mean len_f)
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from curator.search.text import stems
from curator.search.words import FIELDS, Corpus, key_words

K1 = 1.2
B = 0.75


# What the index keeps of each note for ranking, beside its fields (`features`)
FEATURES = ("stems", "words")


@dataclass(frozen=True)
class FieldTerms:
    """The stem counts of one note, per field of `FIELDS`."""

    counts: tuple[Counter[str], ...]
    lengths: tuple[int, ...]

    @classmethod
    def of(cls, texts: Sequence[str]) -> FieldTerms:
        """Of a note's text per field."""
        return cls._counted([stems(t) for t in texts])

    @classmethod
    def read(cls, stored: str) -> FieldTerms:
        """Of its `stored_stems` (ValueError when it does not hold one line per field). Each
        stem interned: the notes a searcher holds share one string per stem, as `stems`
        gives them, not one per note."""
        found = [list(map(sys.intern, line.split())) for line in stored.split("\n")]
        if len(found) != len(FIELDS):
            raise ValueError(f"stems of {len(found)} fields, not {len(FIELDS)}")
        return cls._counted(found)

    @classmethod
    def _counted(cls, found: list[list[str]]) -> FieldTerms:
        return cls(tuple(Counter(f) for f in found), tuple(len(f) for f in found))


def stored_stems(texts: Sequence[str]) -> str:
    """A note's stems (`stems`: no spaces in one), a line per field of `FIELDS`, separated
    by spaces."""
    return "\n".join(" ".join(stems(t)) for t in texts)


def features(texts: Sequence[str]) -> tuple[str, str]:
    """What ranking reads of a note (`texts` per field of `FIELDS`), as its index row keeps it:
    its stems per field (`FieldTerms.read`) and its key words (`key_words`, for soft term
    matching) separated by spaces. Worked out once, when the row is written: a query finds
    them with its candidates instead of reading each candidate's text afresh."""
    return stored_stems(texts), " ".join(key_words(texts))


def idf(corpus: Corpus, term: str) -> float:
    df = corpus.df.get(term, 0)
    return math.log(1.0 + (corpus.docs - df + 0.5) / (df + 0.5))


def bm25f(
    terms: Sequence[str], note: FieldTerms, corpus: Corpus, weights: Sequence[float]
) -> float:
    """The BM25F score of a note for the (distinct, stemmed) query terms."""
    norms = [
        w / (1.0 - B + B * n / avg) if avg > 0 else w
        for w, n, avg in zip(weights, note.lengths, corpus.avg_len, strict=True)
    ]
    score = 0.0
    for term in terms:
        tf = sum(norm * c[term] for norm, c in zip(norms, note.counts, strict=True) if term in c)
        if tf:
            score += idf(corpus, term) * tf / (K1 + tf)
    return score


__all__ = [
    "FEATURES",
    "FIELDS",
    "K1",
    "B",
    "FieldTerms",
    "bm25f",
    "features",
    "idf",
    "stored_stems",
]
