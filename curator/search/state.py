"""The index folder's small values: state.json, sync statistics and the errors of the index.

- `state.json` names the current table and the embedder, dim, git commit and doc count it
  reflects; it is rewritten atomically (temp file, fsync, os.replace) and readers follow it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from curator.errors import SearchIndexError

STATE_FILE = "state.json"
# 2: the context column; 3: tag_keys (tags filtered in the index); 4: stems and words (what
# ranking reads of each note, `curator.search.fields.features`)
SCHEMA_VERSION = 4
TABLE_PREFIX = "docs_"


class IndexUnavailable(SearchIndexError):
    """There is no usable index (never built, or moved aside as corrupt): run sync()."""


class DocsMismatch(SearchIndexError, ValueError):
    """The docs made for a sync do not match the paths or content hashes it was given (the
    palace changed under the sync, or a caller bug); nothing was written for them."""


class EmptyIndexRefused(SearchIndexError):
    """Refusing to replace a non-empty index with an empty one (pass allow_empty=True)."""


@dataclass(frozen=True)
class SyncStats:
    added: int
    updated: int
    removed: int
    unchanged: int
    seconds: float
    rebuilt: bool = False
    reason: str = ""  # why a rebuild happened ("" for an incremental sync)


@dataclass(frozen=True)
class IndexState:
    table: str
    embedder: str
    dim: int
    commit: str | None
    doc_count: int
    updated: str
    schema_version: int = SCHEMA_VERSION

    @classmethod
    def from_json(cls, raw: bytes) -> IndexState:
        data = json.loads(raw.decode("utf-8"))
        if not isinstance(data, dict):
            raise ValueError("state.json is not an object")
        table, embedder, dim = data.get("table"), data.get("embedder"), data.get("dim")
        commit, count, updated = data.get("commit"), data.get("doc_count"), data.get("updated")
        version = data.get("schema_version")
        if not (isinstance(table, str) and re.fullmatch(rf"{TABLE_PREFIX}[A-Za-z0-9_]+", table)):
            raise ValueError(f"state.json: bad table name {table!r}")
        if not isinstance(embedder, str) or not embedder:
            raise ValueError("state.json: missing embedder")
        if not isinstance(dim, int) or isinstance(dim, bool) or dim <= 0:
            raise ValueError(f"state.json: bad dim {dim!r}")
        if commit is not None and not isinstance(commit, str):
            raise ValueError("state.json: bad commit")
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise ValueError("state.json: bad doc_count")
        if not isinstance(version, int) or isinstance(version, bool):
            raise ValueError("state.json: bad schema_version")
        return cls(table, embedder, dim, commit, count, str(updated or ""), version)


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def state_signature(index_dir: Path) -> tuple[int, int, int] | None:
    """state.json's (mtime, size, inode), None when there is none: each write replaces the
    file, so a store that remembers it knows when another process has written it since."""
    try:
        st = (index_dir / STATE_FILE).stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


__all__ = [
    "STATE_FILE",
    "DocsMismatch",
    "EmptyIndexRefused",
    "IndexState",
    "IndexUnavailable",
    "SearchIndexError",
    "SyncStats",
    "now",
    "state_signature",
]
