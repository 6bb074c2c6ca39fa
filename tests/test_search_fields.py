"""Field-aware ranking, context, time cues, neighbour smoothing and the relevance floor, on small
palaces with a real LanceDB index (hash embedder), plus property tests of the pure parts."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from palacehelpers import MakePalace, note_text

from curator.model.palace import Palace
from curator.search import Searcher
from curator.search.fuse import scaled
from curator.search.ranking import Tuning
from curator.search.temporal import time_cue
from curator.search.text import stems

HASH_TOML = '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[index]\nembedder = "hash"\ndim = 1024\n'


def n(name: str, body: str, *, context: str = "", created: str = "") -> str:
    extra = f"context: {json.dumps(context)}\n" if context else ""
    extra += f"created: {created}\n" if created else ""
    return note_text(name, type="project", description="", body=body + "\n", extra=extra)


def fillers(count: int = 12) -> dict[str, str]:
    return {
        f"notes/filler-{i:02d}.md": n(f"Filler {i:02d}", "Nothing about anything here, just words.")
        for i in range(count)
    }


def paths(searcher: Searcher, query: str, **kwargs: object) -> list[str]:
    return [h.path for h in searcher.search(query, **kwargs)]  # type: ignore[arg-type]


def test_a_word_in_the_name_outranks_the_same_word_in_a_body(make_palace: MakePalace) -> None:
    files = fillers()
    files["notes/a.md"] = n("Ledger rotation", "Runs on Sundays after the backup finished well.")
    files["notes/b.md"] = n("Sunday jobs", "The ledger job runs on Sundays after the backup.")
    s = Searcher(Palace.open(make_palace(files, toml=HASH_TOML)))
    assert paths(s, "what about the ledger on sundays")[0] == "notes/a.md"
    s.tuning = replace(Tuning(), fields=(0.0, 0.0, 0.0, 1.0, 0.0))  # the name not counted
    assert paths(s, "what about the ledger on sundays")[0] == "notes/b.md"


def test_context_finds_a_fact_and_is_never_its_snippet(make_palace: MakePalace) -> None:
    files = fillers()
    files["notes/fact.md"] = n(
        "Decision", "We chose the second option.", context="Bob: which queue for the invoices?"
    )
    s = Searcher(Palace.open(make_palace(files, toml=HASH_TOML)))
    hits = s.search("invoices queue")
    assert hits and hits[0].path == "notes/fact.md"
    assert "queue" not in hits[0].snippet and "invoices" not in json.dumps(hits[0].to_json())
    s.tuning = replace(Tuning(), fields=(*Tuning().fields[:4], 0.0))  # type: ignore[misc]
    assert "notes/fact.md" not in paths(s, "invoices queue")


def test_a_query_nothing_matches_finds_nothing(make_palace: MakePalace) -> None:
    root = make_palace(fillers(), toml=HASH_TOML)
    s = Searcher(Palace.open(root))
    assert s.search("xylophone quarantine zebu") == []
    assert s.search("what did the xylophone quarantine decide?") == []
    assert s.ask("what did the xylophone quarantine decide?").sources == ()
    assert "_0 notes from memory" in s.pack("xylophone quarantine zebu", floor=0.0)
    assert paths(s, "filler words")  # a matching query still finds notes
    s.tuning = replace(Tuning(), floor=False)
    assert s.search("xylophone quarantine zebu")  # without the floor: the nearest, as before


def test_a_query_asking_when_ranks_the_note_that_says_when(make_palace: MakePalace) -> None:
    files = fillers()
    files["notes/a.md"] = n("Caroline", "Caroline loves her pottery class, the pottery class.")
    files["notes/b.md"] = n("Caroline", "Caroline went to a pottery class yesterday.")
    s = Searcher(Palace.open(make_palace(files, toml=HASH_TOML)))
    assert paths(s, "When did Caroline go to the pottery class?")[0] == "notes/b.md"
    s.tuning = replace(Tuning(), time=0.0)
    assert paths(s, "When did Caroline go to the pottery class?")[0] == "notes/a.md"


def test_a_named_period_ranks_the_notes_dated_in_it(make_palace: MakePalace) -> None:
    files = fillers()
    files["notes/a.md"] = n("Trip", "The trip to the lake was lovely.", created="2023-03-02")
    files["notes/b.md"] = n("Trip", "The trip to the lake was lovely.", created="2023-07-09")
    s = Searcher(Palace.open(make_palace(files, toml=HASH_TOML)))
    assert paths(s, "the trip to the lake in July 2023")[0] == "notes/b.md"
    assert paths(s, "the trip to the lake in March 2023")[0] == "notes/a.md"


def test_a_note_takes_a_share_of_its_thread_neighbours_score(make_palace: MakePalace) -> None:
    files = fillers()
    question = "Did you ever try the orchid greenhouse downtown?"
    files["notes/q.md"] = n("Anna", question)
    files["notes/answer.md"] = n("Ben", "Yes, it was warm.", context=f"Anna: {question}")
    files["notes/other.md"] = n("Ben", "Yes, it was warm.", context="Anna: Did you sleep well?")
    s = Searcher(Palace.open(make_palace(files, toml=HASH_TOML)))
    # the context's words not counted: only smoothing tells the two answers apart
    s.tuning = replace(Tuning(), fields=(*Tuning().fields[:4], 0.0), vector=0.0)  # type: ignore[misc]
    got = paths(s, "orchid greenhouse warm")
    assert got.index("notes/answer.md") < got.index("notes/other.md")
    s.tuning = replace(s.tuning, smooth=0.0)
    scores = {h.path: h.score for h in s.search("orchid greenhouse warm")}
    assert scores["notes/answer.md"] == scores["notes/other.md"]


def test_scores_stay_within_zero_and_one(make_palace: MakePalace) -> None:
    files = fillers()
    files["notes/a.md"] = n("Filler words", "Filler words, filler words.", context="Filler: words")
    s = Searcher(Palace.open(make_palace(files, toml=HASH_TOML)))
    for query in ("filler", "filler words", "what are the filler words about?", "fil"):
        assert all(0.0 <= h.score <= 1.0 for h in s.search(query)), query


@settings(max_examples=200)
@given(st.lists(st.floats(-1e6, 1e6), max_size=30))
def test_scaling_keeps_the_order_within_zero_and_one(values: list[float]) -> None:
    out = scaled(np.asarray(values))
    if values and max(values) > 0:
        assert max(out) == 1.0
    assert len(out) == len(values)
    assert all(0.0 <= v <= 1.0 for v in out)
    for i, j in zip(np.argsort(values, kind="stable")[:-1], np.argsort(values, kind="stable")[1:]):
        assert out[i] <= out[j]


@settings(max_examples=300)
@given(st.text(max_size=200), st.text(max_size=40), st.text(max_size=200))
def test_time_cues_of_any_text_never_raise(query: str, created: str, text: str) -> None:
    cue = time_cue(query)
    if cue is not None:
        assert cue.match(created, text) in (0.0, 1.0)
    assert all(s and s == s.lower() for s in stems(query))
