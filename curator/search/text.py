"""Text helpers of search: key terms, phrasings, snippets with highlight spans, query kinds.

Pure functions over strings (no index, no numpy), shared by ranking, ask, pack and dupes.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Sequence
from typing import Any

from curator.model.note import DRAFT_BANNER
from curator.model.text import one_line

SNIPPET_CHARS = 220
SNIPPET_BODIES = 1024  # bodies whose sentences `sentences_of` keeps
NAMES_KEPT = 20_000  # names whose words `words_of` keeps
FUZZY_MAX_WORDS = 3  # a query of up to this many words also ranks note names by rapidfuzz
SOFT_MIN_TERMS = 4  # this many key terms make a query natural language even without stopwords

WORD = re.compile(r"\w+", re.UNICODE)
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


def key_terms(text: str) -> list[str]:
    """The words of `text` without stopwords and one-letter words, in order, unique."""
    seen: dict[str, None] = {}
    for word in WORD.findall(text.lower()):
        if word in STOPWORDS or (len(word) < 2 and not word.isdigit()):
            continue
        seen.setdefault(word, None)
    return list(seen)


def phrasings(query: str) -> list[str]:
    """The whole query, and (when different) its key terms."""
    whole = " ".join(WORD.findall(query))
    out = [whole] if whole else []
    terms = " ".join(key_terms(query))
    if terms and terms.lower() != whole.lower():
        out.append(terms)
    return out


def term_prefix(term: str) -> str:
    """A crude stem for highlighting: 'deploying' and 'deploys' both start with 'deploy'."""
    if len(term) <= 4:
        return term
    for suffix in ("ingly", "edly", "ing", "ies", "ied", "ed", "es", "ly", "s"):
        if term.endswith(suffix) and len(term) - len(suffix) >= 4:
            return term[: -len(suffix)]
    return term


@functools.lru_cache(maxsize=1)
def _english() -> Any:
    """Snowball's English stemmer (imported when first needed: the module loads every
    language's)."""
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@functools.lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """A word's Snowball (Porter 2) stem: 'family' and 'families' are 'famili', 'dance',
    'dancing' and 'danced' are 'danc', 'adopt' and 'adoption' are 'adopt', so a question
    and the note answering it meet whichever form each uses. Lower-case words only."""
    return str(_english().stemWord(word))


def stem_probes(text: str) -> dict[str, str]:
    """Per stem of `text` (see `stems`), what a substring search of raw text looks for: the
    part of the word the stem keeps, less the 'i' Snowball writes for a final 'y', which
    (most) forms sharing the stem hold: 'families' and 'family' (stem 'famili') -> 'famil'."""
    out: dict[str, str] = {}
    for word in WORD.findall(text.lower()):
        found = stems(word)
        if found:
            kept = (found[0][:i] for i in range(len(found[0]), 0, -1))
            probe = next((k for k in kept if word.startswith(k)), found[0])
            probe = probe[:-1] if probe.endswith("i") and len(probe) > 3 else probe  # y -> i
            if len(probe) < len(out.get(found[0], probe + " ")):
                out[found[0]] = probe
    return out


_TERMS: dict[str, str] = {}  # word -> its stem, "" for a stopword or a one-letter word
_TERMS_MAX = 200_000


def stems(text: str) -> list[str]:
    """The stems (`stem`) of the words of `text` without stopwords and one-letter words, in
    order, repeats kept: the terms BM25F counts."""
    words = WORD.findall(text.lower())
    found = list(map(_TERMS.get, words))  # the words seen before: most, once a palace is read
    if None in found:
        for i, word in enumerate(words):
            if found[i] is None:
                found[i] = _term(word)
    return [f for f in found if f]


def _term(word: str) -> str:
    """`word`'s stem, "" for a stopword or a one-letter word; kept for the next text."""
    keep = word not in STOPWORDS and (len(word) >= 2 or word.isdigit())
    if keep and word.isascii() and word.isdigit():
        found = sys.intern(word)  # Snowball's stem of a number, without its 30 us of work
    else:
        found = sys.intern(stem(word)) if keep else ""  # one string per stem, as stored ones
    if len(_TERMS) < _TERMS_MAX:
        _TERMS[word] = found
    return found


def spans(text: str, prefixes: Sequence[str]) -> list[tuple[int, int]]:
    """Spans of words in `text` that start with one of `prefixes` (case-insensitive)."""
    if not prefixes:
        return []
    starts = tuple(prefixes)  # one `startswith` a word, not one a prefix
    return [m.span() for m in WORD.finditer(text) if m.group().lower().startswith(starts)]


