"""The shapes of the MCP tools' answers: each tool's `outputSchema` is derived from one of these
TypedDicts, and its `structuredContent` is validated against it before it is sent (the text
content carries the same JSON, for clients that read text only)."""

from __future__ import annotations

from typing import Any, NotRequired

from typing_extensions import TypedDict  # pydantic reads typing's only from Python 3.12

__all__ = [
    "AskAnswer",
    "CaptureAnswer",
    "InboxAnswer",
    "NoteAnswer",
    "PackAnswer",
    "RecentAnswer",
    "RelatedAnswer",
    "SearchAnswer",
    "TaskAnswer",
]


class SearchHit(TypedDict):
    path: str
    name: str
    type: str
    score: float
    snippet: str
    status: str
    scope: str
    stale: bool
    kind: str
    tags: list[str]
    created: str
    reviewed: str
    superseded_by: NotRequired[str]


class SearchAnswer(TypedDict):
    query: str
    results: list[SearchHit]


class AskSource(TypedDict):
    path: str
    name: str
    type: str
    marks: list[str]
    label: str
    replaces_superseded: list[str]
    snippet: str


class AskAnswer(TypedDict):
    question: str
    sources: list[AskSource]


class PackAnswer(TypedDict):
    goal: str
    pack: str


class NoteContext(TypedDict):
    note: str  # says this is where the fact came from, not the fact
    text: str


class NoteAnswer(TypedDict):
    path: str
    kind: str
    name: str
    type: str | None
    status: str | None
    flags: list[str]
    text: str
    truncated: bool
    lines: str  # "1-40 of 212": the part of the note shown
    total_lines: int
    context: NotRequired[NoteContext]  # the note's `context:` field, apart from its text


class InboxDraft(TypedDict):
    path: str
    name: str
    type: str | None
    description: str


class InboxAnswer(TypedDict):
    count: int
    note: str
    drafts: list[InboxDraft]


class SimilarEntry(TypedDict):
    path: str
    name: str
    score: float
    kind: str


class SecretEntry(TypedDict):
    kind: str
    line: int
    preview: str


class CaptureAnswer(TypedDict):
    path: str
    similar: list[SimilarEntry]
    secrets: list[SecretEntry]
    flagged: bool
    warnings: list[str]
    note: str


class RecentChange(TypedDict):
    path: str
    name: str
    change: str  # promoted, superseded, retired or flagged stale
    date: str
    reason: NotRequired[str]


class RecentAnswer(TypedDict):
    since: str
    changes: list[RecentChange]


class RelatedNote(TypedDict):
    path: str
    name: str
    relation: str  # link, backlink, supersedes or superseded_by
    depth: int
    via: str


class RelatedAnswer(TypedDict):
    note: str
    related: list[RelatedNote]


TaskAnswer = dict[str, Any]  # the task tools answer the store's own records, as they are
