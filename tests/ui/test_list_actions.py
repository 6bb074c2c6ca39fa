"""Marks, Escape, Enter and bulk promote in the lists (issue 21): Escape backs out one level
(the candidates to the drafts, the marks to none), U unmarks all; with marks set an action says
which rows it takes before it asks anything; bulk promote keeps each draft's own type unless
another is chosen; Enter on a draft goes into its candidates and `e` edits; the supersede
picker lists a note named exactly so first. Real app (Pilot), real palace and git repo."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from listhelpers import draft_text
from palacehelpers import note_text
from textual.widgets import OptionList
from uihelpers import apply_plan, git_log, make_app, messages_of, settle, show_screen, wait_until

from curator.ui.screens.rooms import RoomsScreen
from curator.ui.widgets.dialogs import AskDialog, ChoiceDialog, EditDialog, NotePicker
from curator.ui.widgets.table import Table

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

DRAFTS = {
    "inbox/2026-11-28-alpha.md": draft_text("Alpha fact about billing", type="project", day=28),
    "inbox/2026-11-27-beta.md": draft_text("Beta fact about webhooks", type="reference", day=27),
    "inbox/2026-11-26-gamma.md": draft_text("Gamma fact about reviews", type="feedback", day=26),
}


@pytest.fixture
def palace(make_palace: Any) -> Path:
    files: dict[str, str] = dict(DRAFTS)
    files["notes/project/billing.md"] = note_text("Billing runs nightly", body="Alpha billing.\n")
    # named exactly "Deploy", listed last: every other name here contains "deploy" too
    for n, name in enumerate(["Deploy pipeline", "How we deploy", "Deploy freeze", "Deploy"]):
        files[f"notes/project/{'zz-' if name == 'Deploy' else ''}deploy-{n}.md"] = note_text(name)
    return make_palace(files)


async def test_escape_and_u_unmark_and_the_title_counts_them(palace: Path) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        table = screen.query_one("#inbox-drafts", Table)
        await pilot.press("space", "space")
        assert len(screen.marked) == 2 and "2 marked" in str(table.border_title)
        await pilot.press("escape")
        assert screen.marked == set() and table.border_title == "Inbox (3)"
        await pilot.press("home", "space", "space", "space", "U")
        assert screen.marked == set()
        assert "●" not in "".join(str(table.get_cell(k, "mark")) for k in table.rows)


async def test_with_marks_set_an_action_says_which_rows_first(palace: Path) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("space", "space")  # Alpha, Beta; the cursor on Gamma
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, AskDialog))
        assert messages_of(app)[-1] == (
            "Reject the 2 marked drafts: Alpha fact about billing, Beta fact about webhooks"
        )
        assert app.screen.prompt == "Reject 2 marked drafts: why?"
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, AskDialog))
        await pilot.press("e")  # one row only: it says so, the marks stay
        await wait_until(pilot, lambda: isinstance(app.screen, EditDialog))
        assert messages_of(app)[-1] == (
            "Edit the cursor row only: Gamma fact about reviews (the 2 marked drafts stay marked)"
        )


@pytest.mark.parametrize(
    ("choice", "folders"),
    [
        (None, ["project", "reference"]),  # the first choice: each draft's own type
        ("feedback", ["feedback", "feedback"]),
    ],
)
async def test_bulk_promote_keeps_each_drafts_own_type_unless_one_is_chosen(
    palace: Path, choice: str | None, folders: list[str]
) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("space", "space", "p")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceDialog))
        options = app.screen.query_one(OptionList)
        first = options.get_option_at_index(0)
        assert str(first.prompt) == "each its own type (project 1, reference 1)"
        assert options.highlighted == 0  # the default: nothing to change
        if choice is not None:
            ids = [options.get_option_at_index(i).id for i in range(options.option_count)]
            options.highlighted = ids.index(choice)
        await pilot.press("enter")
        await apply_plan(pilot)
        assert "promote" in git_log(palace)[0].lower()
        promoted = sorted(p.relative_to(palace).as_posix() for p in palace.glob("notes/*/*fact*"))
        assert promoted == [
            f"notes/{folders[0]}/alpha-fact-about-billing.md",
            f"notes/{folders[1]}/beta-fact-about-webhooks.md",
        ]


async def test_enter_goes_into_the_candidates_escape_back_and_e_edits(palace: Path) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        table = screen.query_one("#inbox-drafts", Table)
        candidates = screen.query_one("#inbox-candidates", OptionList)
        await wait_until(pilot, lambda: screen.searched and bool(screen.candidates))
        assert app.focused is table
        await pilot.press("enter")
        assert app.focused is candidates and candidates.highlighted == 0
        assert not isinstance(app.screen, EditDialog)  # Enter no longer opens the editor
        await pilot.press("escape")
        assert app.focused is table
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EditDialog))


async def test_the_supersede_picker_lists_the_exact_name_first(palace: Path) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await show_screen(pilot, "2", RoomsScreen)
        screen.query_one("#rooms-notes").focus()
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, NotePicker))
        await pilot.press(*"deploy")
        options = app.screen.query_one("#picker-list", OptionList)
        await wait_until(pilot, lambda: options.option_count >= 4)
        first = options.get_option_at_index(0)
        assert first.id == "notes/project/zz-deploy-3.md"
