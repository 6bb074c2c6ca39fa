"""Time in queries: a question that asks when, or names a period, ranks up the notes whose
date falls in that period or whose text says when something happened.

    cue = time_cue("What movie did Joanna watch on 1 May, 2022?")   # names a day
    cue.match("2022-05-02", "I watched it last night", [(date(2022, 5, 1),) * 2])   # 1.0

Pure functions over strings; a note's dates are its `created` (a capture's day, an import's
session date; never file times) and the dates its text speaks of, resolved against `created`
when it was captured (its `dates` field, `curator.model.dates`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from curator.model.dates import period_span

Span = tuple[date, date]

MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_MONTH = "|".join(MONTHS) + "|" + "|".join(m[:3] for m in MONTHS if len(m) > 3) + "|sept"
_DAY = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_UNIT = r"(?:week|month|year|weekend|night|summer|winter|spring|fall|autumn|time|" + _DAY + ")"
_ASKS = re.compile(
    r"\b(when|since when|how long ago|what (?:year|month|day|date|time|week)|"
    r"which (?:year|month|day|date|week)|what (?:was|is) the date)\b",
    re.IGNORECASE,
)
_YEAR = re.compile(r"\b(19\d{2}|20\d{2})\b")
_MONTH_YEAR = re.compile(rf"\b({_MONTH})\.?,?\s+(19\d{{2}}|20\d{{2}})\b", re.IGNORECASE)
# a day: "1 May, 2022", "May 3rd 2023", "the week before 16 November 2023"
_DAY_DATE = re.compile(
    rf"(?P<rel>\b(?:week|weekend|days?)\s+(?:before|after|of)\s+)?"
    rf"(?:\b(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\s*(?P<m1>{_MONTH})\.?|"
    rf"\b(?P<m2>{_MONTH})\.?\s+(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?)\b,?\s*(?P<y>(?:19|20)\d{{2}})\b",
    re.IGNORECASE,
)
_WEEK = timedelta(days=7)
# how a text says when something happened
_WHEN = re.compile(
    rf"\b(yesterday|today|tonight|tomorrow|ago|recently|lately|"
    rf"(?:last|next|this|past|coming|few|couple of) {_UNIT}s?|"
    rf"(?:{_MONTH})|(?:{_DAY})s?|weekends?|19\d{{2}}|20\d{{2}}|"
    rf"\d{{1,2}}(?:st|nd|rd|th)|\d{{1,2}}[/.-]\d{{1,2}}(?:[/.-]\d{{2,4}})?)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class TimeCue:
    """What a query says about time: whether it asks when, and the spans of days it names
    (first and last day: "in May 2023", "on 1 May, 2022", "the week before 16 November 2023")."""

    asks_when: bool
    spans: tuple[Span, ...]

    def match(self, created: str, text: str, dates: Sequence[Span] = ()) -> float:
        """1.0 when a span the query names holds the note's date or a date its text speaks of
        (`dates`: the note's `dates` field, see `curator.model.dates`), or the query asks when
        and the note says when (a resolved date, or a time word in its text); else 0.0."""
        if self.spans:
            day = period_span(created[:10]) if created else None
            held = [*dates, day] if day else dates
            if any(a <= y and x <= b for a, b in self.spans for x, y in held):
                return 1.0
        if self.asks_when and (dates or _WHEN.search(text)):
            return 1.0
        return 0.0


def time_cue(query: str) -> TimeCue | None:
    """The query's time cue, or None when it has none. Its dates are absolute ("May 2023",
    "1 May, 2022"), read by pattern: the query side runs on every keystroke and in the prompt
    hook, where dateparser's import alone would cost a third of the budget."""
    spans: list[Span] = []
    for m in _DAY_DATE.finditer(query):
        day = _day(m)
        if day is not None:
            spans.append(_around(day, m.group("rel")))
    if not spans:
        for month, year in _MONTH_YEAR.findall(query):
            found = period_span(f"{year}-{_month_number(month):02d}")
            if found:
                spans.append(found)
    if not spans:
        spans.extend(s for s in map(period_span, dict.fromkeys(_YEAR.findall(query))) if s)
    asks = bool(_ASKS.search(query))
    if not asks and not spans:
        return None
    return TimeCue(asks, tuple(spans))


def _day(m: re.Match[str]) -> date | None:
    try:
        month, day = m.group("m1") or m.group("m2"), m.group("d1") or m.group("d2")
        return date(int(m.group("y")), _month_number(month), int(day))
    except ValueError:
        return None


def _around(day: date, relation: str | None) -> Span:
    """The days "the week before <day>" (or after, or of) covers; the day itself alone."""
    if not relation:
        return day, day
    low = relation.lower()
    if "before" in low:
        return day - _WEEK, day
    if "after" in low:
        return day, day + _WEEK
    return day - _WEEK / 2, day + _WEEK / 2


def _month_number(name: str) -> int:
    low = name.lower()[:3]
    return next(i for i, m in enumerate(MONTHS, 1) if m.startswith(low))


__all__ = ["Span", "TimeCue", "time_cue"]