def make_snippet(
    body: str, description: str, query: str, limit: int = SNIPPET_CHARS
) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The sentence(s) of the note that best match the query, cleaned to one line, with the
    spans of the query terms in it. Falls back to the description, then the body's start."""
    prefixes = sorted({term_prefix(t) for t in key_terms(query)})
    read = sentences_of(body)
    hits = [len(starting_in(prefixes, words)) for _sent, words in read]
    return snippet_of([sent for sent, _words in read], hits, description, prefixes, limit)


def snippet_of(
    sentences: Sequence[str],
    hits: Sequence[int],
    description: str,
    prefixes: Sequence[str],
    limit: int,
) -> tuple[str, tuple[tuple[int, int], ...]]:
    """`make_snippet` of the body's `sentences`, each with how many of the query's term
    `prefixes` start one of its words (`hits`)."""
    best = ""
    if prefixes and sentences:
        count, _, idx = max((n, -i, i) for i, n in enumerate(hits))
        if count:
            best = sentences[idx]
            if len(best) < limit // 2 and idx + 1 < len(sentences):
                best = f"{best} {sentences[idx + 1]}"
    if not best:
        best = one_line(description) or (sentences[0] if sentences else "")
    if len(best) > limit:
        first = spans(best, prefixes)
        start = 0
        if first and first[0][0] > limit // 2:
            start = best.rfind(" ", 0, first[0][0] - limit // 4) + 1
        best = ("…" if start else "") + best[start:]
        best = one_line(best, limit)
    return best, tuple(spans(best, prefixes))


@functools.lru_cache(maxsize=SNIPPET_BODIES)
def sentences_of(body: str) -> tuple[tuple[str, str], ...]:
    """The sentences of a note's body as a snippet shows them (the draft banner left out, each
    on one line, the empty ones dropped), each with its words as `starting_in` reads them.
    Kept for the bodies shown last: a result shown again (the next keystroke, the next
    question on the subject) is not split and cleaned again."""
    out = []
    for part in _SENTENCE.split(body.replace(DRAFT_BANNER, "")):
        sent = one_line(part)
        if sent:
            out.append((sent, joined_words([w.lower() for w in WORD.findall(sent)])))
    return tuple(out)


def natural_language(query: str) -> bool:
    """A question or sentence rather than a keyword lookup: it has function words (or is long)
    and at least two key terms."""
    words = WORD.findall(query)
    terms = key_terms(query)
    return len(terms) >= 2 and (len(words) > len(terms) or len(terms) >= SOFT_MIN_TERMS)


def name_share(name: str, prefixes: Sequence[str]) -> float:
    """The share of the query's key terms (as crude stems, see `term_prefix`) that start a
    word of the note's name."""
    if not prefixes:
        return 0.0
    return len(starting_in(prefixes, words_of(name))) / len(prefixes)


@functools.lru_cache(maxsize=NAMES_KEPT)
def words_of(text: str) -> str:
    """The words of `text`, lower-cased, as `starting_in` tests them (`joined_words`): kept
    for the names a search read last (each question reads a hundred candidates' names)."""
    return joined_words([w.lower() for w in WORD.findall(text)])


def starting(prefixes: Sequence[str], words: Sequence[str]) -> list[str]:
    """The prefixes that start one of `words` (words of `WORD`: no spaces), each as often as
    `prefixes` holds it. One substring test of the words joined by spaces each, not one
    test a word: a snippet tests every sentence of each result's body."""
    return starting_in(prefixes, joined_words(words))


def joined_words(words: Sequence[str]) -> str:
    """`words` as `starting_in` tests them: each after a space ("" for none)."""
    return " " + " ".join(words) if words else ""


def starting_in(prefixes: Sequence[str], joined: str) -> list[str]:
    """`starting` of the words `joined` (`joined_words`)."""
    return [p for p in prefixes if " " not in p and " " + p in joined]


def is_short(query: str) -> bool:
    words = WORD.findall(query)
    return 0 < len(words) <= FUZZY_MAX_WORDS


__all__ = [
    "STOPWORDS",
    "WORD",
    "is_short",
    "key_terms",
    "make_snippet",
    "name_share",
    "natural_language",
    "phrasings",
    "spans",
    "starting",
    "stem",
    "stem_probes",
    "stems",
    "term_prefix",
]
