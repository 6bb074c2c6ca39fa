"""Time in queries: a question that asks when, or names a period, ranks up the notes whose
date falls in that period or whose text says when something happened.

    cue = time_cue("When did Caroline go to the support group?")   # asks when
    cue.match("2023-05-08", "I went to a support group yesterday")   # 1.0

Pure functions over strings; dates are the notes' `created` (a capture's day, an import's
session date), never file times.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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
    """What a query says about time: whether it asks when, and the periods it names as
    ISO prefixes ("2023" for a year, "2023-05" for a month)."""

    asks_when: bool
    periods: tuple[str, ...]

    def match(self, created: str, text: str) -> float:
        """1.0 when the note's date is in a period the query names, or the query asks when and
        the note's text says when; else 0.0."""
        if self.periods and any(created.startswith(p) for p in self.periods):
            return 1.0
        if self.asks_when and _WHEN.search(text):
            return 1.0
        return 0.0


def time_cue(query: str) -> TimeCue | None:
    """The query's time cue, or None when it has none."""
    periods: list[str] = []
    for month, year in _MONTH_YEAR.findall(query):
        periods.append(f"{year}-{_month_number(month):02d}")
    if not periods:
        periods.extend(dict.fromkeys(_YEAR.findall(query)))
    asks = bool(_ASKS.search(query))
    if not asks and not periods:
        return None
    return TimeCue(asks, tuple(periods))


def _month_number(name: str) -> int:
    low = name.lower()[:3]
    return next(i for i, m in enumerate(MONTHS, 1) if m.startswith(low))


__all__ = ["TimeCue", "time_cue"]
