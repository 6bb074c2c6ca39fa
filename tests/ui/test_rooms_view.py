"""Rooms as a working place (issue 15): a note's links and backlinks as a navigable list with a
legend, the supersede chain at the top of the note, an Unfiled room for notes with no type (or
a type palace.toml does not list), and the first room with notes shown at first. Real app
(Pilot) at 80×24 and 120×40, real palace and git repo."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from palacehelpers import note_text
from rich.text import Text
from textual.widgets import OptionList, Static
from uihelpers import apply_plan, git_log, make_app, messages_of, show_screen, wait_until

from curator.ui.screens.rooms import SUPERSEDED, UNFILED, RoomsScreen
from curator.ui.widgets.dialogs import NotePicker
from curator.ui.widgets.note_view import LEGEND, NoteView

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

HUB = "notes/project/hub.md"
SPOKE = "notes/project/spoke.md"
FAN = "notes/project/fan.md"
OLD = "notes/project/old-way.md"
NEW = "notes/project/new-way.md"
BARE = "notes/loose-thought.md"
ODD = "notes/project/odd-type.md"

UNTYPED = "---\nname: Loose thought\ndescription: A note with no type.\n---\nNo room for me.\n"


@pytest.fixture
def palace(make_palace: Any) -> Path:
    return make_palace(
        {
            HUB: note_text("Hub", body="See [[spoke]] and [[missing-note]].\n"),
            SPOKE: note_text("Spoke", body="Plain.\n"),
            FAN: note_text("Fan", body="I like [[hub]].\n"),
            OLD: note_text(
                "Old way", extra="status: superseded\nsuperseded_by: new-way\n", body="Old.\n"
            ),
            NEW: note_text("New way", extra="supersedes: [old-way]\n", body="New.\n"),
            BARE: UNTYPED,
            ODD: note_text("Odd type", type="musing", body="Odd.\n"),
        }
    )


async def rooms_of(pilot: Any) -> RoomsScreen:
    screen = await show_screen(pilot, "2", RoomsScreen)
    assert isinstance(screen, RoomsScreen)
    return screen


def options(links: OptionList) -> list[tuple[str, str | None, bool]]:
    """(prompt, id, disabled) of every entry."""
    out = []
    for i in range(links.option_count):
        option = links.get_option_at_index(i)
        out.append((str(option.prompt), option.id, option.disabled))
    return out


def head(screen: RoomsScreen) -> str:
    rendered = screen.query_one("#note-head", Static).render()
    return rendered.plain if isinstance(rendered, Text) else str(rendered)


def shown(screen: RoomsScreen) -> str | None:
    note = screen.query_one(NoteView).note
    return note.rel if note is not None else None


async def open_in(pilot: Any, screen: RoomsScreen, rel: str) -> None:
    """Open the note in Rooms; once it shows, the messages that posted (the notes' cursor
    moved to it) are handled."""
    screen.open_note(rel)
    await wait_until(pilot, lambda: shown(screen) == rel)
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_links_and_backlinks_are_a_navigable_list_with_a_legend(
    palace: Path, size: tuple[int, int]
) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=size) as pilot:
        screen = await rooms_of(pilot)
        await open_in(pilot, screen, HUB)
        links = screen.query_one("#note-links", OptionList)
        entries = options(links)
        assert ("→ Spoke", f"go:{SPOKE}", False) in entries
        assert ("← Fan", f"back:{FAN}", False) in entries
        assert ("→ broken: missing-note", None, True) in entries  # shown, not followed
        assert links.border_title == LEGEND
        # Enter on a note goes into its links; the list and its legend are then on screen
        screen.query_one("#rooms-notes").focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.focused is links)
        view = screen.query_one(NoteView)
        # the view scrolls the focused list into sight after the next refresh
        await wait_until(
            pilot,
            lambda: links.region.height >= 2 and view.region.contains_region(links.region),
        )
        links.highlighted = links.get_option_index(f"go:{SPOKE}")
        await pilot.press("enter")
        await wait_until(pilot, lambda: shown(screen) == SPOKE)
        assert screen.selected() is not None and screen.selected().rel == SPOKE  # type: ignore[union-attr]
        await pilot.press("backspace")  # back where the reviewer came from
        await wait_until(pilot, lambda: shown(screen) == HUB)
        links.focus()
        links.highlighted = links.get_option_index(f"back:{FAN}")
        await pilot.press("enter")
        await wait_until(pilot, lambda: shown(screen) == FAN)
        # and from Fan, its link back to Hub
        assert ("→ Hub", f"go:{HUB}", False) in options(links)


async def test_the_supersede_chain_is_at_the_top_of_the_note(palace: Path) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await rooms_of(pilot)
        await open_in(pilot, screen, NEW)
        first = head(screen).splitlines()[0]
        assert first == "chain Old way → New way", head(screen)
        links = screen.query_one("#note-links", OptionList)
        entries = options(links)
        assert entries[:2] == [
            ("chain ○ Old way", f"chain:{OLD}", False),
            ("chain ● New way", f"chain:{NEW}", True),  # this note: nowhere to go
        ]
        links.focus()
        links.highlighted = 0
        await pilot.press("enter")
        await wait_until(pilot, lambda: shown(screen) == OLD)
        assert screen.room == SUPERSEDED
        assert head(screen).splitlines()[0] == "chain Old way → New way"
        assert [e[1] for e in options(links)[:2]] == [f"chain:{OLD}", f"chain:{NEW}"]
        links.highlighted = 1  # now the newer note is the one to follow
        await pilot.press("enter")
        await wait_until(pilot, lambda: shown(screen) == NEW)
        # a note in no chain has no chain line
        await open_in(pilot, screen, SPOKE)
        assert not head(screen).startswith("chain")


async def test_unfiled_room_holds_notes_with_no_type(palace: Path) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await rooms_of(pilot)
        rooms = screen.query_one("#rooms-list", OptionList)
        index = rooms.get_option_index(UNFILED)
        assert str(rooms.get_option_at_index(index).prompt) == "  2 Unfiled"
        rooms.focus()
        rooms.highlighted = index
        await wait_until(pilot, lambda: screen.room == UNFILED)
        assert {n.rel for n in screen.notes} == {BARE, ODD}
        assert "Unfiled (2)" in str(screen.query_one("#rooms-notes").border_title)
        await pilot.press("enter")  # into the notes; the note shows
        await wait_until(pilot, lambda: shown(screen) in {BARE, ODD})
        # opened from elsewhere (palette, search), an untyped note lands in Unfiled too
        screen.show_room("project")
        await pilot.pause()
        app.open_note(BARE)
        await wait_until(pilot, lambda: shown(screen) == BARE)
        assert screen.room == UNFILED
        assert screen.selected() is not None and screen.selected().rel == BARE  # type: ignore[union-attr]


async def test_rooms_opens_on_the_first_room_with_notes(palace: Path) -> None:
    """The taxonomy's first room (user) is empty here: Rooms starts on one with notes."""
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await rooms_of(pilot)
        palace_ = app.palace
        assert palace_ is not None and not palace_.rooms()[0].notes
        assert screen.room == "project" and screen.selected() is not None
        assert screen.focused is screen.query_one("#rooms-notes")
        assert shown(screen) == screen.selected().rel  # type: ignore[union-attr]


