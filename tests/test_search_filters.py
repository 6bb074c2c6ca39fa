"""The one Filter, two renderings: its SQL prefilter (run by a real LanceDB table) and its
per-row check select the same rows, on generated palaces and generated filters (hostile quotes,
empty and missing values, sensitive scopes)."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from curator.cli.filter_flags import add_filter_flags, filter_from_args
from curator.search.arrow import by_path, to_arrow
from curator.search.docs import IndexDoc
from curator.search.embed import HashEmbedder
from curator.search.filters import Filter, SearchError, note_row
from curator.search.store import RESULT_COLUMNS, IndexStore, rows_of

WORDS = ["", "feedback", "project", "it's", "x' OR 1=1 --", "Ünïcode", "vault"]
STATUSES = ["active", "superseded", "retired", "draft", ""]
SCOPES = ["", "global", "repo", "vault", "it's"]
CONFIDENCES = st.one_of(
    st.none(), st.sampled_from([0.0, 0.5, 0.7, 1.0]), st.floats(0, 1, allow_nan=False)
)

docs_strategy = st.lists(
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(WORDS),
            "scope": st.sampled_from(SCOPES),
            "status": st.sampled_from(STATUSES),
            "confidence": CONFIDENCES,
            "stale": st.booleans(),
            "sensitive": st.booleans(),
            "kind": st.sampled_from(["note", "draft"]),
        }
    ),
    min_size=1,
    max_size=25,
)


def subset(values: list[str]) -> st.SearchStrategy[tuple[str, ...]]:
    return st.lists(st.sampled_from(values), max_size=3, unique=True).map(tuple)


filters_strategy = st.builds(
    Filter,
    types=subset(WORDS[1:]),
    scopes=subset(SCOPES[1:]),
    statuses=subset(STATUSES[:-1]),
    stale=st.one_of(st.none(), st.booleans()),
    min_confidence=st.one_of(st.none(), CONFIDENCES),
    drafts=st.booleans(),
    include_sensitive=st.booleans(),
    exclude_statuses=subset(["superseded", "retired"]),
    hidden_scopes=subset(SCOPES[1:]),
)


def make_docs(specs: list[dict[str, object]]) -> list[IndexDoc]:
    return [
        IndexDoc(
            path=f"{'inbox' if s['kind'] == 'draft' else 'notes'}/n{i:03d}.md",
            slug=f"n{i:03d}",
            name=f"note {i}",
            body=f"body {i}",
            **s,
        )  # type: ignore[arg-type]
        for i, s in enumerate(specs)
    ]


@settings(deadline=None)
@given(specs=docs_strategy, filters=st.lists(filters_strategy, min_size=1, max_size=6))
def test_row_check_agrees_on_docs_and_table_rows(
    specs: list[dict[str, object]], filters: list[Filter]
) -> None:
    docs = make_docs(specs)
    dim = 8
    table = by_path(to_arrow(docs, np.zeros((len(docs), dim), np.float32), dim))
    rows = rows_of(table.select(list(RESULT_COLUMNS)))
    for flt in filters:
        wanted = {d.path for d in docs if flt.ok(d)}
        assert {r["path"] for r in rows if flt.ok(r)} == wanted


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(specs=docs_strategy, filters=st.lists(filters_strategy, min_size=1, max_size=8))
def test_sql_and_row_check_agree_on_a_real_table(
    specs: list[dict[str, object]], filters: list[Filter]
) -> None:
    docs = make_docs(specs)
    with tempfile.TemporaryDirectory() as tmp:
        store = IndexStore.open(Path(tmp) / "index", HashEmbedder(16))
        store.writer.sync(docs, None)
        for flt in filters:
            wanted = {d.path for d in docs if flt.ok(d)}
            assert {
                r["path"] for r in store.all_rows(columns=RESULT_COLUMNS, where=flt.sql())
            } == wanted, flt.sql()
            found = store.vector(np.ones(16, np.float32), limit=len(docs), where=flt.sql())
            assert {r["path"] for r in found} == wanted, flt.sql()


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("stale", "false"),
        ("include_sensitive", "false"),
        ("include_sensitive", 1),
        ("drafts", "yes"),
        ("types", 3),
        ("types", ["feedback", None]),
        ("scope", {"a": 1}),
        ("min_confidence", "0.5"),
        ("min_confidence", float("inf")),
        ("min_confidence", -0.1),
    ],
)
def test_a_wrong_type_is_an_error_naming_the_field(field: str, value: object) -> None:
    with pytest.raises(SearchError, match=field):
        Filter.of(None, **{field: value})


def test_flags_and_note_rows_give_the_same_filter(sample_palace: Path) -> None:
    from curator.model.palace import Palace

    parser = argparse.ArgumentParser()
    add_filter_flags(parser)
    args = parser.parse_args(
        ["--type", "feedback", "--type", "project", "--status", "active", "--min-confidence", "0.6"]
    )
    palace = Palace.open(sample_palace)
    flt = filter_from_args(args, palace)
    assert flt.types == ("feedback", "project") and flt.statuses == ("active",)
    chosen = [n for n in palace.all() if flt.ok(note_row(palace, n))]
    assert chosen and all(n.type in flt.types and n.kind == "note" for n in chosen)
    assert all(palace.confidence(n) >= 0.6 for n in chosen)
    with pytest.raises(SystemExit):
        parser.parse_args(["--min-confidence", "nan"])


def test_a_notes_fields_read_as_a_filter_reads_them_are_its_index_rows(
    sample_palace: Path,
) -> None:
    """`NoteFields` (what a filter reads of a loaded note, each field worked out when read)
    passes and fails every filter as the note's index row does, and lists the fields
    `note_row` holds, for every note and draft of a real palace (a sensitive scope and a
    sensitive note among them) and generated filters."""
    from curator.model.palace import Palace
    from curator.search.filters import NoteFields
    from curator.search.index import doc_row

    palace = Palace.open(sample_palace)
    notes = [n for n in palace.all() if n.ok]
    rows = {n.rel: doc_row(palace, n) for n in notes}
    assert any(r["sensitive"] for r in rows.values()) and any(n.kind == "draft" for n in notes)
    config = palace.config
    row_filters = st.builds(
        lambda **values: Filter.of(palace, **values),
        types=st.lists(st.sampled_from(sorted(config.types)), max_size=2),
        scope=st.lists(st.sampled_from(sorted(config.scopes)), max_size=2),
        stale=st.one_of(st.none(), st.booleans()),
        min_confidence=st.one_of(st.none(), st.floats(0, 1)),
        drafts=st.booleans(),
        include_sensitive=st.booleans(),
        tags=st.lists(st.sampled_from(["git", "Deploy", "x"]), max_size=2),
        created_after=st.one_of(st.none(), st.just("2025-01-01")),
    )

    @settings(deadline=None)
    @given(st.lists(st.one_of(filters_strategy, row_filters), min_size=1, max_size=4))
    def check(filters: list[Filter]) -> None:
        for note in notes:
            fields = NoteFields(palace, note)
            for flt in filters:
                assert flt.ok(fields) == flt.ok(rows[note.rel]), (note.rel, flt)

    check()
    for note in notes:
        assert dict(NoteFields(palace, note)) == note_row(palace, note)
        assert set(note_row(palace, note)) <= {*rows[note.rel], "tag_keys"}


_HEADER_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=12),
    st.lists(st.one_of(st.text(max_size=8), st.integers(), st.floats(allow_nan=False)), max_size=3),
)  # fmt: skip


_HEADER_KEYS = ["tags", "confidence", "stale", "status", "created", "sensitive", "context",
                "scope", "name", "type", "reviewed"]  # fmt: skip


def test_a_row_made_from_a_note_is_the_doc_the_index_stores(sample_palace: Path) -> None:
    """`doc_row` (made from the note's header, its body added) gives the columns of
    `doc_of`'s `IndexDoc` (what the index writes), for every note of a real palace and notes
    whose header holds any value, and without `body` the same less the body."""
    from curator.model.note import parse_note
    from curator.model.palace import Palace
    from curator.search.index import doc_of, doc_row

    palace = Palace.open(sample_palace)

    def same(note: object) -> None:
        doc = doc_of(note, palace.config)  # type: ignore[arg-type]
        want = {k: getattr(doc, k) for k in RESULT_COLUMNS}
        assert doc_row(palace, note) == want  # type: ignore[arg-type]
        want.pop("body")
        assert doc_row(palace, note, body=False) == want  # type: ignore[arg-type]

    for note in palace.all():
        if note.ok:
            same(note)

    @settings(deadline=None)
    @given(
        st.dictionaries(
            st.sampled_from(_HEADER_KEYS),
            _HEADER_VALUES,
        ),
        st.text(max_size=40),
    )
    def check(header: dict[str, object], body: str) -> None:
        import yaml

        text = f"---\n{yaml.safe_dump(header)}---\n{body}"
        note = parse_note("notes/a/n.md", text.encode("utf-8", "surrogatepass"))
        if note.ok:
            same(note)

    check()
