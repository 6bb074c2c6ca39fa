"""The query API over the derived index: search, ask, pack and dupes.

    from curator.search.query import search, ask, pack, dupes

    search(palace, "stripe webhooks", types=["feedback"], limit=10)  -> list[Hit]
    ask(palace, "how do we deploy?")                                 -> Answer
    pack(palace, "fix the invoice pdf worker", budget=2000)          -> str (markdown)
    dupes(palace, "inbox/2026-11-24-x.md")                           -> list[Candidate]

Each goes through one cached `Searcher` per Palace object (see `curator.search.searcher`;
ranking is in `curator.search.ranking`, filters in `curator.search.filters`).
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from curator.model.palace import Palace
from curator.search.filters import SearchError
from curator.search.searcher import Searcher
from curator.search.text import key_terms, make_snippet, phrasings
from curator.search.values import Answer, Candidate, DupePair, Hit, Source

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
