"""Field-aware lexical scoring (BM25F, Robertson et al. 2004): a note's name, description,
tags, body and context each count with their own weight and length normalisation, so a query
word in a note's name (the person, the system it is about) counts for more than the same word
in its body, and the conversation a fact came from (its context) for less than the fact.

    score = sum over query terms t of idf(t) * tf(t) / (K1 + tf(t)),
    tf(t) = sum over fields f of weight_f * count_f(t) / (1 - B + B * len_f / mean len_f)
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from curator.search.text import stems
from curator.search.words import FIELDS, Corpus

K1 = 1.2
B = 0.75


@dataclass(frozen=True)
class FieldTerms:
    """The stem counts of one note, per field of `FIELDS`."""

    counts: tuple[Counter[str], ...]
    lengths: tuple[int, ...]

    @classmethod
    def of(cls, texts: Sequence[str]) -> FieldTerms:
        found = [stems(t) for t in texts]
        return cls(tuple(Counter(f) for f in found), tuple(len(f) for f in found))


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


__all__ = ["FIELDS", "K1", "B", "FieldTerms", "bm25f", "idf"]
