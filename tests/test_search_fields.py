"""Field-aware ranking, context, time cues, neighbour smoothing and the relevance floor, on small
palaces with a real LanceDB index (hash embedder), plus property tests of the pure parts."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from palacehelpers import MakePalace, note_text

from curator.model.palace import Palace
from curator.search.fields import (
    K1,
    B,
    FieldTerms,
    bm25f,
    bm25f_each,
    features,
    idf,
    stored_stems,
)
from curator.search.filters import Filter
from curator.search.fuse import scaled
from curator.search.ranking import NoteText, Tuning, threads
from curator.search.searcher import Searcher
from curator.search.temporal import time_cue
from curator.search.text import STOPWORDS, WORD, phrasings, starting, stems
from curator.search.words import Corpus, key_words, note_fields

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


def searcher_of(make_palace: MakePalace, **notes: str) -> Searcher:
    files = {**fillers(), **{f"notes/{slug}.md": text for slug, text in notes.items()}}
    return Searcher(Palace.open(make_palace(files, toml=HASH_TOML)))


def first(s: Searcher, query: str, **tuning: object) -> str:
    """The path of the best hit with the shipped tuning changed by `tuning`."""
    s.tuning = replace(Tuning(), **tuning)  # type: ignore[arg-type]
    return paths(s, query)[0]


def paths(searcher: Searcher, query: str, **kwargs: object) -> list[str]:
    return [h.path for h in searcher.search(query, **kwargs)]  # type: ignore[arg-type]


# (note a, note b, query, the tuning change under which b leads instead of a)
DECIDED_BY = {
    "a word in the name outranks it in a body": (
        n("Ledger rotation", "Runs on Sundays after the backup finished well."),
        n("Sunday jobs", "The ledger job runs on Sundays after the backup."),
        "what about the ledger on sundays",
        {"fields": (0.0, 0.0, 0.0, 1.0, 0.0)},  # the name not counted
    ),
    "a question asking when ranks the note that says when": (
        n("Caroline", "Caroline went to a pottery class yesterday."),
        n("Caroline", "Caroline loves her pottery class, the pottery class."),
        "When did Caroline go to the pottery class?",
        {"time": 0.0},
    ),
}


@pytest.mark.parametrize("case", DECIDED_BY)
def test_the_technique_decides_the_order(make_palace: MakePalace, case: str) -> None:
    a, b, query, without = DECIDED_BY[case]
    s = searcher_of(make_palace, a=a, b=b)
    assert first(s, query) == "notes/a.md"
    assert first(s, query, **without) == "notes/b.md"


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


def test_a_named_period_ranks_the_notes_dated_in_it(make_palace: MakePalace) -> None:
    s = searcher_of(
        make_palace,
        a=n("Trip", "The trip to the lake was lovely.", created="2023-03-02"),
        b=n("Trip", "The trip to the lake was lovely.", created="2023-07-09"),
    )
    assert first(s, "the trip to the lake in July 2023") == "notes/b.md"
    assert first(s, "the trip to the lake in March 2023") == "notes/a.md"


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


def test_a_word_meets_its_other_forms(make_palace: MakePalace) -> None:
    """Stems are Snowball's: 'family' meets 'families', 'dance' 'dancing' (the crude
    suffix-stripping before kept 'fami'/'famil' and 'dance'/'danc' apart), in the index's
    ranking and in the palace-only one the hooks use."""
    assert stems("family dance adopt") == stems("families dancing adoption")
    s = searcher_of(
        make_palace,
        a=n("Weekend", "Our family went dancing at the studio."),
        b=n("Opening", "The studio opened near the old studio."),
    )
    for searcher in (s, Searcher.over_palace(s.palace)):
        assert paths(searcher, "families dance studio")[0] == "notes/a.md"


def test_scores_stay_within_zero_and_one(make_palace: MakePalace) -> None:
    files = fillers()
    files["notes/a.md"] = n("Filler words", "Filler words, filler words.", context="Filler: words")
    s = Searcher(Palace.open(make_palace(files, toml=HASH_TOML)))
    for query in ("filler", "filler words", "what are the filler words about?", "fil"):
        assert all(0.0 <= h.score <= 1.0 for h in s.search(query)), query


@given(st.lists(st.floats(-1e6, 1e6), max_size=30))
def test_scaling_keeps_the_order_within_zero_and_one(values: list[float]) -> None:
    out = scaled(np.asarray(values))
    if values and max(values) > 0:
        assert max(out) == 1.0
    assert len(out) == len(values)
    assert all(0.0 <= v <= 1.0 for v in out)
    order = np.argsort(values, kind="stable")
    assert all(out[i] <= out[j] for i, j in itertools.pairwise(order))


@given(st.text(max_size=200), st.text(max_size=40), st.text(max_size=200))
def test_time_cues_of_any_text_never_raise(query: str, created: str, text: str) -> None:
    cue = time_cue(query)
    if cue is not None:
        assert cue.match(created, text) in (0.0, 1.0)
    assert all(s and s == s.lower() for s in stems(query))


def thread_of(turns: list[str], window: int = 1) -> list[NoteText]:
    """Notes the way capture writes a conversation: each turn with `window` turns on each side
    as its context, one a line."""
    notes = []
    for i, turn in enumerate(turns):
        around = turns[max(0, i - window) : i] + turns[i + 1 : i + 1 + window]
        context = "\n".join(around)
        notes.append(NoteText(("", "", "", turn, context)))
    return notes


@given(
    st.lists(
        st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30).map(
            lambda t: f"turn {t}"
        ),
        max_size=12,
        unique_by=lambda t: " ".join(t.split()),
    )
)
def test_a_turns_thread_is_the_turns_two_on_each_side(turns: list[str]) -> None:
    # distinct turns, none inside another: what the relation sees is exactly the thread order
    assume(
        all(
            " ".join(a.split()) not in " ".join(b.split())
            for a, b in itertools.permutations(turns, 2)
        )
        and all(len(t.splitlines()) == 1 and t == t.strip() for t in turns)
    )
    found = threads(thread_of(turns))
    for i, others in enumerate(found):
        assert others == {j for j in range(len(turns)) if j != i and abs(i - j) <= 2}


@given(st.tuples(*[st.text(max_size=40)] * 5))
def test_what_ranking_reads_of_a_note_is_read_when_asked_as_defined(
    texts: tuple[str, ...],
) -> None:
    # the body and context compared for smoothing, as defined: whitespace collapsed, and no
    # context for a note without a body; read from the text only when first asked
    reads: list[int] = []
    lazy = NoteText(lambda: reads.append(1) or texts, context=texts[4])
    if not " ".join(texts[4].split()):
        assert lazy.context == "" and lazy.context_lines == frozenset() and not reads
    body = " ".join(texts[3].split())
    context = " ".join(texts[4].split()) if body else ""
    lines = {" ".join(line.split()) for line in texts[4].splitlines()} - {""}
    for note in (lazy, NoteText(texts)):
        assert (note.body, note.context) == (body, context)
        assert note.context_lines == (lines if context else frozenset())
        assert note.terms == FieldTerms.of(texts) and note.words == list(key_words(texts))
    assert len(reads) == 1


@settings(max_examples=100)
@given(st.tuples(*[st.text(max_size=40)] * 5))
def test_the_kept_stems_are_held_as_terms_once_read(texts: tuple[str, ...]) -> None:
    stems, words = features(texts)
    note = NoteText(texts, kept_stems=stems, kept_words=words)
    assert note.terms == FieldTerms.read(stems) == FieldTerms.of(texts)
    assert note.kept_stems is None  # the text of the stems is not held twice


@given(st.lists(st.tuples(st.text(max_size=60), st.text(max_size=120)), max_size=10))
def test_threads_of_any_text_are_symmetric_and_never_hold_the_note(
    texts: list[tuple[str, str]],
) -> None:
    notes = [NoteText(("", "", "", b, c)) for b, c in texts]
    found = threads(notes)
    for i, others in enumerate(found):
        assert i not in others
        assert all(i in found[j] for j in others)


def test_a_note_takes_a_share_of_the_turn_two_away(make_palace: MakePalace) -> None:
    files = fillers()
    turns = [
        "Anna: Did you ever try the orchid greenhouse downtown?",
        "Ben: Which one, the one by the river?",
        "Anna: Yes, that one.",
        "Ben: It was warm.",
    ]
    for i, turn in enumerate(turns):
        around = "\n".join(turns[max(0, i - 1) : i] + turns[i + 1 : i + 2])
        speaker, text = turn.split(": ", 1)
        files[f"notes/t{i}.md"] = n(speaker, text, context=around)
    files["notes/other.md"] = n("Anna", "Yes, that one.", context="Ben: Did you sleep well?")
    s = Searcher(Palace.open(make_palace(files, toml=HASH_TOML)))
    s.tuning = replace(Tuning(), fields=(*Tuning().fields[:4], 0.0), vector=0.0)  # type: ignore[misc]
    got = paths(s, "orchid greenhouse, that one")
    # t2 is two turns from the question (t0): they share the line of t1 in their contexts
    assert got.index("notes/t2.md") < got.index("notes/other.md")


@given(st.lists(st.text(max_size=60), max_size=4))
def test_stems_are_the_words_stems_in_order_whatever_was_seen_before(texts: list[str]) -> None:
    """Each text's stems, read after the texts before it (words already seen or new), are its
    words' own: lower-cased, stopwords and one-letter words left out, repeats kept."""
    for text in texts:
        one_by_one = [s for w in WORD.findall(text.lower()) for s in stems(w)]
        assert stems(text) == one_by_one
        assert all(s and s == s.lower() for s in one_by_one)