async def test_a_palace_with_no_typed_notes_opens_on_unfiled(make_palace: Any) -> None:
    root = make_palace({BARE: UNTYPED})
    app = make_app(root, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await rooms_of(pilot)
        assert screen.room == UNFILED and [n.rel for n in screen.notes] == [BARE]
        assert shown(screen) == BARE
        rooms = screen.query_one("#rooms-list", OptionList)
        rooms.focus()
        rooms.highlighted = rooms.get_option_index("project")  # an empty room
        await wait_until(pilot, lambda: screen.room == "project")
        assert screen.room == "project" and not screen.notes
        assert shown(screen) is None  # not the note of the room before
        assert "No note selected" in head(screen)
        assert not screen.query_one("#note-links").display


async def test_supersede_from_rooms_with_the_picker_then_the_chain_shows(palace: Path) -> None:
    """s on a note in Rooms: the picker finds the newer note by name; one commit; the old note
    moves to Superseded and both show the chain at their top."""
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await rooms_of(pilot)
        await open_in(pilot, screen, SPOKE)
        notes = screen.query_one("#rooms-notes")
        notes.focus()
        await wait_until(pilot, lambda: screen.focused is notes)
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, NotePicker))
        await pilot.press(*"fan")
        picked = app.screen.query_one("#picker-list", OptionList)
        await wait_until(
            pilot, lambda: picked.highlighted == 0 and picked.get_option_at_index(0).id == FAN
        )
        await pilot.press("enter")
        await apply_plan(pilot)
        assert git_log(palace)[0].startswith("supersede")
        assert "superseded_by: fan" in (palace / SPOKE).read_text()
        assert SPOKE not in [n.rel for n in screen.notes]  # left the project room
        await open_in(pilot, screen, SPOKE)
        assert screen.room == SUPERSEDED
        assert head(screen).splitlines()[0] == "chain Spoke → Fan"
        await open_in(pilot, screen, FAN)
        assert head(screen).splitlines()[0] == "chain Spoke → Fan"


async def test_enter_on_a_note_without_links_keeps_the_focus_in_sight(palace: Path) -> None:
    """BARE links nowhere and nothing links to it: Enter says so and the notes keep the keys
    (the hidden links list took them, and arrows then moved nothing on screen)."""
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await rooms_of(pilot)
        await open_in(pilot, screen, BARE)
        table = screen.query_one("#rooms-notes")
        table.focus()
        await wait_until(pilot, lambda: screen.focused is table)
        assert not screen.query_one("#note-links").display
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("no links" in m for m in messages_of(app)))
        assert screen.focused is table
        await pilot.press("down")
        await wait_until(
            pilot, lambda: shown(screen) == ODD
        )  # the other unfiled note: the arrows still work


async def test_enter_goes_into_links_highlighted_and_escape_backs_out(palace: Path) -> None:
    """Enter on a note: the links list has the focus with its first link highlighted, and a
    second Enter opens it; Enter on the note's body goes into the links too; Escape backs out
    one level at a time (links, notes, rooms)."""
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await rooms_of(pilot)
        await open_in(pilot, screen, HUB)
        notes = screen.query_one("#rooms-notes")
        links = screen.query_one("#note-links", OptionList)
        notes.focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.focused is links)
        assert links.highlighted is not None
        first = links.get_option_at_index(links.highlighted)
        assert not first.disabled and first.id is not None
        await pilot.press("enter")
        await wait_until(pilot, lambda: shown(screen) == first.id.split(":", 1)[1])
        await pilot.press("escape")
        await wait_until(pilot, lambda: screen.focused is notes)
        await pilot.press("escape")
        await wait_until(pilot, lambda: screen.focused is screen.query_one("#rooms-list"))
        await open_in(pilot, screen, HUB)
        screen.query_one(NoteView).focus()  # where Tab stops after the notes
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.focused is links)
