"""Search hits and duplicate candidates for the app, from the app's one `Session`.

The app holds one `curator.session.Session` and passes it to its screens: it keeps one
searcher across palace reloads, so a reload syncs the index incrementally instead of opening a
new searcher and store. Call these from worker threads only: the first call imports LanceDB
(about a second) and may build the index.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from curator.model.note import Note
from curator.model.palace import Palace
from curator.search.request import SearchRequest
from curator.search.values import DraftGroup
from curator.session import Session


@dataclass(frozen=True)
class Found:
    path: str
    name: str
    type: str
    score: float
    snippet: str
    spans: tuple[tuple[int, int], ...] = ()


def search(
    session: Session, palace: Palace, text: str, filters: dict[str, Any], limit: int = 30
) -> list[Found]:
    """The hits for `text` over `palace` (the index synced to it first when it is newer)."""
    request = SearchRequest.of(palace, text, limit=limit, **filters)
    hits = session.searcher(palace).run(request)
    return [Found(h.path, h.name, h.type, h.score, h.snippet, tuple(h.spans)) for h in hits]


def dupes(session: Session, palace: Palace, draft: Note, limit: int = 5) -> list[Found]:
    """The notes most like `draft` (the duplicate candidates the inbox shows)."""
    found = session.searcher(palace).dupes(draft.rel, limit=limit + 3)
    return [Found(c.path, c.name, c.type, c.score, "") for c in found if c.kind == "note"][:limit]


def groups(session: Session, palace: Palace) -> list[DraftGroup]:
    """The inbox's drafts grouped by near-duplicate and by the note they are most like."""
    return session.searcher(palace).draft_groups()
