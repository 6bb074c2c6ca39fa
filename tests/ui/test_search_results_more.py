"""Search results name each note's folder and show its badges (stale, superseded): a vault
has thirty notes of one name; more than 30 results on demand (the last row); the stale
filter's state reads in words, not by the mark's colour alone."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Checkbox, Input, OptionList
from uihelpers import make_app, settle, show_screen, wait_until

from curator.ui.screens.search import LIMIT, MORE, SearchScreen

pytestmark = [pytest.mark.slow, pytest.mark.anyio]


def note(name: str, extra: str = "") -> str:
    return (
        f"---\nname: {name}\ndescription: Release notes for {name}.\ntype: project\n"
        f"created: 2026-11-01\n{extra}---\nThe zanzibar release notes.\n"
    )


@pytest.fixture
def palace(make_palace: Any) -> Any:
    files = {f"notes/project/r{i:02d}.md": note(f"Release {i:02d}") for i in range(40)}
    files["notes/alpha/v1-1-5.md"] = note(
        "v1.1.5", "stale:\n  reason: moved\n  since: 2026-11-20\n"
    )
    files["notes/beta/v1-1-5.md"] = note("v1.1.5", "status: superseded\n")
    return make_palace(files)


def result_text(screen: SearchScreen) -> list[str]:
    options = screen.query_one("#search-results", OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def test_badges_folders_more_and_the_stale_label(palace: Any) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        search = await show_screen(pilot, "4", SearchScreen)
        await wait_until(pilot, lambda: app.session.index.ready, timeout=120)
        query = search.query_one("#search-query", Input)
        query.value = "v1.1.5"
        await wait_until(pilot, lambda: len(search.results) >= 2, timeout=60)
        shown = [t for t in result_text(search) if t.split()[1:2] == ["v1.1.5"]]
        alpha = next(t for t in shown if "notes/alpha/" in t)
        beta = next(t for t in shown if "notes/beta/" in t)
        assert " stale " in alpha and " superseded " not in alpha
        assert " superseded " in beta and " stale " not in beta

        query.value = "zanzibar release"
        await wait_until(pilot, lambda: len(search.results) == LIMIT, timeout=60)
        options = search.query_one("#search-results", OptionList)
        last = options.get_option_at_index(options.option_count - 1)
        assert last.id == MORE and "more results" in str(last.prompt)
        # a note with no badge: its type and its folder stay apart
        plain_rows = [t for t in result_text(search) if t.split()[1:2] == ["Release"]]
        assert plain_rows and all("project  notes/project/" in t for t in plain_rows), plain_rows
        options.focus()
        options.highlighted = options.option_count - 1
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(search.results) > LIMIT, timeout=60)
        assert len(search.results) == 42
        assert options.get_option_at_index(options.option_count - 1).id != MORE

        stale = search.query_one("#search-stale", Checkbox)
        assert "stale: off" in str(stale.label)
        stale.value = True
        await wait_until(pilot, lambda: "stale: on" in str(stale.label))
        await settle(pilot)
