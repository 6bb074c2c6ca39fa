"""In Search the number keys switch screens while the query is empty; a digit after a word is
part of the query; alt+number switches from the query field either way."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Input
from uihelpers import make_app, settle, show_screen, wait_until

from curator.ui.screens.search import SearchScreen

pytestmark = [pytest.mark.slow, pytest.mark.anyio]


async def test_number_keys_in_the_query(sample_palace: Any) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        search = await show_screen(pilot, "4", SearchScreen)
        query = search.query_one("#search-query", Input)
        assert search.focused is query and query.value == ""
        await pilot.press("2")  # the query is empty: Rooms
        await wait_until(pilot, lambda: app.current_mode == "rooms")
        await pilot.press("4")
        await wait_until(pilot, lambda: app.current_mode == "search")
        await wait_until(pilot, lambda: search.focused is query)
        await pilot.press(*"v1", "2")  # typed after a word: the query
        await settle(pilot)
        assert app.current_mode == "search" and query.value == "v12"
        await pilot.press("alt+3")
        await wait_until(pilot, lambda: app.current_mode == "audit")
        assert query.value == "v12"
