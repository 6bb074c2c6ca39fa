"""The inbox's list of drafts: which draft the cursor is on, the title with its counts, and
the marks for bulk actions (space, shift+arrows, * for all like this)."""

from __future__ import annotations

from curator.model.note import Note
from curator.ui.screens.base import PalaceScreen
from curator.ui.screens.drafts import draft_source
from curator.ui.widgets.table import Table, mark_cell


class DraftList(PalaceScreen):
    """The draft table of the Inbox (`#inbox-drafts`) and the marks on its rows."""

    def __init__(self) -> None:
        super().__init__()
        self.drafts: list[Note] = []
        self.listed: list[str] | None = None  # the rels shown, in their order
        self.new_count = 0
        self.marked: set[str] = set()

    def _title(self) -> None:
        title = f"Inbox ({len(self.drafts)})"
        if self.marked:
            title += f" · {len(self.marked)} marked"
        if self.new_count:
            title += f" · {self.new_count} new: ctrl+r"
        self.query_one("#inbox-drafts", Table).border_title = title

    def current(self) -> Note | None:
        table = self.query_one("#inbox-drafts", Table)
        if not self.drafts or not 0 <= table.cursor_row < len(self.drafts):
            return None
        return self.drafts[table.cursor_row]

    def _draft(self) -> Note | None:
        draft = self.current()
        if draft is None:
            self.notify("No draft selected: the inbox is empty", severity="warning", markup=False)
        return draft

    # -- marks ---------------------------------------------------------------------------------
    def _set_mark(self, rel: str, on: bool) -> None:
        if on:
            self.marked.add(rel)
        else:
            self.marked.discard(rel)
        self.query_one("#inbox-drafts", Table).update_cell(rel, "mark", mark_cell(on))
        self._title()

    def action_mark(self) -> None:
        draft = self.current()
        if draft is not None:
            self._set_mark(draft.rel, draft.rel not in self.marked)
            self.query_one("#inbox-drafts", Table).action_cursor_down()

    def action_mark_move(self, step: int) -> None:
        table = self.query_one("#inbox-drafts", Table)
        draft = self.current()
        if draft is None:
            return
        self._set_mark(draft.rel, True)
        if step > 0:
            table.action_cursor_down()
        else:
            table.action_cursor_up()
        after = self.current()
        if after is not None:
            self._set_mark(after.rel, True)

    def action_mark_like(self) -> None:
        """Mark every draft from the same source as this one (same type when it has none)."""
        draft = self.current()
        if draft is None:
            return
        source = draft_source(draft)
        for other in self.drafts:
            same = draft_source(other) == source if source else other.type == draft.type
            if same:
                self._set_mark(other.rel, True)

    def _targets(self) -> list[str]:
        """The marked drafts (in list order), else the selected one."""
        if self.marked:
            return [rel for rel in self.listed or [] if rel in self.marked]
        draft = self._draft()
        return [draft.rel] if draft else []
