"""The plain value the search index is built from: one `IndexDoc` per note or draft.

`curator.search` never parses notes itself; the model layer converts parsed notes into
`IndexDoc`s (see `docs_from_palace`) and the store only ever sees these values.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Literal

DocKind = Literal["note", "draft"]


def make_text(
    name: str, description: str, tags: Sequence[str], body: str, context: str = ""
) -> str:
    """The searchable text of a doc: name, description, tags, body and context, one per line
    (what full text search finds candidates in and the embedder embeds; ranking then scores
    each field on its own, see `curator.search.fields`)."""
    parts = [name, description, " ".join(tags), body, context]
    return "\n".join(p for p in parts if p)


def tag_keys(tags: Sequence[object]) -> tuple[str, ...]:
    """How a tag filter compares tags: casefolded (`Git` and `git` are one tag)."""
    return tuple(str(t).casefold() for t in tags)


@dataclass(frozen=True)
class IndexDoc:
    """One row of the search index (everything but the vector).

    `text` defaults to `make_text(name, description, tags, body, context)`. `context` is the
    text a fact came from (the conversation around it, the file and lines it was read from):
    searched, never shown as the fact itself. `content_hash` defaults to a
    fingerprint of every other field, so that any change to anything stored in the row (a header
    flag such as `stale` as well as the body) re-indexes it; leave it empty unless you have a
    better key.
    """

    path: str  # posix path relative to the palace root; unique key
    slug: str
    name: str
    description: str = ""
    type: str = ""
    scope: str = ""
    status: str = ""
    confidence: float | None = None
    stale: bool = False
    stale_reason: str = ""
    sensitive: bool = False
    tags: Sequence[str] = ()
    tag_keys: Sequence[str] = ()  # the tags casefolded, for the filter (derived)
    created: str = ""
    reviewed: str = ""
    kind: DocKind = "note"
    content_hash: str = ""
    text: str = ""
    body: str = ""
    context: str = ""

    def __post_init__(self) -> None:
        if not self.path or self.path.startswith("/") or "\\" in self.path:
            raise ValueError(f"IndexDoc.path must be a relative posix path, got {self.path!r}")
        if self.kind not in ("note", "draft"):
            raise ValueError(f"IndexDoc.kind must be 'note' or 'draft', got {self.kind!r}")
        object.__setattr__(self, "tags", tuple(str(t) for t in self.tags))
        object.__setattr__(self, "tag_keys", tag_keys(self.tags))
        if self.confidence is not None:
            object.__setattr__(self, "confidence", float(self.confidence))
        if not self.text:
            object.__setattr__(
                self,
                "text",
                make_text(self.name, self.description, self.tags, self.body, self.context),
            )
        if not self.content_hash:
            object.__setattr__(self, "content_hash", doc_fingerprint(self))


def doc_fingerprint(doc: IndexDoc) -> str:
    """A stable hash of every field of `doc` except `content_hash` itself."""
    payload = {
        f.name: list(v) if isinstance(v := getattr(doc, f.name), tuple) else v
        for f in fields(doc)
        if f.name != "content_hash"
    }
    raw = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


# Columns of the index table, in order (the store adds `vector` at the end).
DOC_COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(IndexDoc))

__all__ = ["DOC_COLUMNS", "DocKind", "IndexDoc", "doc_fingerprint", "make_text", "tag_keys"]
