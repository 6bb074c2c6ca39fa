"""`dupes`: ranked near-duplicate candidates, never merged.

Candidates are the vector neighbours of a note, a draft or a text about to be captured (the
vectors read the whole text, body included); each is confirmed by the one near-duplicate rule
capture also uses (`curator.model.similar.score`, over names and descriptions), and scored half
by vector similarity, half by that rule.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from curator.model.similar import score
from curator.model.text import one_line
from curator.search.docs import make_text
from curator.search.filters import REPLACED_STATUSES, Filter, SearchError, check_limit, visible
from curator.search.ranking import Ranker
from curator.search.store import IndexStore
from curator.search.values import Candidate, DupePair

PAIR_BLOCK = 1024  # rows per block of the all-pairs similarity product
PAIR_NEIGHBOURS = 3  # nearest neighbours of each row considered for --all


def dupes(
    searcher: Ranker,
    ref: str | None = None,
    *,
    text: str | None = None,
    all: bool = False,
    limit: int = 5,
    include_sensitive: bool = False,
) -> list[Any]:
    """Of a note or draft (`ref`), of a text about to be captured (`text`: its first line is
    taken as the name, the rest as the description), or the likeliest pairs in the whole
    palace (`all=True`)."""
    check_limit(limit)
    flt = Filter.of(
        searcher.palace,
        drafts=True,
        include_sensitive=include_sensitive,
        exclude_status=list(REPLACED_STATUSES),
    )
    if all:
        if ref is not None or text is not None:
            raise SearchError("dupes --all takes no note")
        return dupe_pairs(searcher, flt, limit)
    if (ref is None) == (text is None):
        raise SearchError("dupes needs exactly one of a note, a text or --all")
    exclude = ""
    if ref is not None:
        note = searcher.palace.find(ref)
        if not visible(searcher.palace, note, include_sensitive=include_sensitive):
            raise SearchError(
                f"{note.rel} is sensitive; pass --include-sensitive to look for its dupes"
            )
        name, description, body = note.name, note.description, note.body
        text = make_text(note.name, note.description, note.tags, note.body)
        exclude = note.rel
    else:
        assert text is not None
        name, _, description = text.strip().partition("\n")
        body = text
    store = _store(searcher)
    vec = store.embed_query(text)
    rows = store.vector(vec, limit=limit * 4 + 8, where=flt.sql())
    out = [
        _candidate(row, _rule(name, description, body, row))
        for row in rows
        if row["path"] != exclude
    ]
    out.sort(key=lambda c: (-c.score, c.path))
    return out[:limit]


def _candidate(row: dict[str, Any], fz: float) -> Candidate:
    sim = max(0.0, float(row["similarity"]))
    return Candidate(
        path=str(row["path"]),
        name=one_line(str(row.get("name") or "")),
        score=round(0.5 * sim + 0.5 * fz, 6),
        vector_sim=round(sim, 6),
        fuzz=round(fz, 6),
        kind=str(row.get("kind") or ""),
        type=str(row.get("type") or ""),
        status=str(row.get("status") or ""),
        scope=str(row.get("scope") or ""),
        sensitive=bool(row.get("sensitive")),
    )


def _store(searcher: Ranker) -> IndexStore:
    """The index a dupes search reads (its vectors): the palace alone has none."""
    store = searcher.source.store
    if store is None:
        raise SearchError("looking for duplicates needs the search index, which is not open")
    return store


def dupe_pairs(searcher: Ranker, flt: Filter, limit: int) -> list[DupePair]:
    """The likeliest near-duplicate pairs in the palace, best first (never merged)."""
    rows = _store(searcher).all_vectors(where=flt.sql())
    if len(rows) < 2:
        return []
    mat = np.asarray([r["vector"] for r in rows], dtype=np.float32)
    out = []
    for (a, b), sim in _nearest_pairs(mat)[: max(limit * 4, 20)]:
        ra, rb = rows[a], rows[b]
        fz = _rule(
            str(ra.get("name") or ""),
            str(ra.get("description") or ""),
            str(ra.get("body") or ""),
            rb,
        )
        sim = max(0.0, sim)
        out.append(
            DupePair(
                a=str(ra["path"]),
                b=str(rb["path"]),
                a_name=one_line(str(ra.get("name") or "")),
                b_name=one_line(str(rb.get("name") or "")),
                score=round(0.5 * sim + 0.5 * fz, 6),
                vector_sim=round(sim, 6),
                fuzz=round(fz, 6),
            )
        )
    out.sort(key=lambda p: (-p.score, p.a, p.b))
    return out[:limit]


def _nearest_pairs(mat: np.ndarray) -> list[tuple[tuple[int, int], float]]:
    """Each row's few nearest other rows, as (i, j) pairs with i < j, most similar first."""
    k = min(PAIR_NEIGHBOURS, len(mat) - 1)
    pairs: dict[tuple[int, int], float] = {}
    for start in range(0, len(mat), PAIR_BLOCK):
        block = mat[start : start + PAIR_BLOCK] @ mat.T
        for i in range(block.shape[0]):
            block[i, start + i] = -2.0
        top = np.argpartition(-block, k - 1, axis=1)[:, :k]
        for i in range(block.shape[0]):
            for j in top[i]:
                a, b = sorted((start + i, int(j)))
                pairs[(a, b)] = float(block[i, j])
    return sorted(pairs.items(), key=lambda kv: -kv[1])


def _rule(name: str, description: str, body: str, row: dict[str, Any]) -> float:
    """The near-duplicate rule of capture (`curator.model.similar.score`), as 0..1."""
    other = [str(row.get(k) or "") for k in ("name", "description", "body")]
    return score(name, description, other[0], other[1], body, other[2]) / 100.0


__all__ = ["dupe_pairs", "dupes"]
