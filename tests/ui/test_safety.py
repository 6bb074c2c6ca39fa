"""Hostile notes and drafts: rendered and clicked all over, no action fires and nothing the note
wrote reaches the terminal as an escape sequence; notifications and plan dialogs stay literal.

The proof is in-process: `ScreenSpy` (a CuratorApp subclass) records every action and exit,
and the terminal bytes are what the compositor would send the driver for a full repaint.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.text import Text
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import DataTable, Markdown, Static
from uihelpers import TODAY, settle, wait_until

from curator.ui.app import CuratorApp
from curator.ui.screens.inbox import InboxScreen
from curator.ui.widgets.dialogs import EditDialog
from curator.ui.widgets.note_view import NoteView
from curator.ui.widgets.plan_dialog import PlanDialog

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

RAW = ("\x1b", "\x9b", "\x07", "\u202e", "\u202c")
MARKUP = "[@click=app.quit]x[/] [ @click=app.quit]y[/] [BOLD]loud[/BOLD]"

HOSTILE_BODY = (
    f"{MARKUP}\n\n"
    "\x1b[31mred\x1b[0m \x1b]0;pwned\x07 \x1b]8;;http://evil.invalid\x1b\\osc link\x1b]8;;\x1b\\ "
    "\x9b31mc1\x9b0m \u202eRLO text\u202c\n\n"
    "[web](javascript:alert(1)) [file](file:///etc/passwd) [[money]]\n"
)


def hostile(kind: str) -> str:
    draft = "status: draft\n" if kind == "draft" else ""
    return (
        '---\nname: "\\e]0;pwned\\a[@click=app.quit]Hostile[/] [BOLD]note[/BOLD] \\u202eevil"\n'
        "description: '[ @click=app.quit]x[/] and [x](javascript:alert(1))'\n"
        f"type: project\nconfidence: 0.8\n{draft}created: 2026-11-01\n---\n" + HOSTILE_BODY
    )


MONEY = "---\nname: Money\ndescription: Integer cents.\ntype: project\n---\nCents.\n"


class ScreenSpy(CuratorApp):
    """The real app, recording every action it runs, every exit and every URL it opens."""

    def __init__(self, root: Path) -> None:
        super().__init__(root, today=TODAY, watch=False)
        self.actions: list[str] = []
        self.exits: list[Any] = []
        self.urls: list[str] = []

    async def run_action(self, action: Any, default_namespace: Any = None) -> bool:
        self.actions.append(str(action))
        return await super().run_action(action, default_namespace)

    def exit(self, *args: Any, **kwargs: Any) -> None:
        self.exits.append(args)

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        self.urls.append(url)


@pytest.fixture
def hostile_palace(make_palace: Any) -> Path:
    return make_palace(
        {
            "notes/project/hostile.md": hostile("note"),
            "notes/project/money.md": MONEY,
            "inbox/2026-11-30-hostile.md": hostile("draft"),
        }
    )


def terminal_output(app: CuratorApp) -> str:
    """What a full repaint writes to the terminal."""
    update = app.screen._compositor.render_full_update()
    console = Console(force_terminal=True, color_system="truecolor", width=app.size.width)
    return update.render_segments(console)


def segment_texts(app: CuratorApp) -> list[str]:
    strips = app.screen._compositor.render_strips()
    return [segment.text for strip in strips for segment in strip]


def assert_no_raw_escapes(app: CuratorApp) -> None:
    for text in segment_texts(app):
        for char in RAW:
            assert char not in text, f"{char!r} reached the screen in {text!r}"
    out = terminal_output(app)
    # Textual's own output is SGR and cursor moves only: no OSC (title, hyperlink), no BEL,
    # no C1 CSI, no bidi override.
    assert "\x1b]" not in out and "\x07" not in out and "\x9b" not in out
    assert "\u202e" not in out
    leftovers = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out)
    assert "\x1b" not in leftovers
    svg = app.export_screenshot()
    assert all(char not in svg for char in RAW)


async def click_all_over(pilot: Pilot[None], widget: Widget, rows: int = 5) -> None:
    """Click each of the widget's first `rows` lines (where the hostile text is) once, and once
    more on every action a cell there carries: a link, or markup taken as markup, is an
    `@click` in the cell's style, so this clicks whatever a reviewer's click could set off."""
    screen = pilot.app.screen
    region = widget.region
    for y in range(region.y, min(region.bottom, region.y + rows)):
        actions: dict[str, int] = {}
        for x in range(region.x, region.right):
            action = screen.get_style_at(x, y).meta.get("@click")
            if action:
                actions.setdefault(str(action), x)
        for x in (region.x + 1, *actions.values()):
            await pilot.click(offset=(x, y))


def note_shown(app: CuratorApp) -> str | None:
    """The note the screen's note view shows, if it has one."""
    views = app.screen.query(NoteView)
    note = views.first().note if views else None
    return note.rel if note is not None else None


def rendered_plain(widget: Static) -> str:
    content = widget.render()
    return content.plain if isinstance(content, Text) else str(content)


