"""The note actions Rooms and Audit share, on the same keys: e edit, r reviewed, t retire,
s supersede (with a note picker); review and retire on the marked notes when several are
marked (one plan, one commit), else on the selected one. Marks as in the Inbox: space,
shift+arrows, * for every listed note with the same flags."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import on, work
from textual.binding import Binding

from curator.model.note import Note
from curator.ui import services
from curator.ui.safe import plain
from curator.ui.screens.base import PalaceScreen
from curator.ui.widgets.dialogs import AskDialog, NotePicker
from curator.ui.widgets.marked_table import MarkedTable, mark_bindings

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


class NoteActions(PalaceScreen):
    """A screen of notes: its MarkedTable (`TABLE`; Search has none, its results are one note
    at a time) and the actions on the marked notes, else the selected one."""

    TABLE = ""  # the notes table's selector

    def notes_table(self) -> MarkedTable:
        """The screen's notes table, marks and all (`alike` compares the flags it shows)."""
        return MarkedTable(flex="name", id=self.TABLE[1:], alike=self._alike, name_of=self.name_of)

    def selected(self) -> Note | None:
        """The note on the table's cursor row."""
        return self.find(self.marks.current_key())

    def listed(self) -> list[Note]:
        """The notes the table shows, in its order."""
        return [n for key in self.marks.shown if (n := self.find(key)) is not None]

    def shown_flags(self, note: Note) -> list[str]:
        """The flags the table shows for `note` (what "all like this" compares)."""
        palace = self.palace
        return palace.flags(note, self.curator.today) if palace is not None else []

    def _alike(self, rel: str, other_rel: str) -> bool:
        one, other = self.find(rel), self.find(other_rel)
        return (
            one is not None
            and other is not None
            and self.shown_flags(other) == self.shown_flags(one)
        )

    def list_title(self) -> str:
        """The table's title without the marks."""
        raise NotImplementedError

    @on(MarkedTable.MarksChanged)
    def show_title(self) -> None:
        table = self.marks
        marks = f" · {len(table.marked)} marked" if table.marked else ""
        table.border_title = plain(self.list_title() + marks)  # a room's name is not markup

    def _note(self) -> Note | None:
        note = self.selected()
        if note is None:
            self.notify("No note selected", severity="warning", markup=False)
        return note

    def targets(self, verb: str) -> list[str]:
        """The marked notes (in list order), else the selected one."""
        if not self.marked:
            note = self._note()  # says why, when none is selected
            return [note.rel] if note is not None else []
        return self.marks.targets(verb)

    def one_row(self, verb: str) -> None:
        if self.marked:
            self.marks.one_row(verb)

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
        if committed and self.marked:
            self.marks.unmark(rels)

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
        session = self.curator.session

        def near() -> list[Note]:
            # (a sensitive note's neighbours are not looked up: dupes refuses, the list stays)
            found = services.dupes(session, palace, note)
            return [palace.by_rel[f.path] for f in found if f.path in palace.by_rel]

        picker = NotePicker("Superseded by which note?", find, near)
        self.app.push_screen(picker, picked)
