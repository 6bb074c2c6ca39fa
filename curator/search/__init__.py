"""Search: the derived LanceDB index and the queries over it (search, ask, pack, dupes).

    from curator.model.palace import Palace
    from curator.search import Searcher

    s = Searcher(Palace.open(path))     # opens .curator/index, syncs it incrementally
    s.search("stripe webhooks", limit=10)
    s.ask("how do we deploy?").sources
    s.pack("fix the pdf worker", budget=2000, floor=0.7)
    s.dupes("inbox/draft.md")

See `curator.search.query` for the full API, `curator.search.index` for syncing and
`curator.search.visibility` for the one sensitive-note check every read path uses.
Importing this package imports lancedb lazily (only when an index is opened).
"""

from __future__ import annotations

from curator.search.index import after_commit, docs_from_palace, open_index, reindex, sync_index
from curator.search.query import (
    Answer,
    Candidate,
    DupePair,
    Hit,
    Searcher,
    SearchError,
    Source,
    ask,
    dupes,
    pack,
    search,
    searcher,
)
from curator.search.visibility import visible, where_visible

__all__ = [
    "Answer",
    "Candidate",
    "DupePair",
    "Hit",
    "SearchError",
    "Searcher",
    "Source",
    "after_commit",
    "ask",
    "docs_from_palace",
    "dupes",
    "open_index",
    "pack",
    "reindex",
    "search",
    "searcher",
    "sync_index",
    "visible",
    "where_visible",
]