@given(
    st.lists(st.text(max_size=6), max_size=6),
    st.text(max_size=80),
)
def test_starting_is_the_prefixes_some_word_begins_with(prefixes: list[str], text: str) -> None:
    words = [w.lower() for w in WORD.findall(text)]
    assert starting(prefixes, words) == [p for p in prefixes if any(w.startswith(p) for w in words)]


@given(st.lists(st.text(max_size=80), min_size=5, max_size=5))
def test_what_a_row_keeps_reads_back_as_the_notes_own_terms(texts: list[str]) -> None:
    """A note's stems as its index row keeps them read back as the counts and lengths of
    each field's own stems, and its kept words are its key words: its name's, description's
    and body's distinct words, less stopwords and one-letter words but digits."""
    stems_kept, words_kept = features(texts)
    assert stems_kept == stored_stems(texts)
    found = [stems(t) for t in texts]
    read = FieldTerms.read(stems_kept)
    assert read.lengths == tuple(len(f) for f in found)
    for term in {"", "queue", *itertools.chain(*found)}:
        assert read.counts(term) == [Counter(f)[term] for f in found]
    assert FieldTerms.of(texts) == read
    plain = {w for i in (0, 1, 3) for w in WORD.findall(texts[i].lower())} - STOPWORDS
    assert words_kept.split() == sorted(w for w in plain if len(w) >= 2 or w.isdigit())


