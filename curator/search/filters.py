"""The one search filter: which notes a query may return, rendered two ways from one value.

A `Filter` holds the structured constraints (type, scope, status, tags, stale, confidence
floor, drafts, created and reviewed date ranges) and visibility: a note is hidden from general
retrieval when its header says `sensitive: true` or its scope is marked `sensitive = true` in
palace.toml, unless the filter includes sensitive notes. The index stores the note-level flag
(OR-ed with the scope's flag at sync time), but palace.toml may change after a sync, so the
filter carries the *current* config's sensitive scopes (`Filter.of(palace, ...)` binds them).

The same rules, two renderings (a property test holds them equal on generated palaces, the SQL
run by a real LanceDB table):

- `sql()`   the LanceDB (DataFusion SQL) prefilter of every index query, every value quoted,
            never spliced raw;
- `ok()`    a per-row predicate over an index row, IndexDoc, Hit, Source or Candidate
            (`note_row()` gives the same fields of a loaded Note), for what is read from the
            palace rather than the index: `list`, the lexical searcher, names as you type.

The CLI's flags for it live in `curator.cli.filter_flags`. This module imports nothing heavy,
so `list` never pays for LanceDB.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from curator.errors import CuratorError
from curator.model.note import Note
from curator.model.schema import REPLACED_STATUSES, is_visible, not_current
from curator.model.served import Served
from curator.search.docs import tag_keys

if TYPE_CHECKING:
    from curator.model.palace import Palace

MAX_LIMIT = 10_000  # results one query may ask for


class SearchError(CuratorError):
    """A search request that cannot be answered as asked (bad filter, unknown note...)."""


def sql_str(value: str) -> str:
    """A SQL string literal: single quotes doubled; NUL refused."""
    text = str(value)
    if "\x00" in text:
        raise SearchError("filter values may not contain NUL characters")
    return "'" + text.replace("'", "''") + "'"


def _sql_in(column: str, values: Sequence[str], *, negate: bool = False) -> str:
    if len(values) == 1:
        return f"{column} {'!=' if negate else '='} {sql_str(values[0])}"
    listed = ", ".join(sql_str(v) for v in values)
    return f"{column} {'NOT IN' if negate else 'IN'} ({listed})"


def and_where(*clauses: str | None) -> str | None:
    """AND together the non-empty SQL clauses (None when there are none)."""
    parts = [c for c in clauses if c]
    return " AND ".join(f"({c})" for c in parts) if parts else None


def check_limit(limit: object) -> int:
    """A result count must be a whole number within 0..MAX_LIMIT: checked before any query, so
    a huge one is an error on the request, never taken for a broken index."""
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise SearchError(f"limit must be a whole number, got {limit!r}")
    if not 0 <= limit <= MAX_LIMIT:
        raise SearchError(f"limit must be within 0..{MAX_LIMIT}, got {limit}")
    return limit


def _strings(name: str, value: object) -> tuple[str, ...]:
    """A filter's list of strings: one string, a sequence of strings, or nothing (None or an
    empty list). Any other type is an error naming the field, never coerced; an empty string
    is a value like any other (the palace does not know it), not "no filter"."""
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list | tuple) or not all(isinstance(v, str) for v in items):
        raise SearchError(f"{name} must be a string or a list of strings, got {value!r}")
    for item in items:
        if "\x00" in item:
            raise SearchError(f"{name} may not contain NUL characters")
    return tuple(items)


def _flag(name: str, value: object, *, optional: bool = False) -> bool | None:
    """A true/false field: a real bool only (the string "false" is not false, it is an error)."""
    if value is None and optional:
        return None
    if not isinstance(value, bool):
        allowed = "true, false or null" if optional else "true or false"
        raise SearchError(f"{name} must be {allowed}, got {value!r}")
    return value


def _day(name: str, value: object) -> str | None:
    """A YYYY-MM-DD bound of a date range (None: open). A time after the day is ignored."""
    if value is None or value == "":
        return None
    if not isinstance(value, str | date):
        raise SearchError(f"{name} must be a date, YYYY-MM-DD, got {value!r}")
    try:
        return date.fromisoformat(str(value)[:10]).isoformat()
    except ValueError:
        raise SearchError(f"{name} must be a date, YYYY-MM-DD, got {value!r}") from None


DateRange = tuple[str | None, str | None]  # (first day, last day), both inclusive; None: open


def _range_sql(column: str, days: DateRange) -> list[str]:
    """A date column's bounds as string comparisons (ISO dates sort as text; a stored time
    after the day sorts after the day itself, so the last day ends before the next one)."""
    after, before = days
    clauses = []
    if after is not None:
        clauses.append(f"{column} >= {sql_str(after)}")
    if before is not None:
        following = (date.fromisoformat(before) + timedelta(days=1)).isoformat()
        clauses.append(f"{column} <> '' AND {column} < {sql_str(following)}")
    return clauses


_ANY_DAY: DateRange = (None, None)


def _day_of(item: Any, name: str) -> str:
    return str(_field(item, name) or "")[:10]


def _within(day: str, days: DateRange) -> bool:
    after, before = days
    if after is None and before is None:
        return True
    return bool(day) and (after is None or day >= after) and (before is None or day <= before)


def _floor(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SearchError(f"min_confidence must be a number within 0..1, got {value!r}")
    floor = float(value)
    if not math.isfinite(floor) or not 0 <= floor <= 1:
        raise SearchError(f"min_confidence must be within 0..1, got {value!r}")
    return floor


def _known(config: Any, chosen: Mapping[str, Sequence[str]]) -> None:
    """Every filter value names something the palace has (`unknown_value`, the one rule)."""
    from curator.model.schema import FILTER_STATUSES, unknown_value

    known = {"type": config.types, "scope": config.scopes, "status": FILTER_STATUSES}
    for label, values in chosen.items():
        problem = unknown_value(label, values, known[label])
        if problem:
            raise SearchError(problem)


def _field(item: Any, name: str) -> Any:
    if type(item) is dict or isinstance(item, Mapping):  # a dict first: rows are (100k in list)
        return item.get(name)
    return getattr(item, name, None)


@dataclass(frozen=True)
class Filter:
    """Structured filters plus visibility (a frozen value).

    A tuple means "any of"; empty means "no constraint". Drafts are left out unless `drafts`
    is set or "draft" is among the statuses. Construct with `Filter.of`, which type-checks
    every field and binds the palace's sensitive scopes.
    """

    types: tuple[str, ...] = ()
    scopes: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    stale: bool | None = None
    min_confidence: float | None = None
    drafts: bool = False
    include_sensitive: bool = False
    exclude_statuses: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()  # casefolded; any of them
    created: DateRange = (None, None)
    reviewed: DateRange = (None, None)
    hidden_scopes: tuple[str, ...] = ()  # palace.toml's sensitive scopes, bound by `of`

    @classmethod
    def of(
        cls,
        palace_or_config: Any,
        *,
        types: object = None,
        scope: object = None,
        status: object = None,
        stale: object = None,
        min_confidence: object = None,
        drafts: object = False,
        include_sensitive: object = False,
        exclude_status: object = None,
        tags: object = None,
        created_after: object = None,
        created_before: object = None,
        reviewed_after: object = None,
        reviewed_before: object = None,
    ) -> Filter:
        """The filter for these values in this palace; a value of the wrong type (a number
        for a type, the string "false" for a flag) raises SearchError naming the field, and so
        does a type, scope or status the palace does not know (listing the known ones)."""
        chosen = {
            "type": _strings("types", types),
            "scope": _strings("scope", scope),
            "status": _strings("status", status),
        }
        if palace_or_config is not None:
            _known(_config(palace_or_config), chosen)
        return cls(
            types=chosen["type"],
            scopes=chosen["scope"],
            statuses=chosen["status"],
            stale=_flag("stale", stale, optional=True),
            min_confidence=_floor(min_confidence),
            drafts=bool(_flag("drafts", drafts)),
            include_sensitive=bool(_flag("include_sensitive", include_sensitive)),
            exclude_statuses=_strings("exclude_status", exclude_status),
            tags=tag_keys(_strings("tags", tags)),
            created=(_day("created_after", created_after), _day("created_before", created_before)),
            reviewed=(
                _day("reviewed_after", reviewed_after),
                _day("reviewed_before", reviewed_before),
            ),
            hidden_scopes=sensitive_scopes(palace_or_config),
        )

    @property
    def notes_only(self) -> bool:
        return not self.drafts and "draft" not in self.statuses

    # ---- rendering 1: SQL for LanceDB

    def sql(self) -> str | None:
        """The DataFusion SQL prefilter (None when every row passes)."""
        clauses: list[str] = []
        for column, values in (("type", self.types), ("scope", self.scopes)):
            if values:
                clauses.append(_sql_in(column, values))
        if self.statuses:
            clauses.append(_sql_in("status", self.statuses))
        if self.exclude_statuses:
            clauses.append(_sql_in("status", self.exclude_statuses, negate=True))
        if self.notes_only:
            clauses.append("kind = 'note'")
        if self.stale is not None:
            clauses.append(f"stale = {'true' if self.stale else 'false'}")
        if self.tags:
            listed = ", ".join(sql_str(t) for t in self.tags)
            clauses.append(f"array_has_any(tag_keys, make_array({listed}))")
        clauses += _range_sql("created", self.created) + _range_sql("reviewed", self.reviewed)
        if self.min_confidence is not None:
            clauses.append(f"coalesce(confidence, 0.0) >= {self.min_confidence!r}")
        if not self.include_sensitive:
            clauses.append("sensitive = false")
            if self.hidden_scopes:
                clauses.append(_sql_in("scope", self.hidden_scopes, negate=True))
        return and_where(*clauses)

    # ---- rendering 2: one row at a time

    def ok(self, item: Any) -> bool:
        """Does `item` (index row, IndexDoc, Hit, Source, Candidate, `note_row()`) pass?"""
        kind, status = str(_field(item, "kind") or ""), str(_field(item, "status") or "")
        scope = str(_field(item, "scope") or "")
        return (
            (not self.types or str(_field(item, "type") or "") in self.types)
            and (not self.scopes or scope in self.scopes)
            and (not self.statuses or status in self.statuses)
            and status not in self.exclude_statuses
            and (not self.notes_only or kind == "note")
            and (self.stale is None or bool(_field(item, "stale")) == self.stale)
            and (
                self.min_confidence is None
                or float(_field(item, "confidence") or 0.0) >= self.min_confidence
            )
            and (not self.tags or bool(set(self.tags) & set(_field(item, "tag_keys") or ())))
            and (self.created == _ANY_DAY or _within(_day_of(item, "created"), self.created))
            and (self.reviewed == _ANY_DAY or _within(_day_of(item, "reviewed"), self.reviewed))
            and (self.include_sensitive or self.visible(item))
        )

    def visible(self, item: Any) -> bool:
        """Visibility alone: not sensitive itself and not in a sensitive scope."""
        scope = str(_field(item, "scope") or "")
        return not bool(_field(item, "sensitive")) and scope not in self.hidden_scopes


# --------------------------------------------------------------------------- visibility


def _config(palace_or_config: Any) -> Any:
    config = getattr(palace_or_config, "config", palace_or_config)
    if not hasattr(config, "scopes"):
        raise TypeError(f"expected a Palace or Config, got {type(palace_or_config).__name__}")
    return config


def sensitive_scopes(palace_or_config: Any) -> tuple[str, ...]:
    """Names of the scopes palace.toml marks sensitive, sorted (none for None: no config)."""
    if palace_or_config is None:
        return ()
    scopes = _config(palace_or_config).scopes
    return tuple(sorted(name for name, spec in scopes.items() if spec.sensitive))


def visibility(palace_or_config: Any, *, include_sensitive: bool) -> Filter:
    """The filter that checks visibility only (drafts included, nothing else constrained)."""
    return Filter.of(palace_or_config, drafts=True, include_sensitive=include_sensitive)


def is_sensitive(palace_or_config: Any, item: Any) -> bool:
    """True when `item` is sensitive itself or lives in a sensitive scope."""
    return not visibility(palace_or_config, include_sensitive=False).visible(item)


def visible(palace_or_config: Any, item: Any, *, include_sensitive: bool) -> bool:
    """May `item` (Note, IndexDoc, Hit, Source, Candidate or index row) appear in a result?
    A Note goes through the model's gate (`schema.is_visible`); a row renders it."""
    if include_sensitive:
        return True
    if isinstance(item, Note):
        return is_visible(item, _config(palace_or_config))
    return not is_sensitive(palace_or_config, item)


