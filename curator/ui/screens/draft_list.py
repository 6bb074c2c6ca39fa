"""The inbox's list of drafts: which draft the cursor is on, the title with its counts, and
the marks for bulk actions (space, shift+arrows, * for all like this)."""

from __future__ import annotations

from curator.model.note import Note
from curator.ui.screens.drafts import draft_source
from curator.ui.screens.marks import Marked
from curator.ui.widgets.table import Table


class DraftList(Marked):
    """The draft table of the Inbox (`#inbox-drafts`) and the marks on its rows."""

    WHAT = "draft"

    def __init__(self) -> None:
        super().__init__()
        self.drafts: list[Note] = []  # every draft listed (the filter may show fewer)
        self.listed: list[str] | None = None  # their rels, in their order
        self.new_count = 0
        self.marked: set[str] = set()

    def _title(self) -> None:
        table = self.query_one("#inbox-drafts", Table)
        shown = len(table.shown)
        count = f"{shown} of {len(self.drafts)}" if shown != len(self.drafts) else str(shown)
        title = f"Inbox ({count})"
        if self.marked:
            title += f" · {len(self.marked)} marked"
        if self.new_count:
            title += f" · {self.new_count} new: ctrl+r"
        table.border_title = title

    def current(self) -> Note | None:
        return self.mark_current()

    def _draft(self) -> Note | None:
        draft = self.current()
        if draft is None:
            self.notify("No draft selected: the inbox is empty", severity="warning", markup=False)
        return draft

    # -- marks (curator/ui/screens/marks.py) --------------------------------------------------
    def mark_table(self) -> Table:
        return self.query_one("#inbox-drafts", Table)

    def alike(self, one: Note, other: Note) -> bool:
        """From the same source (of the same type when the draft names none)."""
        source = draft_source(one)
        return draft_source(other) == source if source else other.type == one.type

    def marks_changed(self) -> None:
        self._title()

    def _targets(self, verb: str) -> list[str]:
        """The marked drafts (in list order), else the selected one."""
        if not self.marked:
            self._draft()  # says why, when none is selected
        return self.marked_or_current(verb)