def kept_palace(make_palace: MakePalace) -> Path:
    files = {
        **fillers(),
        "notes/retry.md": n("Retry queue depth", "The retry queue holds five jobs.\n\nKids, kids."),
        "notes/pool.md": n("Pool size", "Forty connections a database.", context="Ask: pool?"),
        "notes/tagged.md": note_text(
            "Tagged", type="project", body="Deploys retry twice.\n", extra="tags: [ops, retry]\n"
        ),
        "inbox/draft.md": note_text("Draft", type="project", body="Retry the queue.\n"),
    }
    return make_palace(files, toml=HASH_TOML)


def test_the_index_keeps_what_ranking_reads_of_each_note(make_palace: MakePalace) -> None:
    """Each row of the index holds its note's stems per field and key words, as ranking
    would work them out from the note (its draft banner left out), so a query finds them
    with its candidates instead of reading every candidate's text again."""
    palace = Palace.open(kept_palace(make_palace))
    s = Searcher(palace)
    rows = s.store.all_rows(columns=("path", "stems", "words"))
    assert len(rows) == len(palace.all()) == 16
    for row in rows:
        texts = note_fields(palace.by_rel[row["path"]])
        assert (row["stems"], row["words"]) == features(texts)
        assert row["words"].split() == list(key_words(texts))


