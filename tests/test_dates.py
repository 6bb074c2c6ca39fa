"""Dates as data: what a note's text says ("yesterday", "two weeks ago") resolved against the
note's own date when it is captured or imported, kept in its `dates` header field, and matched
by a question's time cue. Real captures and imports into tmp palaces, a real LanceDB index."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from palacehelpers import MakePalace, note_text

from curator.interop.importer import run_import
from curator.interop.records import jsonl_record
from curator.model.dates import MAX_DATES, period_span, resolve_dates
from curator.model.palace import Palace
from curator.model.schema import header_problems
from curator.search.ranking import Tuning
from curator.search.searcher import Searcher
from curator.search.temporal import time_cue
from curator.writer.capture import capture

HASH_TOML = '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[index]\nembedder = "hash"\ndim = 1024\n'
DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
NUMBERS = {2: "two", 3: "three", 5: "five"}
bases = st.dates(date(1990, 1, 1), date(2040, 12, 31))


def span(value: str) -> tuple[date, date]:
    found = period_span(value)
    assert found is not None, value
    return found


@settings(deadline=None)
@given(st.text(max_size=300), bases)
def test_resolving_any_text_never_raises_and_gives_periods(text: str, base: date) -> None:
    found = resolve_dates(text, base)
    assert len(found) <= MAX_DATES and found == sorted(set(found))
    assert all(period_span(v) for v in found)


def week_of(day: date) -> str:
    monday = day - timedelta(days=day.weekday())
    return f"{monday.isoformat()}/{(monday + timedelta(days=6)).isoformat()}"


# what a text says -> the period it speaks of, from the note's date
SHIFTS = {
    "yesterday": lambda b, n: (b - timedelta(days=1)).isoformat(),
    "tomorrow": lambda b, n: (b + timedelta(days=1)).isoformat(),
    "{n} days ago": lambda b, n: (b - timedelta(days=n)).isoformat(),
    "{word} weeks ago": lambda b, n: week_of(b - timedelta(weeks=n)),
    "last week": lambda b, n: week_of(b - timedelta(weeks=1)),
    "last month": lambda b, n: f"{(b.replace(day=1) - timedelta(days=1)):%Y-%m}",
    "{n} years ago": lambda b, n: str(b.year - n),
    "last {day}": lambda b, n: (b - timedelta(days=(b.weekday() - n % 7 - 1) % 7 + 1)).isoformat(),
}


@settings(deadline=None)
@given(
    bases,
    st.sampled_from(sorted(SHIFTS)),
    st.sampled_from(sorted(NUMBERS)),
    st.sampled_from(["I went there", "Caroline ran the race", "We met the team"]),
    st.sampled_from(["", "It was great!", "Thanks, Mel."]),
)
def test_a_resolved_date_is_the_notes_date_shifted_by_what_the_text_says(
    base: date, phrase: str, n: int, before: str, after: str
) -> None:
    said = phrase.format(n=n, word=NUMBERS[n], day=DAYS[n % 7])
    text = f"{before} {said}. {after}"
    assert SHIFTS[phrase](base, n) in resolve_dates(text, base), text


def test_a_text_naming_no_time_has_no_dates() -> None:
    for text in ("Thanks, Mel! That means a lot.", "I may go, we will see.", "The 5th one."):
        assert resolve_dates(text, date(2023, 5, 8)) == [], text


def test_resolving_loads_dateparser_only_for_a_time_word_and_never_its_search() -> None:
    """dateparser's search loads the data of its 200 languages on import (most of a second
    of a capture); the phrases are found without it, and a text naming no time never
    imports dateparser at all."""
    script = (
        "import sys\n"
        "from datetime import date\n"
        "from curator.model.dates import resolve_dates\n"
        "assert resolve_dates('Likes green tea.', date(2023, 5, 8)) == []\n"
        "assert not [m for m in sys.modules if m.startswith('dateparser')]\n"
        "got = resolve_dates('We met on 8 May, 2023 and hiked two weeks ago.', date(2023, 5, 10))\n"
        "assert got == ['2023-04-24/2023-04-30', '2023-05-08'], got\n"
        "assert 'dateparser.date' in sys.modules and 'dateparser.search' not in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_capture_writes_the_dates_and_leaves_the_text_alone(make_palace: MakePalace) -> None:
    root = make_palace({}, toml=HASH_TOML)
    body = "I went to a support group yesterday, and hiking two weeks ago.\n"
    now = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    got = capture(root, type="project", name="Support group", body=body, now=now)
    draft = Palace.open(root).by_rel[got.path]
    assert draft.header["dates"] == ["2023-04-24/2023-04-30", "2023-05-07"]
    assert body in (root / got.path).read_text(encoding="utf-8")
    problems = header_problems(draft.header, Palace.open(root).config, kind="draft")
    assert not [p for p in problems if p[0] == "dates"]
    plain = capture(root, type="project", name="Tea", body="Likes green tea.\n", now=now)
    assert "dates" not in Palace.open(root).by_rel[plain.path].header


def test_an_import_resolves_against_the_records_own_date(make_palace: MakePalace) -> None:
    root = make_palace({}, toml=HASH_TOML)
    line = {"text": "Watched the Lord of the Rings last night!", "created": "2022-05-02T18:00:00Z"}
    record = jsonl_record(line, 1)
    summary = run_import(root, "jsonl", [record], default_type="project")
    (path,) = summary.imported
    assert Palace.open(root).by_rel[path].header["dates"] == ["2022-05-01"]


def test_a_bad_dates_field_is_a_header_problem(make_palace: MakePalace) -> None:
    config = Palace.open(make_palace({}, toml=HASH_TOML)).config
    header = {"name": "a", "description": "b", "type": "project", "dates": ["soon"]}
    assert [key for key, _code, _msg in header_problems(header, config)] == ["dates"]
    header["dates"] = ["2023-05-07", "2023-04", "2020", "2023-04-24/2023-04-30"]
    assert header_problems(header, config) == []


def test_query_cues_name_days_months_and_the_week_before() -> None:
    one = time_cue("What movie did Joanna watch on 1 May, 2022?")
    assert one is not None and one.spans == ((date(2022, 5, 1), date(2022, 5, 1)),)
    us = time_cue("Who did Maria have dinner with on May 3rd, 2023?")
    assert us is not None and us.spans == ((date(2023, 5, 3), date(2023, 5, 3)),)
    week = time_cue("Where was Tim in the week before 16 November 2023?")
    assert week is not None and week.spans == ((date(2023, 11, 9), date(2023, 11, 16)),)
    month = time_cue("What did John attend in March 2023?")
    assert month is not None and month.spans == ((date(2023, 3, 1), date(2023, 3, 31)),)


def first(s: Searcher, query: str, **tuning: object) -> str:
    s.tuning = replace(Tuning(), **tuning)  # type: ignore[arg-type]
    return s.search(query, drafts=True)[0].path


# (what two notes say and when they were captured, a question; the first note is the answer,
# found by its dates: without them the two tie and the earlier path leads)
DECIDED_BY_DATES = {
    "a named day": (
        ("Joanna watched a movie last night!", datetime(2022, 5, 9)),
        ("Joanna watched a movie last night!", datetime(2022, 5, 2)),
        "What movie did Joanna watch on 8 May, 2022?",
    ),
    "a named month": (
        ("John went to a convention with his colleagues last month.", datetime(2023, 4, 20)),
        ("John went to a convention with his colleagues last week.", datetime(2023, 4, 18)),
        "What did John attend with his colleagues in March 2023?",
    ),
    "the week before a day": (
        ("Tim went to the UK last week.", datetime(2023, 11, 20)),
        ("Tim went to the UK next week.", datetime(2023, 11, 18)),
        "Where was Tim in the week before 16 November 2023?",
    ),
    "asking when": (
        ("Nate has had his turtles for 3 years now.", datetime(2022, 1, 24)),
        ("Nate has had his turtles for a while now.", datetime(2022, 1, 23)),
        "When did Nate get his turtles?",
    ),
}


@pytest.mark.parametrize("case", DECIDED_BY_DATES)
def test_a_time_cue_finds_the_note_whose_dates_match(make_palace: MakePalace, case: str) -> None:
    answer, other, query = DECIDED_BY_DATES[case]
    files = {
        f"notes/filler-{i:02d}.md": note_text(f"Filler {i:02d}", body="Nothing here, just words.\n")
        for i in range(10)
    }
    root = make_palace(files, toml=HASH_TOML)
    # captured the way an agent or an import writes them, so the dates come from capture
    want, *_ = (
        capture(root, type="project", name=f"Note {i}", body=body, now=when).path
        for i, (body, when) in enumerate((answer, other))
    )
    s = Searcher(Palace.open(root))
    assert first(s, query) == want
    assert first(s, query, dates=False) != want
