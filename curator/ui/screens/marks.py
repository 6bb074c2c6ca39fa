"""Marks for bulk actions, one rule for every list (the Inbox's drafts, Rooms' and Audit's
notes): space toggles a row's mark and moves on, shift+arrows mark this row and the next, `*`
marks every listed row alike; an action then takes the marked rows in list order, else the
selected one."""

from __future__ import annotations

from textual.binding import Binding

from curator.model.note import Note
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
            "asterisk",
            "mark_like",
            "All like this",
            id=f"{prefix}.mark_like",
            show=False,
            tooltip=like,
        ),
    ]


class Marked(PalaceScreen):
    """A screen with a marked list: subclasses say which table, rows, row and likeness."""

    marked: set[str]

    def mark_table(self) -> Table:
        raise NotImplementedError

    def mark_rows(self) -> list[Note]:
        """The rows listed, in their order."""
        raise NotImplementedError

    def mark_current(self) -> Note | None:
        raise NotImplementedError

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

    def marked_or_current(self) -> list[str]:
        """The marked rows (in list order), else the selected one (None selected: [])."""
        if self.marked:
            return [n.rel for n in self.mark_rows() if n.rel in self.marked]
        row = self.mark_current()
        return [row.rel] if row is not None else []
