"""Search hits and duplicate candidates for the app, from `curator.search.query`.

Call from worker threads only: the first call imports LanceDB (about a second) and syncs the
index.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from curator.model.note import Note
from curator.model.palace import Palace


@dataclass(frozen=True)
class Found:
    path: str
    name: str
    type: str
    score: float
    snippet: str
    spans: tuple[tuple[int, int], ...] = ()


def search(palace: Palace, text: str, filters: dict[str, Any], limit: int = 30) -> list[Found]:
    from curator.search import query

    hits = query.search(palace, text, limit=limit, **filters)
    return [Found(h.path, h.name, h.type, h.score, h.snippet, tuple(h.spans)) for h in hits]


def dupes(palace: Palace, draft: Note, limit: int = 5) -> list[Found]:
    from curator.search import query

    return [
        Found(c.path, c.name, c.type, c.score, "")
        for c in query.dupes(palace, draft.rel, limit=limit + 3)
        if c.kind == "note"
    ][:limit]