async def test_hostile_note_in_rooms(hostile_palace: Path) -> None:
    app = ScreenSpy(hostile_palace)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.open_note("notes/project/hostile.md")
        await wait_until(pilot, lambda: note_shown(app) == "notes/project/hostile.md")
        await settle(pilot)
        head = rendered_plain(app.screen.query_one("#note-head", Static))
        assert "[@click=app.quit]Hostile[/]" in head and "[BOLD]note[/BOLD]" in head
        assert "<RLO>" in head
        assert_no_raw_escapes(app)
        app.actions.clear()
        await click_all_over(pilot, app.screen.query_one("#note-head"))
        await click_all_over(pilot, app.screen.query_one("#note-body", Markdown))
        await click_all_over(pilot, app.screen.query_one("#rooms-notes", DataTable), rows=4)
        await settle(pilot)  # what the clicks started has run
        assert app.is_running and app.exits == []
        assert not [a for a in app.actions if "quit" in a or "exit" in a], app.actions
        assert app.urls == []
        assert_no_raw_escapes(app)
        for note in app._notifications:
            assert not any(c in str(note.message) for c in RAW)


async def test_hostile_draft_in_inbox(hostile_palace: Path) -> None:
    app = ScreenSpy(hostile_palace)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        warnings = rendered_plain(app.screen.query_one("#inbox-warnings", Static))
        assert "markup-like text" in warnings and "escapes" in warnings
        left = rendered_plain(app.screen.query_one("#diff-left", Static))
        assert "[@click=app.quit]x[/]" in left and "<RLO>" in left
        assert_no_raw_escapes(app)
        app.actions.clear()
        for selector in ("#inbox-drafts", "#inbox-warnings", "#inbox-diff"):
            await click_all_over(pilot, app.screen.query_one(selector))
        await settle(pilot)  # what the clicks started has run
        assert app.is_running and app.exits == []
        assert not [a for a in app.actions if "quit" in a or "exit" in a], app.actions
        assert_no_raw_escapes(app)


async def test_plan_dialog_shows_hostile_diff_literally(hostile_palace: Path) -> None:
    app = ScreenSpy(hostile_palace)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EditDialog))
        await pilot.press("pagedown", "pagedown", "end", "enter", *"[@click=app.quit]ok[/]")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: getattr(app.screen, "plan", None) is not None)
        await wait_until(pilot, lambda: bool(app.screen.query("#plan-diff")))
        await pilot.pause()  # the dialog's own messages handled (its workers run on)
        diff = rendered_plain(app.screen.query_one("#plan-diff", Static))
        assert "+[@click=app.quit]ok[/]" in diff and "[[money]]" in diff
        assert_no_raw_escapes(app)
        app.actions.clear()
        await click_all_over(pilot, app.screen.query_one("#plan-diff-scroll"), rows=20)
        assert app.is_running and app.exits == []
        assert isinstance(app.screen, PlanDialog)
        assert not [a for a in app.actions if "quit" in a or "exit" in a], app.actions
        await pilot.press("n")
        await wait_until(pilot, lambda: not isinstance(app.screen, PlanDialog))


async def test_notifications_are_literal(hostile_palace: Path) -> None:
    app = ScreenSpy(hostile_palace)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.open_note("notes/project/hostile.md")
        await wait_until(pilot, lambda: note_shown(app) == "notes/project/hostile.md")
        await settle(pilot)
        view = app.screen.query_one(NoteView)
        body = app.screen.query_one("#note-body", Markdown)
        href = "javascript:[@click=app.quit]x[/]\x1b]0;pwned\x07"
        before = len(app._notifications)
        view.post_message(Markdown.LinkClicked(body, href))
        await wait_until(pilot, lambda: len(app._notifications) > before)
        message = str(list(app._notifications)[-1].message)
        assert "[@click=app.quit]x[/]" in message and "\x1b" not in message
        assert app.urls == []
        assert list(app._notifications)[-1].markup is False
        assert app.is_running and app.exits == []
        assert_no_raw_escapes(app)


async def test_every_dialog_on_a_hostile_draft_is_literal(hostile_palace: Path) -> None:
    """Promote form, reject reason, editor, plan, note picker and key help on the hostile
    draft: nothing it holds reaches the terminal as an escape sequence."""
    from curator.ui.widgets.dialogs import AskDialog, NotePicker
    from curator.ui.widgets.promote_form import PromoteForm

    app = ScreenSpy(hostile_palace)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        opened = []
        for keys, kind in (
            (("p",), PromoteForm),
            (("x",), AskDialog),
            (("e",), EditDialog),
            (("x", *"no", "enter"), PlanDialog),
            (("s",), NotePicker),
        ):
            if kind.__name__ == "NotePicker":  # supersede from Rooms, on a note
                app.open_note("notes/project/money.md")
                await wait_until(pilot, lambda: note_shown(app) == "notes/project/money.md")
                await settle(pilot)
            await pilot.press(*keys)
            await wait_until(pilot, lambda k=kind: isinstance(app.screen, k))  # type: ignore[misc]
            await pilot.pause()  # drawn (a dialog's workers may run on)
            assert_no_raw_escapes(app)
            opened.append(kind.__name__)
            await pilot.press("escape")
            await wait_until(pilot, lambda k=kind: not isinstance(app.screen, k))  # type: ignore[misc]
            await pilot.press("1")
            await wait_until(pilot, lambda: isinstance(app.screen, InboxScreen))
            await settle(pilot)
        assert app.is_running and app.exits == []
        assert opened == ["PromoteForm", "AskDialog", "EditDialog", "PlanDialog", "NotePicker"]
