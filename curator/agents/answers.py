"""The shapes of the MCP tools' answers: each tool's `outputSchema` is derived from one of these
TypedDicts, and its `structuredContent` is validated against it before it is sent (the text
content carries the same JSON, for clients that read text only)."""

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict  # pydantic reads typing's only from Python 3.12

__all__ = [
    "AskAnswer",
    "CaptureAnswer",
    "ContextAnswer",
    "DiagnosticsAnswer",
    "DirectoryAnswer",
    "InboxAnswer",
    "NoteAnswer",
    "PackAnswer",
    "RecentAnswer",
    "RelatedAnswer",
    "SearchAnswer",
    "TaskChangeAnswer",
    "TaskRequestAnswer",
    "TaskShowAnswer",
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


class FolderCount(TypedDict):
    path: str
    count: int  # the notes and drafts you may read in it, its subfolders' too


class FolderEntry(TypedDict):
    path: str
    name: str
    kind: str  # note or draft
    type: str | None


class DirectoryAnswer(TypedDict):
    folder: str
    folders: list[FolderCount]
    notes: list[FolderEntry]
    total: int  # the notes directly in the folder (notes lists at most `limit`)


class ContextNote(TypedDict):
    path: str
    name: str
    text: str
    truncated: bool


class ContextRelated(TypedDict):
    path: str
    name: str
    relation: str  # link, backlink, supersedes or superseded_by
    depth: int
    via: str
    date: str  # reviewed, else created ("" when the note has neither)
    text: str


class ContextAnswer(TypedDict):
    uri: str
    note: ContextNote
    related: list[ContextRelated]
    left_out: list[str]  # related notes whose text did not fit the budget
    outside_timeframe: int
    since: str
    budget: int
    tokens: int


class PalaceCounts(TypedDict):
    notes: int
    drafts: int
    hidden: int  # notes and drafts this server may not show (counted, never named)
    rooms: int
    unreadable: int


class IndexStatus(TypedDict):
    state: str  # built, not built or unreadable
    note: NotRequired[str]
    embedder: NotRequired[str]
    documents: NotRequired[int]
    updated: NotRequired[str]
    at_head: NotRequired[bool]


class CheckSummary(TypedDict):
    findings: int
    by_severity: dict[str, int]
    by_rule: dict[str, int]


class DiagnosticsAnswer(TypedDict):
    palace: PalaceCounts
    index: IndexStatus
    check: CheckSummary


class TaskHeader(TypedDict):
    task: str
    revision: int
    owner: str | None
    saved_at: str
    status: str
    unverified: bool
    claimed_at: str | None
    expires_at: str | None
    event: str
    by: str | None
    taken_over_from: str | None
    next_action: str


class TaskRequest(TypedDict):
    number: int
    at: str
    by: str
    words: str


class TaskShowAnswer(TypedDict):
    path: str
    header: TaskHeader
    sections: dict[str, str]
    requests: list[TaskRequest]
    note: str
    warnings: NotRequired[list[str]]
    cut: NotRequired[str]  # what was cut to fit one answer, and where the full text is


class TaskChangeAnswer(TypedDict):
    """task_save, task_claim and task_release: the revision written."""

    task: str
    revision: int
    path: str
    header: TaskHeader
    commit: str | None
    warning: str | None


class TaskRequestAnswer(TypedDict):
    task: str
    request: int
    at: str
    commit: str | None
