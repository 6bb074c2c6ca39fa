"""Empty states say what to do (issue 15): inbox zero, a palace with no notes (Rooms), nothing
due (Audit), no curator actions yet (History), no results (Search), no tasks; each read off
the screen as drawn at 80×24 and 120×40, so a message cut off or hidden fails."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input
from uihelpers import make_app, settle, shown_in, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

# mode -> (the widget, the words it shows when there is nothing there)
EMPTY = {
    "inbox": ("#diff-left", "Inbox zero: nothing to review."),
    "rooms": ("#note-head", "This palace has no notes yet: promote a draft in the Inbox (1)."),
    "audit": ("#audit-detail", "Nothing is stale or due"),
    "history": (
        "#history-detail",
        "No curator actions yet: promote or reject a draft in the Inbox (1).",
    ),
    "tasks": ("#tasks-table", "No tasks yet"),
}


@pytest.fixture
def empty_palace(make_palace: Any) -> Path:
    return make_palace({"notes/.keep": ""})


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_empty_screens_say_what_to_do(empty_palace: Path, size: tuple[int, int]) -> None:
    """Each screen of EMPTY in turn, in one app started at `size` (each shown for the first
    time, as when it is the first one opened)."""
    app = make_app(empty_palace, watch=False)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for mode in EMPTY:
            await _says_what_to_do(pilot, mode)


async def _says_what_to_do(pilot: Any, mode: str) -> None:
    app = pilot.app
    app.action_show_screen(mode)
    await settle(pilot)
    await wait_until(pilot, lambda: app.current_mode == mode)
    selector, words = EMPTY[mode]
    try:
        await wait_until(pilot, lambda: words in shown_in(app, selector))
    except AssertionError:
        raise AssertionError(f"{mode} at {app.size} does not show {words!r}") from None


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_search_says_what_to_do_with_no_query_and_no_results(
    empty_palace: Path, size: tuple[int, int]
) -> None:
    app = make_app(empty_palace, watch=False)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        app.action_show_screen("search")
        await settle(pilot)
        hint = "Type to search every note; Down goes to the results, Escape leaves."
        await wait_until(pilot, lambda: hint in shown_in(app, "#search-results"))
        await pilot.press(*"stripe")
        none = "No results: try fewer words, or clear the filters (ctrl+t)."
        await wait_until(pilot, lambda: none in shown_in(app, "#search-results"))


async def test_a_confidence_out_of_range_is_marked_in_place(sample_palace: Path) -> None:
    """The min-confidence filter takes 0 to 1: "2" marks the field, is left out of the query
    (the results stay) and raises no error toast."""
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.action_show_screen("search")
        await settle(pilot)
        screen = app.screen
        await pilot.press(*"stripe webhooks")
        await wait_until(pilot, lambda: len(screen.results) > 0)  # type: ignore[attr-defined]
        field = screen.query_one("#search-confidence", Input)
        field.focus()
        await pilot.press("2")
        await settle(pilot)
        assert field.has_class("-invalid")
        assert len(screen.results) > 0  # type: ignore[attr-defined]
        assert not [m for m in app.message_log.messages if m.severity == "error"]
        await pilot.press("backspace", *"0.9")
        await settle(pilot)
        assert not field.has_class("-invalid")
        palace = app.palace
        assert palace is not None
        found = [palace.by_rel[hit.path] for hit in screen.results]  # type: ignore[attr-defined]
        assert found and all(palace.confidence(note) >= 0.9 for note in found)
