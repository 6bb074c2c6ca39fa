"""What both search benchmarks use: the generator's keyword queries and the floor (the
libraries alone doing one hybrid query). Its own module so bench_search and bench_engine
import it instead of each other."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

from gen_palace import COMPONENTS, OBJECTS, TOOLS


def keyword_queries(count: int = 50) -> list[str]:
    """Deterministic keyword queries of one to three words from the generator's vocabulary."""
    pool = list(itertools.chain(COMPONENTS, OBJECTS, TOOLS))
    out = []
    for i in range(count):
        a = pool[(i * 7) % len(pool)]
        if i % 3 == 0:
            out.append(a)
        elif i % 3 == 1:
            out.append(f"{a} {pool[(i * 13 + 5) % len(pool)].split()[0]}")
        else:
            out.append(a.split()[0])
    return out


def floor_search(root: Path) -> Callable[[str], list[dict]]:
    """The libraries alone: the table opened once, then per query the embedding and one
    LanceDB hybrid query (BM25 + vectors, LanceDB's own rank fusion). On LanceDB's
    asynchronous API, run on an event loop of this thread: its synchronous hybrid query
    starts and joins a pool of two threads per query, a few ms the fastest use of the
    library does not pay (curator's query runs on LanceDB's event loop too)."""
    import asyncio

    import lancedb

    from curator.config import load_config
    from curator.search.embed import get_embedder
    from curator.search.index import index_dir
    from curator.search.state import STATE_FILE, IndexState

    settings = load_config(root).index
    embedder = get_embedder(settings.embedder, settings.dim)
    state = IndexState.from_json((index_dir(root) / STATE_FILE).read_bytes())
    loop = asyncio.new_event_loop()

    async def opened() -> lancedb.AsyncTable:
        db = await lancedb.connect_async(str(index_dir(root)))
        return await db.open_table(state.table)

    table = loop.run_until_complete(opened())

    def query(text: str) -> list[dict]:
        vec = embedder.embed([text])[0]
        q = table.query().nearest_to(vec).column("vector").nearest_to_text(text)
        return loop.run_until_complete(q.select(["path", "name"]).limit(10).to_list())

    return query
