"""Pilot tests: navigation, the inbox watcher, key remapping, hostile text."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from rich.text import Text
from textual.widgets import DataTable, Markdown, Static
from uihelpers import make_app, settle, wait_until

from curator.ui.screens.inbox import InboxScreen
from curator.ui.screens.rooms import RoomsScreen
from curator.ui.widgets.note_view import NoteView

pytestmark = pytest.mark.anyio

DRAFT = """---
name: {name}
description: A fresh draft written while the app is open.
type: project
status: draft
created: 2026-11-30T12:00:00Z
source: {{session: sess-new}}
scope: ledgerly
---
> DRAFT

Body of {name}.
"""


async def test_inbox_lists_drafts_newest_first(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InboxScreen)
        created = [d.created for d in screen.drafts]
        assert created == sorted(created, reverse=True)
        assert len(screen.drafts) == len(list((sample_palace / "inbox").glob("*.md")))


async def test_screens_switch_by_key(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for key, mode in (("2", "rooms"), ("3", "audit"), ("5", "history"), ("1", "inbox")):
            await pilot.press(key)
            await pilot.pause()
            assert app.current_mode == mode


async def test_lists_refresh_themselves_and_the_cursor_stays(sample_palace: Path) -> None:
    """Issue 36: a draft another process writes, and a draft an undo in the app brings back,
    are listed without ctrl+r; the cursor stays on the draft it was on."""
    from uihelpers import apply_plan, show_screen

    from curator.ui.screens.history import HistoryScreen

    app = make_app(sample_palace)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InboxScreen)
        await pilot.press("down", "down")
        await pilot.pause()
        selected = screen.current()
        assert selected is not None
        before = len(screen.drafts)
        new = sample_palace / "inbox" / "2026-11-30-new-one.md"
        writer = "import pathlib, sys; pathlib.Path(sys.argv[1]).write_text(sys.argv[2])"
        text = DRAFT.format(name="A new draft appears")
        subprocess.run([sys.executable, "-c", writer, str(new), text], check=True)
        # watchfiles: listed within seconds, above the cursor, which stays on its draft
        await wait_until(pilot, lambda: len(screen.marks.shown) == before + 1)
        assert screen.marks.shown[0] == "inbox/2026-11-30-new-one.md"  # newest first
        now = screen.current()
        assert now is not None and now.rel == selected.rel
        # rejected, then undone in History: back in the list, with no ctrl+r
        await pilot.press("x")
        await pilot.press(*"dup", "enter")
        await apply_plan(pilot)
        await wait_until(pilot, lambda: selected.rel not in screen.marks.shown)
        history = await show_screen(pilot, "5", HistoryScreen)
        history.query_one(DataTable).move_cursor(row=0)
        await pilot.press("u")
        await apply_plan(pilot)
        await show_screen(pilot, "1", InboxScreen)
        await wait_until(pilot, lambda: selected.rel in screen.marks.shown)
        assert len(screen.marks.shown) == before + 1
        # a note changed outside the app (the CLI, git pull) shows as well
        note = next(n for n in app.palace.notes if n.ok)
        path = sample_palace / note.rel
        path.write_text(path.read_text().replace(note.name, "Renamed outside the app", 1))
        await wait_until(
            pilot,
            lambda: app.palace.by_rel[note.rel].name == "Renamed outside the app",
        )


async def test_keymap_file_remaps_bindings(sample_palace: Path, tmp_path: Path) -> None:
    keys = tmp_path / "keys.toml"
    keys.write_text('"screen.rooms" = "f2"\n')
    app = make_app(sample_palace, watch=False, keymap_file=keys)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await pilot.pause()
        assert app.current_mode == "inbox"
        await pilot.press("f2")
        await pilot.pause()
        assert app.current_mode == "rooms"


async def test_open_note_from_anywhere_shows_links(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.open_note("notes/project/stripe-webhook-handler.md")
        await wait_until(pilot, lambda: isinstance(app.screen, RoomsScreen))
        screen = app.screen
        await wait_until(pilot, lambda: bool(screen.query(NoteView)))
        view = screen.query_one(NoteView)
        await wait_until(pilot, lambda: view.note is not None)
        assert view.note is not None and view.note.slug == "stripe-webhook-handler"
        links = screen.query_one("#note-links")
        links.focus()
        await pilot.press("down", "enter")
        await pilot.pause()
        assert view.note is not None and view.note.slug != "stripe-webhook-handler"


HOSTILE = (
    # YAML refuses raw control characters in a header, so the name carries them as escapes
    '---\nname: "\\e]0;pwned\\aHostile [BOLD]note[/BOLD] \\u202eevil"\n'
    "description: '[@click=app.quit]x[/] and [ @click=app.quit]y[/]'\n"
    "type: project\nconfidence: 0.8\ncreated: 2026-11-01\n---\n"
    "[@click=app.quit]click me[/] [ @click=app.quit]me too[/] [BOLD]loud[/BOLD]\n\n"
    "\x1b[31mred\x1b[0m \x1b]8;;http://evil.invalid\x1b\\osc link\x1b]8;;\x1b\\ "
    "\u202eRLO text\u202c\n\n"
    "[web](javascript:alert(1)) [file](file:///etc/passwd) [[stripe-webhook-handler]]\n"
)


async def test_hostile_note_renders_inert(make_palace: object) -> None:
    root = make_palace({"notes/project/hostile.md": HOSTILE})  # type: ignore[operator]
    app = make_app(root, watch=False)
    quit_calls: list[str] = []
    opened: list[str] = []
    app.open_url = lambda url, **_: opened.append(url)  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        original_exit = app.exit
        app.exit = lambda *a, **k: quit_calls.append("exit")  # type: ignore[method-assign]
        await settle(pilot)
        app.open_note("notes/project/hostile.md")

        def shown() -> str | None:
            views = app.screen.query(NoteView)
            note = views.first().note if views else None
            return note.rel if note is not None else None

        await wait_until(pilot, lambda: shown() == "notes/project/hostile.md")
        view = app.screen.query_one(NoteView)
        assert view.note is not None and view.note.rel == "notes/project/hostile.md"
        head = app.screen.query_one("#note-head", Static)
        rendered = head.render()
        plain = rendered.plain if isinstance(rendered, Text) else str(rendered)
        assert "[BOLD]note[/BOLD]" in plain and "<RLO>" in plain and "\x1b" not in plain
        body = app.screen.query_one("#note-body", Markdown)
        region = body.region
        for y in range(region.y, min(region.bottom, region.y + 5)):
            for x in range(region.x, region.right, 6):
                await pilot.click(offset=(x, y))
        await pilot.pause()  # idle: what a click started has run
        assert app.is_running and not quit_calls
        assert not [u for u in opened if not u.startswith(("http://", "https://"))]
        svg = app.export_screenshot()
        assert "\x1b" not in svg and "pwned" not in svg.replace("]0;pwned", "")
        table = app.screen.query_one("#rooms-notes", DataTable)
        assert table.row_count >= 1
        app.exit = original_exit  # type: ignore[method-assign]