def not_current_row(
    palace: Palace, row: Mapping[str, Any], today: date | None = None
) -> str | None:
    """Why an index row may not be served as a current hint (`schema.not_current` of its
    note), or None when it may; a row whose note the palace no longer holds may not."""
    note = palace.by_rel.get(str(row.get("path")))
    if note is None:
        return "not in the palace as loaded"
    return not_current(note, today or date.today())


def row_body(palace: Palace, row: Mapping[str, Any]) -> str:
    """A row's body: its own (read from the table, or made with it by `doc_row`), else (a
    row made from a note's header alone) its note's, read only now."""
    if "body" in row:
        return str(row["body"] or "")
    note = palace.by_rel.get(str(row.get("path")))
    return note.body if note is not None else ""


def served_body(palace: Palace, row: Mapping[str, Any], include_sensitive: bool) -> str:
    """A row's body (`row_body`) as it may be served: its links to notes the gate hides
    withheld (`curator.model.served`)."""
    body = row_body(palace, row)
    note = palace.by_rel.get(str(row.get("path")))
    if note is None or include_sensitive:
        return body
    return Served.of(palace).links_in(note, body)


def where_visible(palace_or_config: Any, *, include_sensitive: bool) -> str | None:
    """The SQL prefilter form of `visible` (None when everything may be shown)."""
    return visibility(palace_or_config, include_sensitive=include_sensitive).sql()


