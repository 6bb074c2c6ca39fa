"""Search: the derived LanceDB index and the queries over it (a Searcher's search, ask, pack,
dupes).

    from curator.model.palace import Palace
    from curator.search import Searcher

    s = Searcher(Palace.open(path))     # opens .curator/index, syncs it incrementally
    s.search("stripe webhooks", limit=10)
    s.ask("how do we deploy?").sources
    s.pack("fix the pdf worker", budget=2000, floor=0.7)
    s.dupes("inbox/draft.md")

Modules: `filters` (the one Filter: SQL and a per-row check, visibility), `values` (Hit,
Source, Answer...), `text`, `names` (names as you type), `ranking`, `searcher`, `pack`,
`dupes`, `query` (the module-level API), `index` (keeping the index in step), `store`
(LanceDB, the one engine).

Importing this package is cheap: the names below load their module (numpy, LanceDB) on first
use, so `curator list` can import `curator.search.filters` and a session can pass
`hooks.sync_after_commit` to the writer without paying for LanceDB.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from curator.search.hooks import sync_after_commit

if TYPE_CHECKING:  # the real types for the checker; at run time __getattr__ loads them
    from curator.search.filters import Filter, SearchError, visible, where_visible
    from curator.search.index import docs_from_palace, open_index, reindex, sync_index
    from curator.search.searcher import Searcher
    from curator.search.values import Answer, Candidate, DupePair, Hit, Source

_LAZY = {
    "Answer": "values",
    "Candidate": "values",
    "DupePair": "values",
    "Hit": "values",
    "Source": "values",
    "SearchError": "filters",
    "Filter": "filters",
    "visible": "filters",
    "where_visible": "filters",
    "Searcher": "searcher",
    "docs_from_palace": "index",
    "open_index": "index",
    "reindex": "index",
    "sync_index": "index",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'curator.search' has no attribute {name!r}")
    return getattr(importlib.import_module(f"curator.search.{module}"), name)


__all__ = [
    "Answer",
    "Candidate",
    "DupePair",
    "Filter",
    "Hit",
    "SearchError",
    "Searcher",
    "Source",
    "docs_from_palace",
    "open_index",
    "reindex",
    "sync_after_commit",
    "sync_index",
    "visible",
    "where_visible",
]
