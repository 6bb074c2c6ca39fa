"""Issue 15's bugs, each through the real app (Pilot) on a real palace and git repo: focus,
dialogs at 80×24, invalid input kept, warnings that follow the text, keys typed early, the
cursor after an action, drafts arriving mid-review, bulk actions in one commit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from palacehelpers import note_text, run_main
from textual.widgets import Input, Static
from uihelpers import git_log, make_app, settle, wait_until

from curator.model.palace import Palace
from curator.session import Session
from curator.ui import services
from curator.ui.screens.inbox import InboxScreen
from curator.ui.widgets.dialogs import AskDialog, EditDialog
from curator.ui.widgets.plan_dialog import PlanDialog
from curator.ui.widgets.promote_form import PromoteForm

pytestmark = [pytest.mark.slow, pytest.mark.anyio]


def draft(name: str, body: str = "Body.\n", *, type: str = "project", extra: str = "") -> str:
    return note_text(name, type=type, body=body, extra=f"status: draft\n{extra}")


def drafts(count: int) -> dict[str, str]:
    return {
        f"inbox/2026-11-{10 + i:02d}-d{i}.md": draft(
            f"Draft {i}", extra=f"created: 2026-11-{10 + i:02d}\n"
        )
        for i in range(count)
    }


def shown(widget: Static) -> str:
    return str(widget.render())


async def test_focus_starts_on_the_drafts(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.screen.focused is not None and app.screen.focused.id == "inbox-drafts"
        before = app.screen.query_one("#inbox-drafts").cursor_row
        await pilot.press("down")
        assert app.screen.query_one("#inbox-drafts").cursor_row == before + 1


async def test_promote_form_fits_80x24_and_shows_problems_in_place(make_palace: Any) -> None:
    root = make_palace({"inbox/2026-11-30-x.md": draft("X thing", type="lesson")})
    app = make_app(root, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, PromoteForm))
        form = app.screen
        parts = ("#promote-scope", ".hint")
        await wait_until(pilot, lambda: all(form.query_one(s).region.height > 0 for s in parts))
        for selector in ("#promote-scope", ".hint"):
            region = form.query_one(selector).region
            assert region.bottom <= 24 and region.height > 0, selector
        type_problem = shown(form.query_one("#promote-problems-type", Static))
        assert "'lesson' is not a type" in type_problem
        assert not form.query_one("#promote-problems-confidence").display  # no spurious error
        name = form.query_one("#promote-name", Input)
        name.value = ""
        await pilot.pause()  # the change handled before the save
        await pilot.press("ctrl+s")
        problem = form.query_one("#promote-problems-name", Static)
        await wait_until(pilot, lambda: "name is required" in shown(problem))
        assert isinstance(app.screen, PromoteForm)  # kept open, nothing replaced
        assert name.value == ""
        assert form.focused is not None and form.focused.id == "promote-name"


async def test_failed_edit_keeps_the_text(make_palace: Any) -> None:
    root = make_palace({"inbox/2026-11-30-x.md": draft("X thing")})
    app = make_app(root, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EditDialog))
        area = app.screen.query_one("#edit-area")
        area.text = "---\nname: [broken\n---\nmy careful words\n"
        await pilot.press("ctrl+s")
        problems = app.screen.query_one("#edit-problems", Static)
        await wait_until(pilot, lambda: bool(shown(problems).strip()))
        assert isinstance(app.screen, EditDialog)
        assert "my careful words" in area.text
        await pilot.press("escape")  # unsaved changes: it asks first
        await wait_until(
            pilot, lambda: any("Discard" in str(lb.render()) for lb in app.screen.query("Label"))
        )
        assert "Discard" in str(app.screen.query_one("Label").render())
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, EditDialog))


async def test_warnings_follow_the_text_and_wikilinks_are_not_markup(make_palace: Any) -> None:
    rel = "inbox/2026-11-30-x.md"
    root = make_palace({rel: draft("X thing", "See [[money]] and [bold]x[/bold].\n")})
    app = make_app(root, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        box = app.screen.query_one("#inbox-warnings", Static)
        assert "markup-like" in shown(box)
        (root / rel).write_text(draft("X thing", "See [[money]] only.\n"))
        app.load_palace()
        await settle(pilot)
        assert "markup-like" not in shown(box)


async def test_keys_typed_before_the_dialog_opens_are_kept(make_palace: Any) -> None:
    root = make_palace(drafts(3))
    app = make_app(root, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        before = len(git_log(root))
        await pilot.press("x", *"dup", "enter", "y")  # no pause: the plan is still being made
        await wait_until(pilot, lambda: len(git_log(root)) == before + 1, timeout=60)
        assert git_log(root)[0].startswith("reject")


async def test_cursor_moves_to_the_next_draft_after_an_action(make_palace: Any) -> None:
    root = make_palace(drafts(4))
    app = make_app(root, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InboxScreen)
        await pilot.press("down")
        following = screen.drafts[2].rel
        await pilot.press("x", *"dup", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PlanDialog))
        await pilot.press("y")
        await wait_until(pilot, lambda: len(screen.drafts) == 3, timeout=60)
        await settle(pilot)
        assert screen.current() is not None and screen.current().rel == following


async def test_new_drafts_do_not_move_the_selection(make_palace: Any) -> None:
    root = make_palace(drafts(3))
    app = make_app(root, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InboxScreen)
        await pilot.press("down")
        chosen = screen.current().rel
        (root / "inbox/2026-11-29-newest.md").write_text(draft("Newest"))
        app.load_palace()
        await settle(pilot)
        # listed at once (no ctrl+r), the cursor still on the draft it was on
        await wait_until(pilot, lambda: len(screen.drafts) == 4)
        assert screen.current().rel == chosen


async def test_bulk_reject_is_one_commit(make_palace: Any) -> None:
    root = make_palace(drafts(5))
    app = make_app(root, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        before = len(git_log(root))
        await pilot.press("space", "space", "shift+down")
        screen = app.screen
        assert isinstance(screen, InboxScreen) and len(screen.marked) == 4  # 0, 1, then 2 and 3
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, AskDialog))
        await pilot.press(*"same run", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PlanDialog))
        await pilot.press("y")
        await wait_until(pilot, lambda: len(git_log(root)) == before + 1, timeout=60)
        await settle(pilot)
        assert len(list((root / "inbox").glob("*.md"))) == 1
        assert len(list((root / ".curator/rejected").glob("*.md"))) == 4


def test_app_undo_is_the_cli_undo(make_palace: Any) -> None:
    root = make_palace(drafts(1))
    palace = Palace.open(root)
    Session(palace).commit(services.plan_reject(palace, next(iter(drafts(1))), "dup"))
    app_plan = services.plan_undo(Palace.open(root))
    # the CLI's main (in this process: a `python -m curator` would only add curator's import)
    cli = run_main(root, "undo", "--palace", str(root), "--dry-run", "--json")
    assert cli.returncode == 0, cli.stderr
    shown_by_cli = json.loads(cli.stdout)
    assert list(app_plan.paths()) == shown_by_cli["paths"]
    assert app_plan.diff(root) == shown_by_cli["diff"]


async def test_tab_bar_is_visible_and_switches_screens(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        tabs = app.screen.query_one("#screen-tabs")
        assert tabs.region.height >= 1 and tabs.region.y == 0
        await pilot.click("#tab-rooms")
        await wait_until(pilot, lambda: app.current_mode == "rooms")
        await pilot.press("4")
        await wait_until(pilot, lambda: app.current_mode == "search")
        await pilot.press(*"money", "escape")  # Escape leaves the query: digits switch again
        await pilot.press("1")
        await wait_until(pilot, lambda: app.current_mode == "inbox")
