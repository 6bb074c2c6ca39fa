"""One near-duplicate rule (`curator.model.similar.score`) behind capture's `similar` and
`curator dupes`: the same numbers on both paths, and the rule itself is sane on any text."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from curator.model.palace import Palace
from curator.model.similar import normalise, score, similar
from curator.search.searcher import Searcher

DRAFT = "inbox/2026-11-29-always-run-tests-before-finishing.md"


def test_capture_ranks_by_the_rule(sample_palace: Path) -> None:
    palace = Palace.open(sample_palace)
    name, description = "Run the tests before saying done", "make test first"
    hits = similar(sample_palace, name, description)  # from the catalog, as capture does
    assert hits and hits == similar(palace, name, description)  # and from a loaded palace
    for hit in hits:
        note = palace.by_rel[hit.path]
        assert hit.score == round(score(name, description, note.name, note.description))


@pytest.mark.slow
def test_dupes_confirms_vector_neighbours_by_the_same_rule(sample_palace: Path) -> None:
    palace = Palace.open(sample_palace)
    draft = palace.by_rel[DRAFT]
    found = Searcher(palace).dupes(DRAFT)
    assert found and found[0].path == "notes/feedback/run-make-test-before-saying-done.md"
    for cand in found:
        other = palace.by_rel[cand.path]
        rule = score(
            draft.name, draft.description, other.name, other.description, draft.body, other.body
        )
        assert cand.fuzz == round(rule / 100, 6)
        assert cand.score == pytest.approx(0.5 * cand.vector_sim + 0.5 * cand.fuzz, abs=2e-6)


texts = st.text(st.characters(codec="utf-8"), max_size=200)


@settings(deadline=None)
@given(a=st.tuples(texts, texts, texts), b=st.tuples(texts, texts, texts))
def test_the_rule_is_bounded_symmetric_and_full_for_the_same_note(
    a: tuple[str, str, str], b: tuple[str, str, str]
) -> None:
    for bodies in (False, True):
        ab = score(a[0], a[1], b[0], b[1], *((a[2], b[2]) if bodies else ()))
        ba = score(b[0], b[1], a[0], a[1], *((b[2], a[2]) if bodies else ()))
        assert 0.0 <= ab <= 100.0 and ab == ba
    if normalise(f"{a[0]} {a[1]}"):
        assert score(a[0], a[1], a[0], a[1]) == 100.0
