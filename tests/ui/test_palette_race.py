"""The palette while its search still runs: a batch of hits arriving after the person moved
the highlight leaves the highlight on the command they see, and Enter runs that one; typing
"open" finds "Open note…"; each action shows its key."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandList, CommandPalette, Hit, Hits, Provider
from uihelpers import TODAY, settle, wait_until

from curator.ui.app import CuratorApp

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

RAN: list[str] = []
LATE = asyncio.Event()


class SlowProvider(Provider):
    """Two hits at once, then slow ones, a better one once the test sets LATE."""

    async def search(self, query: str) -> Hits:
        if not query.startswith("zz"):
            return
        for name, score in (("zz alpha", 0.5), ("zz beta", 0.4)):
            yield Hit(score, name, lambda n=name: RAN.append(n), text=name)
        filler = 0
        while not LATE.is_set():  # a slow search: the palette shows what it has meanwhile
            filler += 1
            yield Hit(0.1, f"zz slow {filler}", lambda: RAN.append("slow"), text=f"slow {filler}")
            await asyncio.sleep(0.05)
        yield Hit(0.9, "zz best", lambda: RAN.append("zz best"), text="zz best")


class SlowApp(CuratorApp):
    COMMANDS = CuratorApp.COMMANDS | {SlowProvider}


async def open_palette(pilot: Any) -> Any:
    app = pilot.app
    await settle(pilot)
    await pilot.press("ctrl+p")
    await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
    return app.screen


def highlighted(palette: Any) -> str | None:
    option = palette.query_one(CommandList).highlighted_option
    return None if option is None else str(option.hit.text)


async def test_enter_runs_the_highlighted_command_after_a_late_batch(sample_palace: Path) -> None:
    RAN.clear()
    LATE.clear()
    app = SlowApp(sample_palace, today=TODAY, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        palette = await open_palette(pilot)
        await pilot.press(*"zz")
        await wait_until(pilot, lambda: highlighted(palette) == "zz alpha")
        await pilot.press("down")
        await wait_until(pilot, lambda: highlighted(palette) == "zz beta")
        LATE.set()  # the better hit arrives and the list is sorted again
        commands = palette.query_one(CommandList)
        await wait_until(pilot, lambda: str(commands.get_option_at_index(0).hit.text) == "zz best")
        assert highlighted(palette) == "zz beta"  # still the row the person chose
        await pilot.press("enter")
        await wait_until(pilot, lambda: RAN != [])
        assert RAN == ["zz beta"]


async def test_open_finds_open_note_and_actions_show_their_keys(sample_palace: Path) -> None:
    app = CuratorApp(sample_palace, today=TODAY, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        palette = await open_palette(pilot)
        commands = palette.query_one(CommandList)
        await pilot.press(*"open")
        await wait_until(pilot, lambda: commands.option_count > 0)
        texts = [
            str(commands.get_option_at_index(i).hit.text) for i in range(commands.option_count)
        ]
        assert "Open note…" in texts
        await pilot.press(*["backspace"] * 4, *"promote")
        await wait_until(
            pilot,
            lambda: any(
                str(commands.get_option_at_index(i).hit.text) == "Promote"
                for i in range(commands.option_count)
            ),
        )
        option = next(
            commands.get_option_at_index(i)
            for i in range(commands.option_count)
            if str(commands.get_option_at_index(i).hit.text) == "Promote"
        )
        assert str(option.hit.help).startswith("p · ")
