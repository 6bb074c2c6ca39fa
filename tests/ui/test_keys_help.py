"""The key help inside dialogs: `?` opens it where it is not a character; in a text field `?`
types a `?` and F1 opens the help (the footer shows which); curator's keys come first."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input
from uihelpers import make_app, settle, wait_until

from curator.ui.widgets.dialogs import AskDialog
from curator.ui.widgets.plan_dialog import PlanDialog

pytestmark = [pytest.mark.slow, pytest.mark.anyio]


def _footer_keys(app: object) -> str:
    footer = app.screen.query_one("KeyFooter")  # type: ignore[attr-defined]
    return " ".join(str(key.render()) for key in footer.query("FooterKey"))


def _help_shown(app: object) -> bool:
    """The help panel is up with its table of keys (mounted a moment after the panel)."""
    return bool(app.screen.query("CuratorBindings"))  # type: ignore[attr-defined]


def _help_lines(app: object) -> list[str]:
    panel = app.screen.query_one("#keys-help")  # type: ignore[attr-defined]
    table = panel.render_bindings_table()
    return [str(cell) for cell in table.columns[1]._cells]


async def test_question_mark_in_a_text_field_types_and_f1_opens_help(
    sample_palace: Path,
) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, AskDialog))
        await wait_until(pilot, lambda: isinstance(app.focused, Input))
        await pilot.press(*"why", "question_mark")
        assert app.screen.query_one(Input).value == "why?"
        assert not app.screen.query("HelpPanel")
        await wait_until(pilot, lambda: "f1" in _footer_keys(app).lower())
        await pilot.press("f1")
        await wait_until(pilot, lambda: _help_shown(app))
        lines = _help_lines(app)
        cancel = next(i for i, line in enumerate(lines) if line.startswith("Cancel"))
        assert lines.index("generic") > cancel > 0 and lines[0].startswith("curator")
        assert "Cancel Cancel" not in lines[cancel] and "ask.cancel" in lines[cancel]
        await pilot.press("f1")
        await wait_until(pilot, lambda: not app.screen.query("HelpPanel"))
        assert app.screen.query_one(Input).value == "why?"  # nothing typed was lost


async def test_question_mark_opens_help_in_the_plan_dialog(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("x", *"dup", "enter")
        await wait_until(pilot, lambda: getattr(app.screen, "plan", None) is not None)
        assert isinstance(app.screen, PlanDialog)
        assert "?" in _footer_keys(app)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: _help_shown(app))
        lines = _help_lines(app)
        assert lines[0].startswith("curator")
        assert any(line.startswith("Apply") for line in lines[1:3]), lines
        await pilot.press("n")
        await wait_until(pilot, lambda: not isinstance(app.screen, PlanDialog))


async def test_help_at_80x24_lists_curator_first_scrolls_and_escape_closes(
    sample_palace: Path,
) -> None:
    """As drawn: curator's keys at the top (the screen's actions above the fold), the panel
    scrolls by keys, Escape closes it and the draft list has the focus again."""
    from textual.widgets import DataTable
    from uihelpers import shown_in

    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.focused
        assert isinstance(table, DataTable)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: _help_shown(app))
        drawn_now = lambda: shown_in(app, "#keys-help").replace("▏", " ").strip()  # noqa: E731
        await wait_until(pilot, lambda: drawn_now().startswith("curator"))
        drawn = shown_in(app, "#keys-help").replace("▏", " ").strip()
        assert drawn.startswith("curator"), drawn
        assert "Promote" in drawn and "Reject" in drawn
        assert "Cursor up" not in drawn.split("generic")[0]
        panel = app.screen.query_one("#keys-help")
        assert panel.max_scroll_y > 0  # more keys than fit at 80×24
        await pilot.press("pagedown")
        await wait_until(pilot, lambda: panel.scroll_y > 0)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.screen.query("HelpPanel"))
        assert app.focused is table


async def test_f1_in_search_leaves_the_tab_bar_and_filters_alone(sample_palace: Path) -> None:
    from uihelpers import shown_in

    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await wait_until(pilot, lambda: app.screen.query("#search-query"))
        await settle(pilot)
        await wait_until(pilot, lambda: isinstance(app.focused, Input))
        tabs = shown_in(app, "#screen-tabs")
        regions = {w.id: w.region for w in app.screen.query("#screen-tabs, #search-query")}
        await pilot.press("f1")
        await wait_until(pilot, lambda: _help_shown(app))
        await pilot.pause()  # idle: a layout the help caused is done
        after = {w.id: w.region for w in app.screen.query("#screen-tabs, #search-query")}
        assert after == regions  # nothing under the help was laid out again
        assert "6 Tasks" in tabs
        await pilot.press("f1")
        await wait_until(pilot, lambda: not app.screen.query("HelpPanel"))
        assert isinstance(app.focused, Input)
        assert shown_in(app, "#screen-tabs") == tabs
