"""One search request: what every door (CLI flags, `--queries` JSONL, the MCP tools, the hooks,
the app) asks the index, as one value.

A `SearchRequest` is the text, the `Filter` (which rows may answer, rendered into the index's
prefilter SQL, tags and date ranges included), how many results, and for a pack its token
budget and relevance floor. `SearchRequest.of` checks every value once, naming the field that
is wrong; the doors only map their own spelling onto `FILTER_KEYS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from curator.search.filters import Filter, SearchError, check_limit

# The keys a request's filter takes, as JSONL lines and MCP arguments spell them ("type" is
# the singular of "types").
FILTER_KEYS = (
    "types",
    "scope",
    "status",
    "tags",
    "stale",
    "min_confidence",
    "drafts",
    "include_sensitive",
    "created_after",
    "created_before",
    "reviewed_after",
    "reviewed_before",
)
ALIASES = {"type": "types", "tag": "tags"}


@dataclass(frozen=True)
class SearchRequest:
    """A search as asked: text, filter, limit; budget and floor for a pack (None: not a pack)."""

    text: str
    filter: Filter
    limit: int = 10
    budget: int | None = None
    floor: float | None = None

    @classmethod
    def of(
        cls,
        palace: Any,
        text: str,
        *,
        limit: object = 10,
        budget: int | None = None,
        floor: float | None = None,
        **filters: object,
    ) -> SearchRequest:
        """The request for these values in this palace; a wrong value raises SearchError
        naming it (an unknown key too)."""
        if not isinstance(text, str):
            raise SearchError(f"the query must be text, got {text!r}")
        unknown = sorted(set(filters) - set(FILTER_KEYS))
        if unknown:
            raise SearchError(f"unknown keys {unknown}; known: {', '.join(FILTER_KEYS)}")
        return cls(text, Filter.of(palace, **filters), check_limit(limit), budget, floor)

    @classmethod
    def from_mapping(
        cls, palace: Any, text: str, given: Mapping[str, object], **defaults: object
    ) -> SearchRequest:
        """A request from a mapping of keys as a JSONL line or a tool call spells them
        (`type` for `types`, `tag` for `tags`); a key given twice under two spellings is an
        error, never one of them dropped."""
        values: dict[str, object] = dict(defaults)
        seen: set[str] = set()
        for key, value in given.items():
            name = ALIASES.get(key, key)
            if name in seen:
                raise SearchError(f"give {name} once (not both {key} and {name})")
            seen.add(name)
            values[name] = value
        return cls.of(palace, text, **values)  # type: ignore[arg-type]


__all__ = ["ALIASES", "FILTER_KEYS", "SearchRequest"]