# The fields a Filter reads of a loaded note or draft, as the index derives them
_NOTE_FIELDS: dict[str, Callable[[Palace, Note], Any]] = {
    "type": lambda palace, note: note.type,
    "scope": lambda palace, note: note.scope,
    "status": lambda palace, note: note.status,
    "kind": lambda palace, note: note.kind,
    "stale": lambda palace, note: note.stale is not None,
    "confidence": lambda palace, note: palace.confidence(note) if note.ok else 0.0,
    "sensitive": lambda palace, note: not is_visible(note, palace.config),
    "tag_keys": lambda palace, note: tag_keys(note.tags) if note.ok else (),
    "created": lambda palace, note: note.created,
    "reviewed": lambda palace, note: note.reviewed,
}


class NoteFields(Mapping[str, Any]):
    """`note_row` of a note, each field worked out when a filter reads it: the names matched
    as you type are checked a few hundred notes a keystroke, and a search's filter reads four
    of the ten fields."""

    __slots__ = ("_note", "_palace")

    def __init__(self, palace: Palace, note: Note) -> None:
        self._palace, self._note = palace, note

    def __getitem__(self, key: str) -> Any:
        return _NOTE_FIELDS[key](self._palace, self._note)

    def __iter__(self) -> Iterator[str]:
        return iter(_NOTE_FIELDS)

    def __len__(self) -> int:
        return len(_NOTE_FIELDS)


def note_row(palace: Palace, note: Note) -> dict[str, Any]:
    """The fields a Filter reads, of a loaded note or draft, as the index derives them."""
    return dict(NoteFields(palace, note))


__all__ = [
    "MAX_LIMIT",
    "REPLACED_STATUSES",
    "Filter",
    "NoteFields",
    "SearchError",
    "and_where",
    "check_limit",
    "is_sensitive",
    "not_current_row",
    "note_row",
    "row_body",
    "sensitive_scopes",
    "served_body",
    "sql_str",
    "visibility",
    "visible",
    "where_visible",
]
