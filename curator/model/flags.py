"""A note's flags and dates: stale, due for review, expired, low confidence, superseded.

The dates (`review_by`, `expires_on`) follow from the files alone, so INDEX.md can show them
and stay the same from one day to the next; the flags compare them with `today`, so only
`check`, `list` and the app, which run on a given day, show them.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

from curator.config import Config
from curator.model.layouts.rules import default_confidence
from curator.model.note import Note


def parse_date(value: object) -> date | None:
    """The date a header value holds (2026-11-30..., or a loader's date object), or None."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if not isinstance(value, str) or not value:
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def confidence(note: Note, config: Config) -> float:
    """The note's confidence, or its type's default."""
    if note.confidence is not None:
        return note.confidence
    spec = config.type_spec(note.type)
    if spec is not None:
        return spec.default_confidence
    # not stated, and no type to take it from: the layout's default (0.0 in curator's own,
    # where every note has a type)
    return default_confidence(config)


def review_by(note: Note, config: Config) -> date | None:
    """The day after which an active note is due for review: its type's review period after
    the latest of reviewed, verified and created. None when it is never due."""
    if note.kind != "note" or note.superseded:
        return None
    spec = config.type_spec(note.type)
    if spec is None:
        return None
    candidates = (note.reviewed, note.header.get("verified"), note.created)
    dates = [d for d in map(parse_date, candidates) if d]
    if not dates:
        return None
    return max(dates) + timedelta(days=spec.review_after_days)


def expires_on(note: Note) -> date | None:
    return parse_date(note.expires)


def is_due(note: Note, config: Config, today: date) -> bool:
    deadline = review_by(note, config)
    return deadline is not None and today > deadline


def flags(note: Note, config: Config, today: date) -> list[str]:
    """stale, due, expired, low-confidence, superseded or retired — in that order."""
    out: list[str] = []
    if note.stale:
        out.append("stale")
    if is_due(note, config, today):
        out.append("due")
    expires = expires_on(note)
    if expires and expires < today:
        out.append("expired")
    if note.ok and confidence(note, config) < config.index.low_confidence:
        out.append("low-confidence")
    if note.superseded:
        out.append("retired" if note.status == "retired" else "superseded")
    return out
