"""The query API over the derived index: a `Searcher` and the values it answers with.

    searcher = Session.open(root).searcher()  # or Searcher(palace): opens and syncs the index
    searcher.search("stripe webhooks", types=["feedback"], limit=10)  -> list[Hit]
    searcher.ask("how do we deploy?")                                 -> Answer
    searcher.pack("fix the invoice pdf worker", budget=2000)          -> str (markdown)
    searcher.dupes("inbox/2026-11-24-x.md")                           -> list[Candidate]

The caller holds its searcher (a `curator.session.Session` keeps one); nothing is cached per
process here. Ranking is in `curator.search.ranking`, filters in `curator.search.filters`.
"""

from __future__ import annotations

from curator.search.filters import SearchError
from curator.search.searcher import Searcher
from curator.search.text import key_terms, make_snippet, phrasings
from curator.search.values import Answer, Candidate, DupePair, Hit, Source

__all__ = [
    "Answer",
    "Candidate",
    "DupePair",
    "Hit",
    "SearchError",
    "Searcher",
    "Source",
    "key_terms",
    "make_snippet",
    "phrasings",
]
