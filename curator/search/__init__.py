"""Search: the derived LanceDB index and the queries over it (a Searcher's search, ask, pack,
dupes).

    from curator.session import Session

    searcher = Session.open(path).searcher()  # opens .curator/index, syncs it incrementally
    searcher.search("stripe webhooks", limit=10)
    searcher.ask("how do we deploy?").sources
    searcher.pack("fix the pdf worker", budget=2000, floor=0.7)
    searcher.dupes("inbox/draft.md")

Each thing has one import path, its module: `searcher` (Searcher), `filters` (the one Filter:
SQL and a per-row check, visibility), `request` (SearchRequest), `values` (Hit, Source,
Answer...), `text`, `names` (names as you type), `ranking`, `pack`, `dupes`, `index` (keeping
the index in step), `store` (LanceDB, the one engine), `hooks` (the after-commit callback).

Importing this package is cheap (it imports nothing but os), so `curator list` can import
`curator.search.filters` and a session can pass `hooks.sync_after_commit` to the writer
without paying for LanceDB.
"""

import os

# LanceDB's engine logs to stderr at WARN by default, on every hybrid query (a deprecation
# note about score columns curator never asks for): that garbles the app's screen and an
# agent's CLI output. Only errors, unless the user asked for more; every LanceDB import in
# curator is under this package, so this runs first.
os.environ.setdefault("LANCEDB_LOG", "error")
