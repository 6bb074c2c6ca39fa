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
    LanceDB hybrid query (BM25 + vectors, LanceDB's own rank fusion)."""
    import lancedb

    from curator.config import load_config
    from curator.search.embed import get_embedder
    from curator.search.index import index_dir
    from curator.search.state import STATE_FILE, IndexState

    settings = load_config(root).index
    embedder = get_embedder(settings.embedder, settings.dim)
    state = IndexState.from_json((index_dir(root) / STATE_FILE).read_bytes())
    table = lancedb.connect(str(index_dir(root))).open_table(state.table)

    def query(text: str) -> list[dict]:
        vec = embedder.embed([text])[0]
        q = table.search(query_type="hybrid", vector_column_name="vector", fts_columns="text")
        return q.vector(vec).text(text).select(["path", "name"]).limit(10).to_list()

    return query
