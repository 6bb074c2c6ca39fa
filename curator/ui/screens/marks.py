"""Marks for bulk actions, one rule for every list (the Inbox's drafts, Rooms' and Audit's
notes): space toggles a row's mark and moves on, shift+arrows mark this row and the next, `*`
marks every listed row alike, U (or Escape) unmarks them all; an action then takes the marked
rows in list order, else the selected one, and says which before it asks anything."""

from __future__ import annotations

from textual.binding import Binding

from curator.model.note import Note
from curator.model.text import one_line
from curator.ui.screens.base import PalaceScreen
from curator.ui.widgets.table import Table, mark_cell


def mark_bindings(prefix: str, what: str, like: str) -> list[Binding]:
    """The four mark keys, with ids under `prefix` ('inbox', 'note') for keys.toml."""
    return [
        Binding("space", "mark", "Mark", id=f"{prefix}.mark", tooltip="Mark for a bulk action"),
        Binding(
            "shift+down",
            "mark_move(1)",
            "Mark ↓",
            id=f"{prefix}.mark_down",
            show=False,
            tooltip=f"Mark this {what} and the next",
        ),
        Binding(
            "shift+up",
            "mark_move(-1)",
            "Mark ↑",
            id=f"{prefix}.mark_up",
            show=False,
            tooltip=f"Mark this {what} and the one above",
        ),
        Binding(
            "U",
            "unmark_all",
            "Unmark all",
            id=f"{prefix}.unmark",
            show=False,
            tooltip=f"Unmark every {what} (Escape too)",
        ),
        Binding(
            "escape", "back_out", "Back", id=f"{prefix}.back", show=False, tooltip="One level back"
        ),
        Binding(
            "asterisk",
            "mark_like",
            "All like this",
            id=f"{prefix}.mark_like",
            show=False,
            tooltip=like,
        ),
    ]


def note_words(note: Note) -> str:
    """What `/` finds a listed note or draft by: its name, its path, its tags."""
    return " ".join([note.name, note.rel, *note.tags]).lower()


class Marked(PalaceScreen):
    """A screen with a marked list: subclasses say which table and what is alike."""

    marked: set[str]
    #: what the rows are, for "the 3 marked drafts"
    WHAT = "note"

    def mark_table(self) -> Table:
        raise NotImplementedError

    def mark_rows(self) -> list[Note]:
        """The rows listed (the filter shows), in their order."""
        table = self.mark_table()
        return [n for key in table.shown if (n := self.find(key)) is not None]

    def mark_current(self) -> Note | None:
        return self.find(self.mark_table().current_key())

    def alike(self, one: Note, other: Note) -> bool:
        """What `*` marks alike."""
        raise NotImplementedError

    def marks_changed(self) -> None:
        """The marks changed (the list's title counts them)."""

    def _set_mark(self, rel: str, on: bool) -> None:
        if on:
            self.marked.add(rel)
        else:
            self.marked.discard(rel)
        table = self.mark_table()
        if rel in table.rows:
            table.update_cell(rel, "mark", mark_cell(on))

    def action_mark(self) -> None:
        row = self.mark_current()
        if row is not None:
            self._set_mark(row.rel, row.rel not in self.marked)
            self.marks_changed()
            self.mark_table().action_cursor_down()

    def action_mark_move(self, step: int) -> None:
        row = self.mark_current()
        if row is None:
            return
        table = self.mark_table()
        self._set_mark(row.rel, True)
        if step > 0:
            table.action_cursor_down()
        else:
            table.action_cursor_up()
        after = self.mark_current()
        if after is not None:
            self._set_mark(after.rel, True)
        self.marks_changed()

    def action_mark_like(self) -> None:
        row = self.mark_current()
        if row is None:
            return
        for other in self.mark_rows():
            if self.alike(row, other):
                self._set_mark(other.rel, True)
        self.marks_changed()

    def action_unmark_all(self) -> None:
        for rel in list(self.marked):
            self._set_mark(rel, False)
        self.marks_changed()

    def action_back_out(self) -> None:
        """Escape: the marks go first (the list and the cursor stay)."""
        if self.marked:
            self.action_unmark_all()

    def marked_or_current(self, verb: str = "") -> list[str]:
        """The marked rows (in list order, the ones the filter hides too), else the selected
        one (None selected: []). With `verb`, says which before the action asks anything."""
        if not self.marked:
            row = self.mark_current()
            return [row.rel] if row is not None else []
        rels = [r.key for r in self.mark_table().rows_all if r.key in self.marked]
        if verb:
            self.say_targets(verb, rels)
        return rels

    def say_targets(self, verb: str, rels: list[str]) -> None:
        names = [self.name_of(rel) for rel in rels]
        listed = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        what = self.WHAT if len(rels) == 1 else f"{self.WHAT}s"
        self.notify(f"{verb} the {len(rels)} marked {what}: {listed}", markup=False)

    def one_row(self, verb: str) -> None:
        """An action on the cursor row only, with marks set: say so (the marks stay)."""
        row = self.mark_current()
        if self.marked and row is not None:
            what = f"{self.WHAT}s stay" if len(self.marked) > 1 else f"{self.WHAT} stays"
            self.notify(
                f"{verb} the cursor row only: {self.name_of(row.rel)} (the {len(self.marked)} "
                f"marked {what} marked)",
                markup=False,
            )

    def name_of(self, rel: str) -> str:
        note = self.find(rel)
        return one_line((note.name if note is not None else "") or rel, 60)
