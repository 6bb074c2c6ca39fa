"""The values search, ask and dupes return: plain frozen dataclasses with `to_json()`."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from curator.search.filters import SearchError


@dataclass(frozen=True)
class Hit:
    """One search result. `spans` are (start, end) offsets of query terms in `snippet`."""

    path: str
    name: str
    type: str
    score: float
    snippet: str
    spans: tuple[tuple[int, int], ...] = ()
    kind: str = "note"
    status: str = ""
    scope: str = ""
    stale: bool = False
    stale_reason: str = ""
    confidence: float | None = None
    description: str = ""
    created: str = ""
    reviewed: str = ""
    sensitive: bool = False
    successor: str | None = None  # for a superseded note: the active end of its chain

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["spans"] = [list(s) for s in self.spans]
        return data


@dataclass(frozen=True)
class Source:
    """One source of an answer, in authority order."""

    path: str
    name: str
    type: str
    authority_rank: int  # position of the type in palace.toml authority (drafts: after all)
    score: float
    snippet: str
    spans: tuple[tuple[int, int], ...] = ()
    stale: bool = False
    stale_reason: str = ""
    superseded_from: tuple[str, ...] = ()  # superseded notes this source stands in for
    draft: bool = False
    label: str = ""  # "unreviewed draft", "stale: <reason>", or ""
    scope: str = ""
    sensitive: bool = False
    confidence: float | None = None
    reviewed: str = ""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["spans"] = [list(s) for s in self.spans]
        data["superseded_from"] = list(self.superseded_from)
        return data


@dataclass(frozen=True)
class Answer:
    question: str
    phrasings: tuple[str, ...]
    sources: tuple[Source, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "phrasings": list(self.phrasings),
            "sources": [s.to_json() for s in self.sources],
        }


@dataclass(frozen=True)
class Candidate:
    """A near-duplicate candidate: vector neighbour, confirmed by rapidfuzz text overlap."""

    path: str
    name: str
    score: float
    vector_sim: float
    fuzz: float
    kind: str = "note"
    type: str = ""
    status: str = ""
    scope: str = ""
    sensitive: bool = False

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class DupePair:
    a: str
    b: str
    a_name: str
    b_name: str
    score: float
    vector_sim: float
    fuzz: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class DraftGroup:
    """Drafts that are near-duplicates of each other (best first), and the current note they
    are most like (`into`, "" when none): what the group would supersede or fold into."""

    drafts: tuple[str, ...]
    into: str = ""
    into_name: str = ""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["drafts"] = list(self.drafts)
        return data


__all__ = ["Answer", "Candidate", "DraftGroup", "DupePair", "Hit", "SearchError", "Source"]
