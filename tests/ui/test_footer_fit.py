"""The key footer fits 80 columns (issue 21): whole keys only, the screen's most used first,
`?` (which lists the rest) always; `A Run audit` on Audit, `g` and `[ ]` in the Inbox where they
act. The footer text is checked at 80 columns for every screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets._footer import FooterKey
from uihelpers import make_app, settle

from curator.ui.widgets.footer import KeyFooter

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

#: at 80 columns, the footer of each screen as drawn (the palette key at the right, unlabelled)
FOOTERS = {
    "inbox": "p Promote x Reject e Edit m Merge g Tag [ ] Cand. s Supersede ? Keys",
    "rooms": "⏎ Open e Edit r Reviewed s Supersede t Retire space Mark ⌫ Back ? Keys",
    "audit": "v Re-verify A Run audit e Edit r Reviewed s Supersede t Retire ? Keys",
}
SCREENS = ("inbox", "rooms", "audit", "search", "history", "tasks")


def footer_text(app: object) -> str:
    footer = app.screen.query_one(KeyFooter)  # type: ignore[attr-defined]
    keys = [k for k in footer.query(FooterKey) if "-command-palette" not in k.classes]
    return " ".join(f"{k.key_display} {k.description}".strip() for k in keys)


@pytest.mark.parametrize("width", [80, 100, 120])
async def test_every_footer_shows_whole_keys_and_the_help(sample_palace: Path, width: int) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(width, 24)) as pilot:
        await settle(pilot)
        for mode in SCREENS:
            app.action_show_screen(mode)
            await settle(pilot)
            await pilot.pause()
            footer = app.screen.query_one(KeyFooter)
            keys = list(footer.query(FooterKey))
            palette = [k for k in keys if "-command-palette" in k.classes]
            assert len(palette) == 1, mode
            for key in keys:
                if key in palette:
                    continue
                where = f"{mode} at {width}: {key.key_display} {key.description}"
                assert key.region.right <= palette[0].region.x, where  # whole, not under it
                assert key.region.width >= len(key.key_display) + len(key.description), where
            # `?`, or F1 where `?` is a character (a text field has the focus)
            assert any(k.key_display in ("?", "f1") for k in keys), (mode, footer_text(app))
            if width == 80 and mode in FOOTERS:
                assert footer_text(app) == FOOTERS[mode]
            print(width, mode, footer_text(app))
