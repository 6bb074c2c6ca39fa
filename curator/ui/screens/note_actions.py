"""The note actions Rooms and Audit share, on the same keys: e edit, r reviewed, t retire,
s supersede (with a note picker); each on the marked notes when several are marked (one plan,
one commit), else on the selected one."""

from __future__ import annotations

from textual.binding import Binding

from curator.model.note import Note
from curator.ui import services
from curator.ui.screens.base import PalaceScreen
from curator.ui.widgets.dialogs import AskDialog, NotePicker
from curator.ui.widgets.table import Table, mark_cell

NOTE_BINDINGS = [
    Binding("e", "edit", "Edit", id="note.edit", tooltip="Edit the note"),
    Binding("r", "reviewed", "Reviewed", id="note.reviewed", tooltip="Mark reviewed today"),
    Binding("s", "supersede", "Supersede", id="note.supersede", tooltip="Superseded by a note"),
    Binding("t", "retire", "Retire", id="note.retire", tooltip="Retire with a reason"),
    Binding("space", "mark", "Mark", id="note.mark", tooltip="Mark for a bulk action"),
]


class NoteActions(PalaceScreen):
    TABLE = ""  # the notes table's selector
    marked: set[str]

    def selected(self) -> Note | None:
        raise NotImplementedError

    def _note(self) -> Note | None:
        note = self.selected()
        if note is None:
            self.notify("No note selected", severity="warning", markup=False)
        return note

    def targets(self) -> list[str]:
        if self.marked:
            return sorted(self.marked)
        note = self._note()
        return [note.rel] if note else []

    def action_mark(self) -> None:
        note = self.selected()
        if note is None:
            return
        table = self.query_one(self.TABLE, Table)
        on = note.rel not in self.marked
        if on:
            self.marked.add(note.rel)
        else:
            self.marked.discard(note.rel)
        table.update_cell(note.rel, "mark", mark_cell(on))
        table.action_cursor_down()

    def _bulk(self, action: str, rels: list[str], build: object, reason: str) -> None:
        self.marked.clear()
        self.curator.run_plan(
            lambda p: services.plan_bulk(p, action, rels, build, reason)  # type: ignore[arg-type]
        )

    def action_edit(self) -> None:
        note = self._note()
        if note is not None:
            self.curator.edit_then_plan(note.rel, note.text)

    def action_reviewed(self) -> None:
        rels = self.targets()
        if rels:
            self._bulk("review", rels, services.plan_review, "Reviewed.")

    def action_retire(self) -> None:
        rels = self.targets()
        if not rels:
            return

        def reason(text: str | None) -> None:
            if text:
                self._bulk("retire", rels, lambda p, r: services.plan_retire(p, r, text), text)

        what = "this note" if len(rels) == 1 else f"{len(rels)} notes"
        self.app.push_screen(AskDialog(f"Retire {what}: why?"), reason)

    def action_supersede(self) -> None:
        note = self._note()
        palace = self.palace
        if note is None or palace is None:
            return

        def picked(ref: str | None) -> None:
            if ref:
                self.curator.run_plan(lambda p: services.plan_supersede(p, note.rel, ref))

        find = lambda query: [  # noqa: E731
            n for n in services.notes_named(palace, query) if n.rel != note.rel
        ]
        self.app.push_screen(NotePicker("Superseded by which note?", find), picked)