def test_a_question_reads_no_candidates_text_its_row_keeps(
    make_palace: MakePalace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ranking a question's candidates reads their terms and words from their rows, taken
    once per note: no candidate's text is worked out again, a candidate read before is not
    taken again, and the answer is the one the text gives."""
    import curator.search.ranking as ranking
    from curator.search.store import IndexStore

    palace = Palace.open(kept_palace(make_palace))
    question = "how deep is the retry queue for the jobs?"
    expected = [h.path for h in Searcher(palace).search(question)]
    s = Searcher(palace, sync=False)
    read: list[object] = []
    taken: list[list[int]] = []
    real_of, real_words = FieldTerms.of.__func__, ranking.key_words  # type: ignore[attr-defined]
    real_take = IndexStore.take

    def of(cls: type[FieldTerms], texts: tuple[str, ...]) -> FieldTerms:
        read.append(texts)
        return real_of(cls, texts)  # type: ignore[no-any-return]

    def words(texts: tuple[str, ...]) -> tuple[str, ...]:
        read.append(texts)
        return real_words(texts)

    def take(store: IndexStore, ids: list[int], columns: list[str]) -> list[dict[str, object]]:
        taken.append(list(ids))
        return real_take(store, ids, columns)

    monkeypatch.setattr(FieldTerms, "of", classmethod(of))
    monkeypatch.setattr(ranking, "key_words", words)
    monkeypatch.setattr(IndexStore, "take", take)
    hits = s.search(question)
    assert hits and hits[0].path == "notes/retry.md"
    assert read == []
    assert len(taken) == 1 and len(taken[0]) > 5
    again = s.search(question)
    assert read == [] and taken[1:] == [[]]
    monkeypatch.undo()
    assert [h.path for h in hits] == [h.path for h in again] == expected


def test_a_settled_palace_is_ranked_without_reading_its_notes_files(
    make_palace: MakePalace,
) -> None:
    """A palace that let go of its notes' text (a warm server's) is ranked from what the
    index's rows keep and the notes' headers: the files read again are those of the hits
    shown (their snippets), never every candidate's."""
    files = {
        **fillers(),
        "notes/retry.md": n("Retry queue depth", "The retry queue holds five jobs."),
        "notes/jobs.md": n("Jobs", "Each retry waits for the queue to drain."),
        "notes/tagged.md": note_text(
            "Tagged", type="project", body="Deploys retry twice.\n", extra="tags: [ops, retry]\n"
        ),
    }
    root = make_palace(files, toml=HASH_TOML)
    Searcher(Palace.open(root)).search("retry")  # the index and its word counts, kept
    palace = Palace.open(root)
    palace.let_go_of_texts()
    s = Searcher(palace, sync=False)
    hits = s.search("retry queue", limit=1)
    assert [h.path for h in hits] == ["notes/retry.md"] and "queue" in hits[0].snippet
    texts = palace.notes[0]._texts
    assert {n.rel for n in palace.notes if n.sha in texts._kept} == {"notes/retry.md"}


def test_a_row_older_than_its_note_is_ranked_from_the_notes_text(
    make_palace: MakePalace,
) -> None:
    """When a note's file changed after the index's last sync, its row's terms and words
    are not the note's: ranking reads them from the note, and keeps the rows' own for the
    notes that did not change."""
    root = kept_palace(make_palace)
    Searcher(Palace.open(root))
    changed = n("Retry queue depth", "The retry queue now holds ninety jobs on Fridays.")
    (root / "notes/retry.md").write_text(changed, encoding="utf-8")
    palace = Palace.open(root)
    s = Searcher(palace, sync=False)  # the index still holds the file as it was
    rows, _vec = s.found(phrasings("retry queue"), Filter.of(palace), 30)
    by_path = {r["path"]: r for r in rows}
    assert {"notes/retry.md", "notes/tagged.md"} <= set(by_path)
    assert "stems" not in by_path["notes/retry.md"] and "words" not in by_path["notes/retry.md"]
    kept = by_path["notes/tagged.md"]
    assert (kept["stems"], kept["words"]) == features(note_fields(palace.by_rel["notes/tagged.md"]))
    note = palace.by_rel["notes/retry.md"]
    assert s._note_text(note.rel, by_path[note.rel]).terms == FieldTerms.of(note_fields(note))
    assert set(s._note_words(note.rel, by_path[note.rel])) >= {"ninety", "fridays"}


def test_an_index_of_the_layout_before_is_rebuilt_with_what_ranking_reads(
    make_palace: MakePalace,
) -> None:
    """An index written before its rows kept ranking's terms and words (layout 3) is rebuilt
    at the next sync (an older layout, not damage: nothing is moved aside as corrupt), and
    its rows then keep them."""
    import lancedb

    root = kept_palace(make_palace)
    index = Searcher(Palace.open(root)).store.index_dir
    state = json.loads((index / "state.json").read_text(encoding="utf-8"))
    table = lancedb.connect(str(index)).open_table(state["table"]).to_arrow()
    old = table.drop_columns(["stems", "words"])
    lancedb.connect(str(index)).create_table("docs_layout3", data=old)
    state.update(table="docs_layout3", schema_version=3)
    (index / "state.json").write_text(json.dumps(state), encoding="utf-8")
    palace = Palace.open(root)
    s = Searcher(palace)
    assert s.sync_stats is not None and s.sync_stats.rebuilt
    assert s.recovered == [] and not list(index.parent.glob("index.corrupt-*"))
    rows = s.store.all_rows(columns=("path", "stems", "words"))
    assert len(rows) == 16
    for row in rows:
        assert (row["stems"], row["words"]) == features(note_fields(palace.by_rel[row["path"]]))
    assert s.search("how deep is the retry queue?")[0].path == "notes/retry.md"


