"""The dates a note's text speaks of, resolved against the note's own date.

"I went to a support group yesterday", captured (or imported) with `created: 2023-05-08`, speaks
of 2023-05-07: capture writes that into the draft's `dates` header field, which curator owns
(the text is never rewritten), and search matches a question's time cue against it
(`curator.search.temporal`).

    resolve_dates("We went camping last week", date(2023, 5, 10))
    # ['2023-05-01/2023-05-07']

Each value is an ISO 8601 period at the precision the text gives: a day (2023-05-07), a month
(2023-04), a year (2020), or a week as an interval (2023-05-01/2023-05-07). The arithmetic is
dateparser's (a lazy import: most texts hold no time word and never load it); this module only
picks the phrases to trust: those holding a time word, since dateparser also reads "we" as
Wednesday and "may" as a month.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Any

MAX_DATES = 12  # a note speaks of a few dates; a long log's hundreds would say nothing
MAX_SENTENCES = 24  # clauses with a time word read per text (bounds the parser's time)
MAX_SENTENCE = 400  # characters of each
MAX_TRIES = 96  # phrases a text's sentences may hand dateparser (each try parses once)

_MONTHS = "january|february|march|april|june|july|august|september|october|november|december"
_DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
# a phrase worth resolving holds one of these ("may" only beside a number: "I may go" is not
# a date); the rest of what dateparser's search finds ("we", "the 5th", "now") is dropped
_TIME_WORD = re.compile(
    rf"\b(?:yesterday|today|tonight|tomorrow|ago|{_DAYS}|{_MONTHS}|"
    r"(?:last|next|this|past|previous|coming)\s+(?:\w+\s+)?"
    r"(?:week|month|year|night|morning|evening|afternoon)s?|"
    r"\d+\s+(?:days?|weeks?|months?|years?)|may\s+\d|\d\s+may|(?:19|20)\d\d)\b",
    re.IGNORECASE,
)
# clauses: dateparser's search runs one date into the next across "and" ("in 2019 and on 3
# May 2021" came back as March 2019); a comma splits too, except before a year ("May 3, 2023")
_CLAUSE = re.compile(r"[.!?;\n]|,(?!\s*\d{4}\b)|\b(?:and|but|or|then)\b", re.IGNORECASE)
_PERIOD = re.compile(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?")
_WORDS = re.compile(r"[^\s()\[\]\"]+")  # the words a phrase is made of, with their commas
_REACH = 3  # words a phrase may run on each side of its time word ("a couple of days ago")
_PUNCT = ".,;:!?'\u2019"
# the words a phrase may start or end with ("we met on 8 May, 2023" is "8 May, 2023", not
# "2023 we", which dateparser would read as Wednesday)
_EDGE = re.compile(
    rf"(?:\d+(?:st|nd|rd|th)?|{_MONTHS}|may|{_DAYS}|yesterday|today|tonight|tomorrow|ago|"
    r"last|next|this|past|previous|coming|a|an|one|two|three|four|five|six|seven|eight|nine|"
    r"ten|eleven|twelve|few|couple|the|"
    r"(?:day|week|month|year|night|morning|evening|afternoon|weekend)s?)"
)


def resolve_dates(text: str, base: date | datetime) -> list[str]:
    """The periods `text` speaks of, resolved against `base` (the note's date), sorted; []
    when it names none. Never raises on any text; a text without a time word never loads
    dateparser."""
    day = base.date() if isinstance(base, datetime) else base
    sentences = [s[:MAX_SENTENCE] for s in _CLAUSE.split(text) if _TIME_WORD.search(s)]
    found: set[str] = set()
    tries = [MAX_TRIES]
    for sentence in sentences[:MAX_SENTENCES]:
        found.update(v for v in (_period(d) for d in _dates(sentence, day, tries)) if v)
    return sorted(found)[:MAX_DATES]


def _dates(sentence: str, day: date, tries: list[int]) -> list[Any]:
    """What dateparser reads in the phrases of a sentence: around each time word, the
    longest run of words holding it that its parser accepts ("two weeks ago", "8 May, 2023",
    "last Friday"), each tried phrase taking one of `tries` (shared by a text's sentences).
    dateparser's own search finds the same phrases but loads the data of its 200 languages
    to do so, which cost a capture with a time word most of a second."""
    words = list(_WORDS.finditer(sentence))
    out: list[Any] = []
    taken = -1  # the last word of the phrase found before: phrases do not overlap
    for m in _TIME_WORD.finditer(sentence):
        first = next(i for i, w in enumerate(words) if w.end() > m.start())
        last = max(i for i, w in enumerate(words) if w.start() < m.end())
        if first <= taken:
            continue
        spans = [
            (a, b)
            for a in range(max(first - _REACH, taken + 1), first + 1)
            for b in range(last, min(last + _REACH, len(words) - 1) + 1)
            if _EDGE.fullmatch(_bare(words[a])) and _EDGE.fullmatch(_bare(words[b]))
        ]
        for a, b in sorted(spans, key=lambda ab: ab[0] - ab[1]):  # the longest first
            if tries[0] <= 0:
                return out
            tries[0] -= 1
            data = _read(sentence[words[a].start() : words[b].end()].strip(_PUNCT), day)
            if data is not None:
                out.append(data)
                taken = b
                break
    return out


def _bare(word: re.Match[str]) -> str:
    return word.group().strip(_PUNCT).lower()


def _read(phrase: str, day: date) -> Any:
    """dateparser's reading of one phrase (its DateData), None when it reads no date."""
    try:
        data = _parser(day).get_date_data(phrase)
    except Exception:  # a parser's failure on odd text costs the dates, never the capture
        return None
    return data if data.date_obj is not None else None


def _period(data: Any) -> str:
    """The ISO period of one reading at the precision dateparser gives it ('' when none)."""
    when = data.date_obj
    if not 1 <= when.year <= 9999:
        return ""
    if data.period == "year":
        return f"{when.year:04d}"
    if data.period == "month":
        return f"{when.year:04d}-{when.month:02d}"
    if data.period == "week":
        monday = when.date() - timedelta(days=when.weekday())
        return f"{monday.isoformat()}/{(monday + timedelta(days=6)).isoformat()}"
    return when.date().isoformat()


def _settings(day: date) -> dict[str, Any]:
    return {
        "RELATIVE_BASE": datetime(day.year, day.month, day.day),
        "PREFER_DATES_FROM": "past",  # a note records what happened: "on Friday" went by
        "TIMEZONE": "UTC",
        "RETURN_AS_TIMEZONE_AWARE": False,
    }


@lru_cache(maxsize=64)  # an import of a long history brings many days: keep the recent ones
def _parser(day: date) -> Any:
    from dateparser.date import DateDataParser

    return DateDataParser(languages=["en"], settings=_settings(day))


def period_span(value: Any) -> tuple[date, date] | None:
    """The first and last day of an ISO period as `resolve_dates` writes one (a YAML loader's
    date object too); None for anything else."""
    if isinstance(value, datetime):
        return value.date(), value.date()
    if isinstance(value, date):
        return value, value
    if not isinstance(value, str):
        return None
    if "/" in value:
        first, _, last = value.partition("/")
        a, b = period_span(first.strip()), period_span(last.strip())
        return (a[0], b[1]) if a and b and a[0] <= b[1] else None
    m = _PERIOD.fullmatch(value.strip()[:10])
    if not m:
        return None
    year, month, dom = (int(g) if g else 0 for g in m.groups())
    try:
        if dom:
            one = date(year, month, dom)
            return one, one
        if month:
            start = date(year, month, 1)
            following = date(year + month // 12, month % 12 + 1, 1)
            return start, following - timedelta(days=1)
        return date(year, 1, 1), date(year, 12, 31)
    except ValueError:
        return None


def header_dates(value: Any) -> list[tuple[date, date]]:
    """The spans of a `dates` header value (a list of periods; anything unreadable left out)."""
    items = value if isinstance(value, list) else [value]
    return [s for s in (period_span(v) for v in items) if s is not None]


__all__ = ["MAX_DATES", "header_dates", "period_span", "resolve_dates"]
