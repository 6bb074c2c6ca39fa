"""The one visibility check every read path uses (search, ask, pack, dupes, --queries).

A note is hidden from general retrieval when its header says `sensitive: true` or when its
scope is marked `sensitive = true` in palace.toml. The index stores the note-level flag (OR-ed
with the scope's flag at sync time), but palace.toml may change after a sync, so the scope is
also checked against the *current* config at query time:

- `where_visible(palace, include_sensitive=...)` is the SQL prefilter handed to LanceDB, so hidden
  rows never reach ranking;
- `visible(palace, item, include_sensitive=...)` is checked again on every row, note or hit that a
  read path returns (belt and braces: a result list never holds a hidden note).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from curator.config import Config
from curator.search.store import sql_str


def _config(palace_or_config: Any) -> Config:
    config = getattr(palace_or_config, "config", palace_or_config)
    if not isinstance(config, Config):
        raise TypeError(f"expected a Palace or Config, got {type(palace_or_config).__name__}")
    return config


def sensitive_scopes(palace_or_config: Any) -> list[str]:
    """Names of the scopes palace.toml marks sensitive, sorted."""
    return sorted(name for name, spec in _config(palace_or_config).scopes.items() if spec.sensitive)


def _fields(item: Any) -> tuple[bool, str]:
    """(note-level sensitive flag, scope) of a Note, IndexDoc, Hit or index row."""
    if isinstance(item, Mapping):
        return bool(item.get("sensitive")), str(item.get("scope") or "")
    return bool(getattr(item, "sensitive", False)), str(getattr(item, "scope", "") or "")


def is_sensitive(palace_or_config: Any, item: Any) -> bool:
    """True when `item` is sensitive itself or lives in a sensitive scope."""
    flag, scope = _fields(item)
    return flag or _config(palace_or_config).is_sensitive_scope(scope)


def visible(palace_or_config: Any, item: Any, *, include_sensitive: bool) -> bool:
    """May `item` (Note, IndexDoc, Hit, Source, Candidate or index row) appear in a result?"""
    return include_sensitive or not is_sensitive(palace_or_config, item)


def where_visible(palace_or_config: Any, *, include_sensitive: bool) -> str | None:
    """The SQL prefilter form of `visible` (None when everything may be shown)."""
    if include_sensitive:
        return None
    clauses = ["sensitive = false"]
    scopes = sensitive_scopes(palace_or_config)
    if scopes:
        clauses.append(f"scope NOT IN ({', '.join(sql_str(s) for s in scopes)})")
    return " AND ".join(f"({c})" for c in clauses)


def and_where(*clauses: str | None) -> str | None:
    """AND together the non-empty SQL clauses (None when there are none)."""
    parts = [c for c in clauses if c]
    if not parts:
        return None
    return " AND ".join(f"({c})" for c in parts)


__all__ = ["and_where", "is_sensitive", "sensitive_scopes", "visible", "where_visible"]
