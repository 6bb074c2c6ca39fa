"""Field-aware lexical scoring (BM25F, Robertson et al. 2004): a note's name, description,
tags, body and context each count with their own weight and length normalisation, so a query
word in a note's name (the person, the system it is about) counts for more than the same word
in its body, and the conversation a fact came from (its context) for less than the fact.

    score = sum over query terms t of idf(t) * tf(t) / (K1 + tf(t)),
    tf(t) = sum over fields f of weight_f * count_f(t) / (1 - B + B * len_f / mean len_f)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from curator.search.text import stems
from curator.search.words import FIELDS, Corpus, key_words

K1 = 1.2
B = 0.75


# What the index keeps of each note for ranking, beside its fields (`features`)
FEATURES = ("stems", "words")


@dataclass(frozen=True)
class FieldTerms:
    """The stems of one note per field of `FIELDS`: each field's as one string with every
    stem between two spaces of its own (" a  b  a "), so a stem's count in a field is the
    string's count of it between spaces (`counts`), and how many stems each field has. Read
    from a stored line by a few string operations, not split into a counter per field: most
    candidates of a query are read once and asked about one to five terms."""

    spaced: tuple[str, ...]
    lengths: tuple[int, ...]

    @classmethod
    def of(cls, texts: Sequence[str]) -> FieldTerms:
        """Of a note's text per field."""
        return cls._of([stems(t) for t in texts])

    @classmethod
    def read(cls, stored: str) -> FieldTerms:
        """Of its `stored_stems` (ValueError when it does not hold one line per field): the
        stems of each line are its whitespace-separated words."""
        lines = stored.split("\n")
        if len(lines) != len(FIELDS):
            raise ValueError(f"stems of {len(lines)} fields, not {len(FIELDS)}")
        if all(map(_single_spaced, lines)):  # as `stored_stems` writes them
            spaced = tuple(f" {line.replace(' ', '  ')} " if line else "" for line in lines)
            return cls(spaced, tuple(line.count(" ") + 1 if line else 0 for line in lines))
        return cls._of([line.split() for line in lines])

    @classmethod
    def _of(cls, found: Sequence[Sequence[str]]) -> FieldTerms:
        spaced = tuple(f" {'  '.join(f)} " if f else "" for f in found)
        return cls(spaced, tuple(len(f) for f in found))

    def counts(self, term: str) -> list[int]:
        """How many times each field holds the stem `term` (none of an empty term or one
        holding whitespace, which no stem is)."""
        if term.split() != [term]:
            return [0] * len(self.spaced)
        needle = f" {term} "
        return [s.count(needle) for s in self.spaced]


def _single_spaced(line: str) -> bool:
    """Whether `line`'s whitespace-separated words are its words between single spaces: no
    other whitespace (every whitespace character but the space is unprintable), no run of
    spaces and none at either end."""
    return line.isprintable() and "  " not in line and line[:1] != " " and line[-1:] != " "


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
        tf = sum(norm * c for norm, c in zip(norms, note.counts(term), strict=True) if c)
        if tf:
            score += idf(corpus, term) * tf / (K1 + tf)
    return score


def bm25f_each(
    terms: Sequence[str], notes: Sequence[FieldTerms], corpus: Corpus, weights: Sequence[float]
) -> np.ndarray:
    """`bm25f` of each of `notes`, the same numbers worked out for all of them at once: the
    per-field norms as one array, each term's counts, and the sums taken in `bm25f`'s order
    (a field's zero count adds an exact zero; a term no field holds adds nothing)."""
    out = np.zeros(len(notes))
    if not notes:
        return out
    lengths = np.asarray([t.lengths for t in notes], dtype=np.float64)
    avg = np.asarray(corpus.avg_len, dtype=np.float64)
    wanted = np.asarray(weights, dtype=np.float64)
    with np.errstate(all="ignore"):  # an average length of 0 is not divided by
        norms = np.where(
            avg > 0, wanted / (1.0 - B + B * lengths / np.where(avg > 0, avg, 1.0)), wanted
        )
    for term in terms:
        if term.split() != [term]:
            continue  # no stem: `FieldTerms.counts` finds it nowhere
        needle = f" {term} "
        counts = np.asarray([[f.count(needle) for f in t.spaced] for t in notes], dtype=np.float64)
        tf = (norms * counts).sum(axis=1)
        out += np.where(tf != 0, idf(corpus, term) * tf / (K1 + tf), 0.0)
    return out


__all__ = [
    "FEATURES",
    "FIELDS",
    "K1",
    "B",
    "FieldTerms",
    "bm25f",
    "bm25f_each",
    "features",
    "idf",
    "stored_stems",
]
