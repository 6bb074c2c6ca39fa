"""The note picker's ranking (services.notes_named): names holding the query whole come first."""

from __future__ import annotations

from palacehelpers import MakePalace, note_text

from curator.model.palace import Palace
from curator.ui.services import notes_named


def test_names_containing_the_query_rank_above_fuzzy_lookalikes(make_palace: MakePalace) -> None:
    root = make_palace(
        {
            "notes/pin-the-clock-in-tests.md": note_text(
                "Pin the clock in tests, make them deterministic"
            ),
            "notes/run-make-test.md": note_text(
                "Run make test before you push, it runs lint and the whole suite"
            ),
            "notes/other.md": note_text("Unrelated note about coffee"),
        }
    )
    names = [n.name for n in notes_named(Palace.open(root), "make test")]
    assert names[0] == "Run make test before you push, it runs lint and the whole suite"
    assert "Pin the clock in tests, make them deterministic" in names[1:]
