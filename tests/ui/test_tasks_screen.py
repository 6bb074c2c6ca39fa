"""The Tasks screen through Pilot: the list with stale claims flagged, revisions and diffs,
requests shown as plain text, and a person's actions planned, confirmed and committed against
the revision on screen."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from palacehelpers import MakePalace
from rich.text import Text
from textual.widgets import DataTable, Static
from uihelpers import git_log, make_app, messages_of, settle, shown_in, wait_until

from curator.model.text import clean
from curator.tasks import TaskService
from curator.tasks.checkpoint import SECTIONS
from curator.tasks.claims import now_utc
from curator.ui.screens.tasks import TasksScreen
from curator.ui.widgets.plan_dialog import PlanDialog, diff_text
from curator.ui.widgets.zoom import ZoomDialog

pytestmark = pytest.mark.anyio

NASTY = "Keep [bold red]this[/] \x1b[31mred\x1b[0m **as is** ünïcode ✓ \x9b2J".encode()


def md(next_action: str) -> str:
    body = {"next_action": next_action}
    return "".join(f"## {title}\n\n{body.get(key, key)}\n\n" for key, title in SECTIONS)


@pytest.fixture
def palace(make_palace: MakePalace) -> Path:
    root = make_palace({"notes/.keep": ""})
    svc = TaskService(root)
    old = now_utc() - timedelta(hours=5)
    svc.rules.new("stuck", "A claim nobody saves", "agent-old", now=old)
    svc.new("fresh", "Going well", "agent-new")
    svc.save("fresh", "agent-new", md("[link=x]click[/link] next"))
    svc.request("fresh", "agent-new", NASTY)
    return root


def text_of(app: object, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())  # type: ignore[attr-defined]


async def open_tasks(pilot: object) -> TasksScreen:
    app = pilot.app  # type: ignore[attr-defined]
    await settle(pilot)  # type: ignore[arg-type]
    screen = TasksScreen()
    await app.push_screen(screen)
    table = screen.query_one("#tasks-table", DataTable)
    await wait_until(pilot, lambda: table.row_count == 2)  # type: ignore[arg-type]
    await wait_until(pilot, lambda: screen.detail_ready)  # mounted once the list has drawn
    return screen


async def test_list_flags_stale_and_shows_requests_safely(palace: Path) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_tasks(pilot)
        table = screen.query_one("#tasks-table", DataTable)
        first = [str(c) for c in table.get_row_at(0)]
        assert first[0] == "stuck" and first[4] == "STALE"  # stale ones come first
        second = [str(c) for c in table.get_row_at(1)]
        assert second[0] == "fresh" and second[4] == "" and second[2] == "agent-new"
        assert second[5] == "[link=x]click[/link] next"  # shown as typed, not as markup
        await pilot.press("down")
        revs = screen.query_one("#tasks-revisions", DataTable)
        await wait_until(pilot, lambda: revs.row_count == 2)
        await wait_until(pilot, lambda: "Request 1" in text_of(app, "#tasks-requests"))
        shown = text_of(app, "#tasks-requests")
        assert "Keep [bold red]this[/]" in shown and "**as is** ünïcode ✓" in shown
        assert "\x1b" not in shown and "\x9b" not in shown
        right = screen.query_one("#tasks-right", Static)
        await wait_until(pilot, lambda: "[link=x]click[/link] next" in text_of(app, "#tasks-right"))
        assert "next_action" in text_of(app, "#tasks-left")  # revision 1 beside revision 2
        changed = {str(right.render())[s.start : s.end] for s in right.render().spans}  # type: ignore[union-attr]
        assert "click" in changed and "Objective" not in changed  # only what changed is lit


async def test_release_stuck_claim_is_planned_then_committed(palace: Path) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await open_tasks(pilot)
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, PlanDialog))
        assert TaskService(palace).store.revisions("stuck") == [1]  # nothing written yet
        await pilot.press("y")
        await wait_until(pilot, lambda: TaskService(palace).store.newest("stuck") == 2)
        header = TaskService(palace).store.header("stuck")
        assert header.owner is None and header.event == "release"
        await wait_until(pilot, lambda: git_log(palace)[0].startswith("task-release: stuck"))


async def test_cancel_changes_nothing(palace: Path) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await open_tasks(pilot)
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, PlanDialog))
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, TasksScreen))
        await pilot.pause()  # idle: a change the dialog started would be written
        assert TaskService(palace).store.revisions("stuck") == [1]


async def test_action_from_a_stale_view_is_refused(palace: Path) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await open_tasks(pilot)
        await pilot.press("down")  # "fresh", revision 2 on screen
        svc = TaskService(palace)
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, PlanDialog))
        svc.save("fresh", "agent-new", md("moved on"), base=2)  # behind the dialog's back
        await pilot.press("y")
        await wait_until(pilot, lambda: any("read it again" in m for m in messages_of(app)))
        assert svc.store.header("fresh").status == "active"
        assert svc.store.revisions("fresh") == [1, 2, 3]


PIECES = st.characters(codec="utf-8", exclude_categories=("Cs",)) | st.sampled_from(
    ["\x1b[31m", "\x9b2J", "[bold]", "[/]", "[link=x]", "\r\n", "\u202e", "**", "`"]
)
WORDS = st.lists(PIECES, min_size=1, max_size=40).map("".join).filter(str.strip)


@settings(deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=4))
def test_requests_render_as_plain_text(words: list[str]) -> None:
    from curator.model.text import has_escapes
    from curator.tasks import requests as reqs
    from curator.ui.screens.tasks import requests_text

    data = None
    for w in words:
        _, data = reqs.append(data, "t", "agent", w.encode(), "2026-12-01T00:00:00Z")
    assert data is not None
    parsed = reqs.parse(data)
    assert [r.text for r in parsed] == words  # kept byte for byte
    shown = requests_text(parsed)
    assert not has_escapes(shown.plain.replace("\n", ""))  # nothing reaches the terminal raw
    assert all(span.style == "bold" for span in shown.spans)  # only our headings are styled
    for w in words:
        assert clean(w).strip("\n") in shown.plain


async def test_diff_between_any_two_revisions(palace: Path) -> None:
    svc = TaskService(palace)
    svc.save("fresh", "agent-new", md("third step"))
    app = make_app(palace, watch=False)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_tasks(pilot)
        await pilot.press("down")
        revs = screen.query_one("#tasks-revisions", DataTable)
        await wait_until(pilot, lambda: revs.row_count == 3)
        revs.focus()
        revs.move_cursor(row=0)
        await pilot.press("m")  # diffs now start from revision 1
        revs.move_cursor(row=2)
        left = screen.query_one("#tasks-left-scroll")
        await wait_until(pilot, lambda: str(left.border_title) == "Diff: revision 1 → 3")
        shown = screen.query_one("#tasks-left", Static).content
        assert isinstance(shown, Text)
        # the same diff `curator task history --diff` prints, each file header as one line
        expected = diff_text(svc.diff("fresh", 1, 3)).plain
        assert shown.plain == expected and "+third step" in shown.plain.splitlines()
        assert any(span.style == "green" for span in shown.spans)
        assert not screen.query_one("#tasks-right-scroll").display
        revs.move_cursor(row=0)  # on the marked revision itself: side by side again
        right = screen.query_one("#tasks-right-scroll")
        await wait_until(pilot, lambda: str(right.border_title) == "Revision 1")
        assert right.display


async def test_the_request_text_shows_at_80x24(palace: Path) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_tasks(pilot)
        table = screen.query_one("#tasks-table", DataTable)
        table.move_cursor(row=table.get_row_index("fresh"))
        await wait_until(pilot, lambda: bool(screen.query("#tasks-requests-scroll")))
        await wait_until(pilot, lambda: "Request 1" in shown_in(app, "#tasks-requests-scroll"))
        assert "as is" in shown_in(app, "#tasks-requests-scroll")  # the words, not only the header


async def test_a_request_added_outside_shows_in_the_open_task(palace: Path) -> None:
    """A request the CLI adds to the open task shows in its Requests pane after ctrl+r (or
    the watcher's reload), with the cursor still on that task; the list's clock tick reads
    the list again."""
    app = make_app(palace, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_tasks(pilot)
        table = screen.query_one("#tasks-table", DataTable)
        await wait_until(pilot, lambda: screen.detail_ready)
        table.move_cursor(row=table.get_row_index("fresh"))
        await wait_until(pilot, lambda: "Request 1" in text_of(app, "#tasks-requests"))
        TaskService(palace).request("fresh", "someone", b"Also check the second region")
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: "second region" in text_of(app, "#tasks-requests"))
        assert screen.selected() == "fresh"
        TaskService(palace).new("later", "Started meanwhile", "agent-3")
        screen.tick()
        await wait_until(pilot, lambda: table.row_count == 3)
        assert screen._ticker is not None


async def test_a_diff_reads_older_to_newer_and_has_room_at_80x24(palace: Path) -> None:
    """Marking revision 3 and moving to revision 1 shows the diff from 1 to 3 (as the toast's
    "from revision 3" and the header agree on the two revisions); at 80x24 the diff pane
    shows lines, not two."""
    svc = TaskService(palace)
    svc.save("fresh", "agent-new", md("third step"))
    said: list[str] = []
    app = make_app(palace, watch=False)
    app.notify = lambda message, *a, **k: said.append(str(message))  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_tasks(pilot)
        await pilot.press("down")
        revs = screen.query_one("#tasks-revisions", DataTable)
        await wait_until(pilot, lambda: revs.row_count == 3)
        revs.focus()
        revs.move_cursor(row=2)
        await pilot.press("m")
        assert said[-1] == "Diffs now start from revision 3"
        revs.move_cursor(row=0)
        left = screen.query_one("#tasks-left-scroll")
        await wait_until(pilot, lambda: str(left.border_title) == "Diff: revision 1 → 3")
        shown = screen.query_one("#tasks-left", Static).content
        assert isinstance(shown, Text) and "+third step" in shown.plain.splitlines()
        await settle(pilot)
        assert screen.query_one("#tasks-diff").region.height >= 8, screen.query_one(
            "#tasks-diff"
        ).region
        # z: the same diff on the whole screen, its header first; Escape back to the task
        await pilot.press("z")
        await wait_until(pilot, lambda: isinstance(app.screen, ZoomDialog))
        zoom = app.screen
        text = str(zoom.query_one("#zoom-text", Static).render())
        assert "Diff: revision 1 → 3" in text and "+third step" in text.splitlines()
        assert zoom.query_one("#zoom-scroll").size.width >= 76
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen)


async def test_the_screen_holds_one_task_service_per_palace_load(palace: Path) -> None:
    """The list, a task's revisions and its diff read through one TaskService; a reload (the
    palace.toml it read may have changed) makes the next one."""
    app = make_app(palace, watch=False)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_tasks(pilot)
        service = screen.service
        await pilot.press("down")
        revs = screen.query_one("#tasks-revisions", DataTable)
        await wait_until(pilot, lambda: revs.row_count == 2)
        assert screen.service is service
        first = app.palace
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: app.palace is not first)
        await settle(pilot)
        assert screen.service is not service


async def test_widening_redraws_the_empty_revisions_header(make_palace: MakePalace) -> None:
    """From 80 to 120 columns the revisions table (no task: no rows, its header alone) shades
    its header across the new width. DataTable's own resize handler only makes its cached rows
    stale, after the repaint the new size brought had drawn them at the old width; a table
    drawn again since its last resize (here a theme change) kept that old header."""
    from textual.strip import Strip

    app = make_app(make_palace({"notes/.keep": ""}), watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = TasksScreen()
        await app.push_screen(screen)
        await wait_until(pilot, lambda: screen.detail_ready)
        await settle(pilot)
        revs = screen.query_one("#tasks-revisions", DataTable)
        app.theme = "textual-light"  # restyled: drawn again at 80 columns, rows cached
        await settle(pilot)
        await pilot.resize_terminal(120, 24)
        await wait_until(pilot, lambda: revs.content_region.width == 118)
        await settle(pilot)
        area = revs.content_region
        assert revs.row_count == 0 and area.height == 1  # the header alone
        row = app.screen._compositor.render_full_update().strips[area.y]
        header = Strip.join(row).crop(area.x, area.right)
        assert header.cell_length == 118
        shades = {segment.style.bgcolor for segment in header if segment.style}
        assert len(shades) == 1, shades