def plain_bm25f(
    terms: list[str], found: list[list[str]], corpus: Corpus, weights: tuple[float, ...]
) -> float:
    """BM25F as it reads: a counter of each field's stems."""
    counts = [Counter(f) for f in found]
    norms = [
        w / (1.0 - B + B * len(f) / avg) if avg > 0 else w
        for w, f, avg in zip(weights, found, corpus.avg_len, strict=True)
    ]
    score = 0.0
    for term in terms:
        tf = sum(norm * c[term] for norm, c in zip(norms, counts, strict=True) if term in c)
        if tf:
            score += idf(corpus, term) * tf / (K1 + tf)
    return score


# stored lines as a row could hold them, hostile ones too: runs of spaces, tabs, other
# whitespace, unprintable characters, a stem that is a prefix or suffix of another
STEM = st.text(st.sampled_from("ab\u00e9\u200b\x00-"), min_size=1, max_size=3)
LINE = st.lists(
    st.one_of(STEM, st.sampled_from([" ", "  ", "\t", "\x85", "\u3000", "\xa0", "\x1c"])),
    max_size=12,
).map("".join)


@given(
    st.lists(LINE, min_size=5, max_size=5),
    st.lists(st.one_of(STEM, st.sampled_from(["", " ", "a b", "a\tb", "\x85"])), max_size=4),
    st.lists(st.floats(0.0, 4.0), min_size=5, max_size=5),
)
def test_bm25f_of_a_stored_line_is_bm25f_of_its_counted_stems(
    lines: list[str], terms: list[str], avg: list[float]
) -> None:
    """Read from a stored line (`FieldTerms.read`'s string counts), every field's counts,
    lengths and the BM25F score are those of its whitespace-separated stems counted one by
    one, for any query term (empty, or holding whitespace: counted nowhere)."""
    found = [line.split() for line in lines]
    read = FieldTerms.read("\n".join(lines))
    assert read.lengths == tuple(len(f) for f in found)
    for term in {*terms, *itertools.chain(*found)}:
        assert read.counts(term) == [Counter(f)[term] for f in found]
    corpus = Corpus({}, 7, {"a": 3, "b": 9}, tuple(avg))
    weights = (4.0, 1.5, 1.5, 1.0, 0.5)
    assert bm25f(terms, read, corpus, weights) == plain_bm25f(terms, found, corpus, weights)


@given(
    st.lists(st.lists(LINE, min_size=5, max_size=5), max_size=6),
    st.lists(st.one_of(STEM, st.sampled_from(["", " ", "a b", "\x85"])), max_size=4, unique=True),
    st.lists(st.floats(0.0, 4.0), min_size=5, max_size=5),
    st.lists(st.floats(0.0, 8.0), min_size=5, max_size=5),
)
def test_bm25f_of_every_candidate_at_once_is_bm25f_of_each(
    notes: list[list[str]], terms: list[str], avg: list[float], weights: list[float]
) -> None:
    """`bm25f_each` (every candidate's score in one pass, what ranking calls) gives each
    note's BM25F as it reads, to the last bit."""
    read = [FieldTerms.read("\n".join(lines)) for lines in notes]
    corpus = Corpus({}, 7, {"a": 3, "b": 9}, tuple(avg))
    want = [
        plain_bm25f(terms, [ln.split() for ln in lines], corpus, tuple(weights)) for lines in notes
    ]
    assert bm25f_each(terms, read, corpus, weights).tolist() == want


@given(st.from_regex(r"\A[0-9\u0660-\u0669\u00b2]{1,12}\Z"))
def test_a_number_is_its_snowball_stem(number: str) -> None:
    """A number's stem, taken as itself without the stemmer, is Snowball's."""
    from curator.search.text import stem

    assert stems(number) == [stem(number)]
