"""The key footer fits 80 columns (issue 21): whole keys only, the screen's most used first,
`?` (which lists the rest) always; `A Run audit` on Audit, `g` and `[ ]` in the Inbox where they
act. The footer text is checked at 80 columns for every screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from textual.widgets._footer import FooterKey
from uihelpers import make_app, settle, wait_until

from curator.ui.widgets.footer import Key, KeyFooter, fitting, key_width

pytestmark = pytest.mark.slow

#: at 80 columns, the footer of each screen as drawn (the palette key at the right, unlabelled)
FOOTERS = {
    "inbox": "p Promote x Reject e Edit m Merge g Tag G Groups f Fold [ ] Cand. ? Keys",
    "rooms": "e Edit r Reviewed s Supersede t Retire space Mark ⏎ Open ⌫ Back ? Keys",
    "audit": "v Re-verify A Run audit e Edit r Reviewed s Supersede t Retire ? Keys",
}
SCREENS = ("inbox", "rooms", "audit", "search", "history", "tasks")


def footer_text(app: object) -> str:
    footer = app.screen.query_one(KeyFooter)  # type: ignore[attr-defined]
    keys = [k for k in footer.query(FooterKey) if "-command-palette" not in k.classes]
    return " ".join(f"{k.key_display} {k.description}".strip() for k in keys)


@pytest.mark.anyio
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


_key = st.tuples(
    st.text(min_size=1, max_size=6),  # the key as shown
    st.text(max_size=14),  # its description
    st.just("x"),
    st.sampled_from(["promote", "app.toggle_keys", "toggle_keys_typing", "edit", "quit"]),
    st.booleans(),
    st.just(""),
)


@settings(deadline=None)
@given(keys=st.lists(_key, max_size=16, unique=True), width=st.integers(0, 200))
@pytest.mark.parametrize("compact", [True, False])
def test_fitting_keeps_a_prefix_that_fits_and_always_the_help(
    keys: list[Key], width: int, compact: bool
) -> None:
    fitted = fitting(keys, width, compact)
    helps = [k for k in keys if k[3].endswith(("toggle_keys", "toggle_keys_typing"))]
    others = [k for k in keys if k not in helps]
    assert fitted[len(fitted) - len(helps) :] == helps  # the help, whatever the width
    shown = fitted[: len(fitted) - len(helps)]
    assert shown == others[: len(shown)]  # the most used first: a prefix, none skipped
    used = sum(key_width(k, compact) for k in fitted)
    assert used <= width or not shown  # only the help may overflow a tiny footer
    if len(shown) < len(others):  # the next key would not have fitted
        assert used + key_width(others[len(shown)], compact) > width


@pytest.mark.anyio
async def test_a_footer_rebuild_restyles_neither_it_nor_its_keys(
    sample_palace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The footer rebuilds on each focus move and dialog: its keys get their styles once, as
    they are mounted, and a class set to what it already is restyles nothing (each restyle
    matches the node and all below it against the whole stylesheet)."""
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        restyled: list[object] = []
        update = app.update_styles

        def spy(node: Any, animate: bool = True) -> None:
            restyled.append(node)
            update(node, animate=animate)

        monkeypatch.setattr(app, "update_styles", spy)
        footer = app.screen.query_one(KeyFooter)
        before = footer_text(app)
        footer._shown = None  # as if what it shows changed: it rebuilds
        await footer.recompose()
        await pilot.pause()
        assert footer_text(app) == before and before
        assert [n for n in restyled if isinstance(n, (KeyFooter, FooterKey))] == []
        keys = list(footer.query(FooterKey))
        palette = [k for k in keys if "-command-palette" in k.classes]
        assert len(palette) == 1 and palette[0].has_class("-compact")  # as Textual's default
        assert not any(k.has_class("-compact") for k in keys if k not in palette)  # 120 wide


@pytest.mark.anyio
async def test_the_footer_rewords_its_keys_in_place(sample_palace: Path) -> None:
    """A change of bindings (the focus moves from the search field to the results and back)
    rewords the keys on show instead of building them again: the footer shows what a rebuild
    would (words, disabled state, whole widths), with the same key widgets where it shows as
    many or more."""
    from textual.widgets import Input

    def shown(footer: KeyFooter) -> list[FooterKey]:
        return [k for k in footer.query(FooterKey) if "-command-palette" not in k.classes]

    def as_planned(footer: KeyFooter) -> None:
        _compact, planned, _palette = footer._plan()
        keys = shown(footer)
        assert [(k.key_display, k.description) for k in keys] == [p[:2] for p in planned]
        assert [k.has_class("-disabled") for k in keys] == [not p[4] for p in planned]
        for key in keys:
            assert key.region.width >= len(key.key_display) + len(key.description), key

    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(110, 34)) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        footer = app.screen.query_one(KeyFooter)
        query = app.screen.query_one("#search-query", Input)
        results = app.screen.query_one("#search-results")
        seen = []
        for widget in (results, query, results):
            before, text = shown(footer), footer_text(app)
            widget.focus()
            await wait_until(pilot, lambda: footer_text(app) != text)  # noqa: B023
            await pilot.pause()  # laid out
            as_planned(footer)
            after = shown(footer)
            kept = min(len(before), len(after))
            assert after[:kept] == before[:kept], "the keys on show are reworded, not rebuilt"
            seen.append(footer_text(app))
        assert seen[0] == seen[2] and seen[0] != seen[1]
