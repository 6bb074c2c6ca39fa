"""A note's flags and dates: stale, due for review, expired, low confidence, superseded.

The dates (`review_by`, `expires_on`) follow from the files alone, so INDEX.md can show them
and stay the same from one day to the next; the flags compare them with `today`, so only
`check`, `list` and the app, which run on a given day, show them.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

from curator.config import Config
from curator.model.layouts.rules import layout_confidence
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


def known_confidence(note: Note, config: Config) -> float | None:
    """The note's confidence as the files say it: stated (a number within 0..1), else its
    type's default, else its layout's; None when nothing says it (an unreadable header, a
    stated value that is no confidence, no type to take one from)."""
    if not note.ok:
        return None
    if "confidence" in note.header:
        return stated_confidence(note)
    spec = config.type_spec(note.type)
    if spec is not None:
        return spec.default_confidence
    return layout_confidence(config)


def confidence(note: Note, config: Config) -> float:
    """The note's confidence for ranking and packing: as `known_confidence`, 0.0 when unknown
    (a note no one vouches for is never ranked up)."""
    known = known_confidence(note, config)
    return 0.0 if known is None else known


def invalid(note: Note) -> bool:
    """The header cannot be read, or states a confidence that is none (`confidence: 7`): the
    note's data is not shown as if it held."""
    if not note.ok:
        return True
    return "confidence" in note.header and stated_confidence(note) is None


def stated_confidence(note: Note) -> float | None:
    """The header's confidence when it is one: a number within 0..1."""
    value = note.confidence
    return value if value is not None and 0.0 <= value <= 1.0 else None


def is_low_confidence(note: Note, config: Config) -> bool:
    """Below the palace's low-confidence line, by a confidence the files state or imply."""
    known = known_confidence(note, config)
    return known is not None and known < config.index.low_confidence


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
    """invalid, stale, due, expired, low-confidence, superseded or retired — in that order."""
    out: list[str] = ["invalid"] if invalid(note) else []
    if note.stale:
        out.append("stale")
    if is_due(note, config, today):
        out.append("due")
    expires = expires_on(note)
    if expires and expires < today:
        out.append("expired")
    if is_low_confidence(note, config):
        out.append("low-confidence")
    if note.superseded:
        out.append("retired" if note.status == "retired" else "superseded")
    return out
