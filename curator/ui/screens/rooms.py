"""Rooms: the taxonomy with counts (and Unfiled), each room's notes with confidence and badges,
one note with its links; edit, review, retire and supersede from here (the Audit keys)."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import DataTable, OptionList
from textual.widgets.option_list import Option

from curator.model.note import Note
from curator.model.palace import Palace
from curator.ui.safe import badges, plain
from curator.ui.screens.base import note_words
from curator.ui.screens.note_actions import NOTE_BINDINGS, NoteActions
from curator.ui.widgets.list_filter import ListFilter
from curator.ui.widgets.note_view import NoteView
from curator.ui.widgets.options import Options
from curator.ui.widgets.table import Row, Table

SUPERSEDED = "_superseded"
UNFILED = "_unfiled"


def room_label(count: int, name: str, style: str) -> Text:
    """The count first, then the name: a narrow list cuts the name (…), never the count."""
    label = Text(f"{count:>3} ", style="cyan", no_wrap=True, overflow="ellipsis")
    return label.append_text(plain(name, style))


class RoomsScreen(NoteActions):
    MODE = "rooms"
    MAIN = "#rooms-notes"
    TABLE = "#rooms-notes"
    BINDINGS = [
        *NOTE_BINDINGS,
        # priority: the lists' own Enter would otherwise hide this binding from the footer
        Binding(
            "enter", "open", "Open", id="rooms.open", tooltip="Open the room or note", priority=True
        ),
        Binding("backspace", "back", "Back", id="rooms.back", tooltip="Back to the list"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.room: str | None = None
        self.notes: list[Note] = []
        self.history: list[str] = []

    def body(self) -> ComposeResult:
        with Horizontal(id="rooms-main"):
            yield Options(id="rooms-list")
            yield self.notes_table()
            yield NoteView(id="rooms-note", today=self.curator.today)
        yield ListFilter("#rooms-notes", id="rooms-filter")

    def on_mount(self) -> None:
        self.query_one("#rooms-list").border_title = "Rooms"
        table = self.query_one("#rooms-notes", Table)
        table.border_title = "Notes"
        table.add_fixed(" ", "mark", 1)
        table.add_fixed("Conf.", "conf", 4)
        table.add_fitted("Flags", "flags", 9)
        table.add_flex("Note")
        table.sortable = ("conf", "flags", "name")

    def list_title(self) -> str:
        """The room's whole label (the list beside may have cut it) and its count."""
        name = self.room or ""
        room = "Unfiled" if name == UNFILED else "Superseded" if name == SUPERSEDED else name
        palace = self.palace
        found = palace.room(name) if palace is not None else None
        spec = found.spec if found is not None else None
        label = spec.room if spec is not None and spec.room else room
        shown = len(self.query_one("#rooms-notes", Table).shown)
        count = f"{shown} of {len(self.notes)}" if shown != len(self.notes) else str(shown)
        return f"{label} ({count})"

    def unfiled(self, palace: Palace) -> list[Note]:
        return palace.unfiled()

    def palace_changed(self, palace: Palace) -> None:
        rooms = self.query_one("#rooms-list", OptionList)
        keep = self.room
        rooms.clear_options()
        for room in palace.rooms():
            name = room.spec.room or room.spec.name
            rooms.add_option(Option(room_label(len(room.notes), name, "bold"), id=room.spec.name))
        unfiled = self.unfiled(palace)
        ids = [r.spec.name for r in palace.rooms()]
        if unfiled:
            rooms.add_option(Option(room_label(len(unfiled), "Unfiled", "italic"), id=UNFILED))
            ids.append(UNFILED)
        superseded = palace.superseded_notes()
        rooms.add_option(Option(room_label(len(superseded), "Superseded", "dim"), id=SUPERSEDED))
        ids.append(SUPERSEDED)
        # at first the first room with notes in it: an empty room shows nothing to work on
        filled = [r.spec.name for r in palace.rooms() if r.notes] + ([UNFILED] if unfiled else [])
        self.show_room(keep if keep in ids else (filled or ids)[0])
        view = self.query_one(NoteView)
        if view.note is not None:
            view.show(palace, palace.by_rel.get(view.note.rel))

    def show_room(self, name: str) -> None:
        palace = self.palace
        if palace is None:
            return
        self.room = name
        rooms = self.query_one("#rooms-list", OptionList)
        index = rooms.get_option_index(name)
        if rooms.highlighted != index:
            rooms.highlighted = index
        if name == SUPERSEDED:
            self.notes = palace.superseded_notes()
        elif name == UNFILED:
            self.notes = self.unfiled(palace)
        else:
            self.notes = room.notes if (room := palace.room(name)) is not None else []
        table = self.query_one("#rooms-notes", Table)
        today = self.curator.today
        self.marks.keep_only({n.rel for n in self.notes})
        rows = []
        for note in self.notes:
            confidence = palace.known_confidence(note)
            flags = palace.flags(note, today)
            cells = (
                Text(" –", style="dim")
                if confidence is None
                else Text(f"{confidence:.2f}", style="cyan"),
                badges(flags),
                plain(note.name or note.rel),
            )
            order = {
                "conf": -1.0 if confidence is None else confidence,
                "flags": (not flags, flags),
            }
            rows.append(Row(note.rel, cells, note_words(note), order))
        table.show(rows)
        self.show_title()
        if (
            not table.shown
        ):  # no row to highlight: the note of the room before must not stay on show
            self.query_one(NoteView).show(palace, None)

    @on(OptionList.OptionHighlighted, "#rooms-list")
    def _room(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_index != event.option_list.highlighted:
            return  # a highlight from before the room last changed
        if event.option.id and event.option.id != self.room:
            self.show_room(event.option.id)

    @on(OptionList.OptionSelected, "#rooms-list")
    def _room_chosen(self, _event: OptionList.OptionSelected) -> None:
        self.query_one("#rooms-notes").focus()

    @on(Table.Arranged, "#rooms-notes")
    def _arranged(self, _event: Table.Arranged) -> None:
        self.show_title()

    @on(DataTable.RowHighlighted, "#rooms-notes")
    def _note_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        # the row under the cursor now, as the other screens read it: an event posted before
        # the room's rows changed names a row of the room before
        rel = self.query_one("#rooms-notes", Table).current_key()
        view = self.query_one(NoteView)
        shown = view.note.rel if view.note is not None else None
        if self.palace is not None and rel and rel != shown:  # (a reload redraws it itself)
            self.history.clear()  # a note picked from the list starts a new trail
            view.show(self.palace, self.palace.by_rel.get(rel))
            self._show_trail()

    @on(DataTable.RowSelected, "#rooms-notes")
    def _note_chosen(self, _event: DataTable.RowSelected) -> None:
        self._show_the_note()
        self._into_links()

    def _show_the_note(self) -> None:
        """A note asked for is seen: wide mode (the list alone) ends."""
        self.app.set_class(False, "-wide")

    def _into_links(self) -> None:
        if not self.query_one(NoteView).into_links():  # keys in a list out of sight: say why
            self.notify("This note has no links or backlinks to open", markup=False)

    @on(NoteView.Navigate)
    def _navigate(self, event: NoteView.Navigate) -> None:
        current = self.query_one(NoteView).note
        if current is not None:
            self.history.append(current.rel)
        self.open_note(event.rel, trail=True)

    def open_note(self, rel: str, *, trail: bool = False) -> None:
        """Show the note in its room; `trail`: reached along a link (or back), so the links
        followed so far stay the breadcrumb, else it starts a new one."""
        if not trail:
            self.history.clear()
        self._show_the_note()
        self.sync()
        palace = self.palace
        note = palace.by_rel.get(rel) if palace else None
        if palace is None or note is None:
            self.notify(f"No such note: {rel}", severity="warning", markup=False)
            return
        room = SUPERSEDED if note.superseded else note.type
        if not note.superseded and note in self.unfiled(palace):
            room = UNFILED
        if room != self.room:
            self.show_room(room)
        table = self.query_one("#rooms-notes", Table)
        if rel not in table.shown and table.filter_text:
            table.action_unfilter()  # the note asked for is in the room: show it
        if rel in table.shown:
            table.move_cursor(row=table.shown.index(rel), animate=False)
        self.query_one(NoteView).show(palace, note)
        self._show_trail()

    def _show_trail(self) -> None:
        palace = self.palace
        by_rel = palace.by_rel if palace is not None else {}
        names = [by_rel[rel].name if rel in by_rel else rel for rel in self.history]
        self.query_one(NoteView).show_trail(names)

    def action_open(self) -> None:
        """Enter on a list chooses its highlighted entry (room, note or link); on the filter
        line it goes back to the notes, the filter kept."""
        focused = self.focused
        if isinstance(focused, ListFilter):
            focused.action_done()
        elif isinstance(focused, OptionList):
            focused.action_select()
        elif isinstance(focused, DataTable):
            focused.action_select_cursor()
        elif focused is not None:  # the note's body: Enter goes on into its links
            self._into_links()

    def action_back_out(self) -> None:
        """Escape: one level back, from the note's links (or body) to the notes, from the
        marked notes to none marked, from the notes to the rooms."""
        focused = self.focused
        notes = self.query_one("#rooms-notes", Table)
        if focused is notes and self.marked:
            self.action_unmark_all()
        elif focused is notes:
            self.query_one("#rooms-list").focus()
        elif focused is not None and focused is not self.query_one("#rooms-list"):
            notes.focus()

    def action_back(self) -> None:
        if self.history:
            self.open_note(self.history.pop(), trail=True)
        else:
            self.query_one("#rooms-list").focus()
