"""The note actions Rooms and Audit share, on the same keys: e edit, r reviewed, t retire,
s supersede (with a note picker); review and retire on the marked notes when several are
marked (one plan, one commit), else on the selected one. Marks as in the Inbox: space,
shift+arrows, * for every listed note with the same flags."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import work
from textual.binding import Binding

from curator.model.note import Note
from curator.ui import services
from curator.ui.safe import plain
from curator.ui.screens.marks import Marked, mark_bindings
from curator.ui.widgets.dialogs import AskDialog, NotePicker
from curator.ui.widgets.table import Table

#: the actions on one note (Search has these: its results are one note at a time)
NOTE_KEYS = [
    Binding("e", "edit", "Edit", id="note.edit", tooltip="Edit the note"),
    Binding("r", "reviewed", "Reviewed", id="note.reviewed", tooltip="Mark reviewed today"),
    Binding("s", "supersede", "Supersede", id="note.supersede", tooltip="Superseded by a note"),
    Binding("t", "retire", "Retire", id="note.retire", tooltip="Retire with a reason"),
]
#: and the marks, where notes are listed in a table (Rooms, Audit)
NOTE_BINDINGS = [
    *NOTE_KEYS,
    *mark_bindings("note", "note", "Mark every listed note with the same flags"),
]


class NoteActions(Marked):
    TABLE = ""  # the notes table's selector (the marks are in its "mark" column)
    marked: set[str]

    def selected(self) -> Note | None:
        """The note on the table's cursor row."""
        return Marked.mark_current(self)

    def listed(self) -> list[Note]:
        """The notes the table shows, in its order."""
        return Marked.mark_rows(self)

    def shown_flags(self, note: Note) -> list[str]:
        """The flags the table shows for `note` (what "all like this" compares)."""
        palace = self.palace
        return palace.flags(note, self.curator.today) if palace is not None else []

    def list_title(self) -> str:
        """The table's title without the marks."""
        raise NotImplementedError

    def show_title(self) -> None:
        table = self.query_one(self.TABLE, Table)
        marks = f" · {len(self.marked)} marked" if self.marked else ""
        table.border_title = plain(self.list_title() + marks)  # a room's name is not markup

    def _note(self) -> Note | None:
        note = self.selected()
        if note is None:
            self.notify("No note selected", severity="warning", markup=False)
        return note

    def targets(self, verb: str) -> list[str]:
        """The marked notes (in list order), else the selected one."""
        if not self.marked:
            self._note()  # says why, when none is selected
        return self.marked_or_current(verb)

    # -- marks (curator/ui/screens/marks.py) --------------------------------------------------
    def mark_table(self) -> Table:
        return self.query_one(self.TABLE, Table)

    def mark_current(self) -> Note | None:
        return self.selected()  # (Search's results are not a Table)

    def mark_rows(self) -> list[Note]:
        return self.listed()

    def alike(self, one: Note, other: Note) -> bool:
        return self.shown_flags(other) == self.shown_flags(one)

    def marks_changed(self) -> None:
        self.show_title()

    # -- actions -------------------------------------------------------------------------------
    @work(group="bulk", exit_on_error=False)
    async def _bulk(
        self, action: str, rels: list[str], build: Callable[..., Any], why: str
    ) -> None:
        """One plan for `rels`; their marks go once it is committed (kept when cancelled: the
        reviewer sees what the next key acts on)."""
        worker = self.curator.run_plan(*services.bulk_plan(action, rels, build, why))
        try:
            committed = await worker.wait() is not None
        except Exception:  # the app reported it (CuratorApp.error)
            return
        if committed:
            for rel in rels:
                self._set_mark(rel, False)
            self.show_title()

    def action_edit(self) -> None:
        note = self._note()
        if note is not None:
            self.one_row("Edit")
            self.curator.edit_then_plan(note.rel, note.text)

    def action_reviewed(self) -> None:
        rels = self.targets("Mark reviewed")
        if rels:
            self._bulk("review", rels, services.plan_review, "Reviewed.")

    def action_retire(self) -> None:
        rels = self.targets("Retire")
        if not rels:
            return

        def reason(text: str | None) -> None:
            if text:
                self._bulk("retire", rels, lambda p, r: services.plan_retire(p, r, text), text)

        what = f"this note: why? ({self.name_of(rels[0])})"
        if len(rels) > 1:
            what = f"{len(rels)} marked notes: why?"
        self.app.push_screen(AskDialog(f"Retire {what}"), reason)

    def action_supersede(self) -> None:
        note = self._note()
        palace = self.palace
        if note is None or palace is None:
            return
        self.one_row("Supersede")

        def picked(ref: str | None) -> None:
            if ref:
                self.curator.run_plan(lambda p: services.plan_supersede(p, note.rel, ref))

        find = lambda query: [  # noqa: E731
            n for n in services.notes_named(palace, query) if n.rel != note.rel
        ]
        self.app.push_screen(NotePicker("Superseded by which note?", find), picked)
