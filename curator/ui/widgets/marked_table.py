"""A list table whose rows can be marked for a bulk action, one rule for every list (the
Inbox's drafts, Rooms' and Audit's notes): space toggles a row's mark and moves on,
shift+arrows mark this row and the next, `*` marks every listed row alike, U (or Escape)
unmarks them all; an action then takes the marked rows in list order, else the selected one,
and says which before it asks anything. The table posts `MarksChanged` when its marks change;
the screen binds the keys (`mark_bindings`) and its actions call the table."""

from __future__ import annotations

from collections.abc import Callable

from textual.binding import Binding
from textual.message import Message

from curator.ui.widgets.table import Table, mark_cell


def mark_bindings(prefix: str, what: str, like: str) -> list[Binding]:
    """The mark keys, with ids under `prefix` ('inbox', 'note') for keys.toml."""
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


class MarkedTable(Table):
    """A list table with marks (its "mark" column shows them). `alike(key, other)` says what
    `*` marks with the cursor row; `name_of(key)` names a row in what the table says."""

    class MarksChanged(Message):
        """Rows were marked or unmarked (a list's title counts them)."""

        def __init__(self, table: MarkedTable) -> None:
            super().__init__()
            self.table = table

        @property
        def control(self) -> MarkedTable:
            return self.table

    def __init__(
        self,
        *,
        flex: str,
        id: str | None = None,
        what: str = "note",
        alike: Callable[[str, str], bool] = lambda _key, _other: False,
        name_of: Callable[[str], str] = str,
    ) -> None:
        super().__init__(flex=flex, id=id)
        self.marked: set[str] = set()
        self.what = what  # what the rows are, for "the 3 marked drafts"
        self.alike = alike
        self.name_of = name_of
        self.is_marked = lambda key: key in self.marked

    def _set(self, key: str, on: bool) -> None:
        if on:
            self.marked.add(key)
        else:
            self.marked.discard(key)
        if key in self.rows:
            self.update_cell(key, "mark", mark_cell(on))

    def mark(self, keys: list[str] | set[str]) -> None:
        """Mark these rows (a script's or a group's marks, as if each were marked by hand)."""
        for key in keys:
            self._set(key, True)
        self._changed()

    def _changed(self) -> None:
        self.post_message(self.MarksChanged(self))

    def toggle(self) -> None:
        """Mark the cursor row (unmark it when marked), then move down."""
        key = self.current_key()
        if key is not None:
            self._set(key, key not in self.marked)
            self._changed()
            self.action_cursor_down()

    def mark_move(self, step: int) -> None:
        """Mark the cursor row and the one `step` away, and move there."""
        key = self.current_key()
        if key is None:
            return
        self._set(key, True)
        if step > 0:
            self.action_cursor_down()
        else:
            self.action_cursor_up()
        after = self.current_key()
        if after is not None:
            self._set(after, True)
        self._changed()

    def mark_like(self) -> None:
        """Mark every listed row alike to the cursor row."""
        key = self.current_key()
        if key is None:
            return
        for other in self.shown:
            if self.alike(key, other):
                self._set(other, True)
        self._changed()

    def unmark(self, keys: list[str] | None = None) -> None:
        """Unmark `keys` (None: every row)."""
        for key in list(self.marked) if keys is None else keys:
            self._set(key, False)
        self._changed()

    def keep_only(self, keys: set[str]) -> None:
        """Forget the marks of rows no longer listed (before the rows are shown anew)."""
        self.marked &= keys

    def targets(self, verb: str = "") -> list[str]:
        """The marked rows (in list order, the ones the filter hides too), else the cursor
        row (none: []). With `verb`, says which before the action asks anything."""
        if not self.marked:
            key = self.current_key()
            return [key] if key is not None else []
        keys = [r.key for r in self.rows_all if r.key in self.marked]
        if verb:
            names = [self.name_of(key) for key in keys]
            listed = ", ".join(names[:3])
            if len(names) > 3:
                listed += f" and {len(names) - 3} more"
            what = self.what if len(keys) == 1 else f"{self.what}s"
            self.notify(f"{verb} the {len(keys)} marked {what}: {listed}", markup=False)
        return keys

    def one_row(self, verb: str) -> None:
        """An action on the cursor row only, with marks set: say so (the marks stay)."""
        key = self.current_key()
        if self.marked and key is not None:
            count = len(self.marked)
            what = f"{self.what}s stay" if count > 1 else f"{self.what} stays"
            self.notify(
                f"{verb} the cursor row only: {self.name_of(key)} (the {count} marked {what} "
                "marked)",
                markup=False,
            )
