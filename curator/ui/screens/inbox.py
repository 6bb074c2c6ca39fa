"""Inbox: drafts newest first; the selected draft beside its duplicate candidates and a diff."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, OptionList, Static
from textual.widgets.option_list import Option

from curator.model.note import Note
from curator.model.palace import Palace
from curator.model.text import has_escapes
from curator.ui import lookup
from curator.ui.safe import plain
from curator.ui.screens.base import PalaceScreen
from curator.ui.widgets.candidate_diff import CandidateDiff
from curator.ui.widgets.dialogs import AskDialog, EditDialog
from curator.ui.widgets.footer import KeyFooter
from curator.ui.widgets.promote_form import PromoteForm
from curator.writer.secrets import scan

_MARKUPISH = re.compile(r"\[\s*(?:/|@|[A-Za-z#])[^\]\n]*\]")


def draft_age(note: Note, today: date) -> str:
    try:
        created = date.fromisoformat(note.created[:10])
    except ValueError:
        return "?"
    days = (today - created).days
    return "today" if days <= 0 else f"{days}d"


def draft_source(note: Note) -> str:
    source = note.header.get("source")
    if isinstance(source, dict):
        for key in ("session", "run", "file"):
            if source.get(key):
                return str(source[key])
        return ""
    return str(source or "")


def newest_first(drafts: list[Note]) -> list[Note]:
    return sorted(drafts, key=lambda n: (n.created, n.rel), reverse=True)


def warnings(note: Note) -> Text:
    out = Text()
    for finding in note.problems:
        out.append_text(plain(f"! {finding.message}", "yellow"))
        out.append("\n")
    for hit in scan(note.text):
        out.append_text(
            plain(f"! possible secret: {hit.kind} on line {hit.line} ({hit.preview})", "bold red")
        )
        out.append("\n")
    if has_escapes(note.text):
        out.append("! terminal escapes or control characters removed for display\n", "red")
    if _MARKUPISH.search(note.text):
        out.append("! contains markup-like text (shown literally, never run)\n", "yellow")
    return out


class InboxScreen(PalaceScreen):
    MAIN = "#inbox-drafts"
    BINDINGS = [
        Binding("p", "promote", "Promote", id="inbox.promote", tooltip="Promote into the palace"),
        Binding("x", "reject", "Reject", id="inbox.reject", tooltip="Reject with a reason"),
        Binding("e", "edit", "Edit", id="inbox.edit", tooltip="Edit the draft's text"),
        Binding("m", "merge", "Merge", id="inbox.merge", tooltip="Merge into the candidate"),
        Binding(
            "s",
            "supersede",
            "Supersede",
            id="inbox.supersede",
            tooltip="Replace the candidate note with this draft",
        ),
        Binding(
            "right_square_bracket",
            "candidate(1)",
            "Next cand.",
            id="inbox.next_candidate",
            tooltip="Diff against the next candidate",
        ),
        Binding(
            "left_square_bracket",
            "candidate(-1)",
            "Prev cand.",
            id="inbox.prev_candidate",
            tooltip="Diff against the previous candidate",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.drafts: list[Note] = []
        self.candidates: list[lookup.Found] = []
        self.candidate_index = 0
        self.selected: str | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="inbox-main"):
            table: DataTable[Any] = DataTable(id="inbox-drafts", cursor_type="row")
            table.loading = True
            yield table
            with Vertical(id="inbox-detail"):
                yield Static(Text(), id="inbox-warnings")
                yield OptionList(id="inbox-candidates")
                yield CandidateDiff(id="inbox-diff")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.sub_title = "Inbox"
        table = self.query_one("#inbox-drafts", DataTable)
        table.add_column("Age", key="age", width=5)
        table.add_column("Source", key="source", width=12)
        table.add_column("Draft", key="name")
        table.border_title = "Inbox"
        self.query_one("#inbox-candidates", OptionList).border_title = "Duplicate candidates"
        self.sync()

    # -- drawing -------------------------------------------------------------------------------
    def palace_changed(self, palace: Palace) -> None:
        table = self.query_one("#inbox-drafts", DataTable)
        table.loading = False
        keep = self.selected
        self.drafts = newest_first(list(palace.drafts))
        table.clear()
        today = self.curator.today
        for note in self.drafts:
            table.add_row(
                Text(draft_age(note, today)),
                plain(draft_source(note), "dim", limit=12),
                plain(note.name or note.rel),
                key=note.rel,
            )
        table.border_title = f"Inbox ({len(self.drafts)})"
        rels = [n.rel for n in self.drafts]
        if keep in rels:
            table.move_cursor(row=rels.index(keep), animate=False)
        self.show_draft(self.current())

    def current(self) -> Note | None:
        table = self.query_one("#inbox-drafts", DataTable)
        if not self.drafts or table.cursor_row < 0 or table.cursor_row >= len(self.drafts):
            return None
        return self.drafts[table.cursor_row]

    @on(DataTable.RowHighlighted, "#inbox-drafts")
    def _row(self, _event: DataTable.RowHighlighted) -> None:
        self.show_draft(self.current())

    def show_draft(self, draft: Note | None) -> None:
        if draft is not None and draft.rel == self.selected and self.candidates:
            self._show_candidate()
            return
        self.selected = draft.rel if draft else None
        self.candidates = []
        self.candidate_index = 0
        self.query_one("#inbox-warnings", Static).update(warnings(draft) if draft else Text())
        self.query_one("#inbox-candidates", OptionList).clear_options()
        self._show_candidate()
        if draft is not None and self.palace is not None:
            self.find_candidates(draft)

    @work(thread=True, exclusive=True, group="dupes", exit_on_error=False)
    def find_candidates(self, draft: Note) -> None:
        palace = self.palace  # not an argument (see CuratorApp._index_job)
        if palace is None:
            return
        found = lookup.dupes(palace, draft)
        self.app.call_from_thread(self._got_candidates, draft.rel, found)

    def _got_candidates(self, rel: str, found: list[lookup.Found]) -> None:
        if rel != self.selected:
            return
        self.candidates = found
        self.candidate_index = 0
        options = self.query_one("#inbox-candidates", OptionList)
        options.clear_options()
        for c in found:
            prompt = Text(f"{c.score:.2f} ", style="cyan").append_text(plain(c.name))
            options.add_option(Option(prompt, id=c.path))
        if found:
            options.highlighted = 0
        self._show_candidate()

    def _show_candidate(self) -> None:
        draft = self.find(self.selected)
        diff = self.query_one(CandidateDiff)
        if draft is None:
            diff.show("", None)
            return
        candidate = self.chosen()
        note = self.find(candidate.path) if candidate else None
        title = plain(f"candidate: {note.name}", "bold") if note else None
        diff.show(draft.body, note.body if note else None, title)

    def chosen(self) -> lookup.Found | None:
        if not self.candidates:
            return None
        return self.candidates[self.candidate_index % len(self.candidates)]

    @on(OptionList.OptionHighlighted, "#inbox-candidates")
    def _candidate(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_index is not None and event.option_index < len(self.candidates):
            self.candidate_index = event.option_index
            self._show_candidate()

    def action_candidate(self, step: int) -> None:
        if self.candidates:
            index = (self.candidate_index + step) % len(self.candidates)
            self.query_one("#inbox-candidates", OptionList).highlighted = index

    # -- actions -------------------------------------------------------------------------------
    def _draft(self) -> Note | None:
        draft = self.current()
        if draft is None:
            self.notify("No draft selected", severity="warning", markup=False)
        return draft

    def action_promote(self) -> None:
        draft = self._draft()
        if draft is None or self.palace is None:
            return

        def chosen(fields: dict[str, Any] | None) -> None:
            if fields is not None:
                self.curator.run_plan(lambda p: _planners().plan_promote(p, draft.rel, **fields))

        self.app.push_screen(PromoteForm(self.palace, draft), chosen)

    def action_reject(self) -> None:
        draft = self._draft()
        if draft is None:
            return

        def reason(text: str | None) -> None:
            if text:
                self.curator.run_plan(lambda p: _planners().plan_reject(p, draft.rel, text))

        self.app.push_screen(AskDialog("Reject this draft: why?"), reason)

    def action_edit(self) -> None:
        draft = self._draft()
        if draft is None:
            return

        def edited(text: str | None) -> None:
            if text is not None and text != draft.text:
                data = text.encode("utf-8")
                self.curator.run_plan(lambda p: _planners().plan_edit(p, draft.rel, data))

        self.app.push_screen(EditDialog(f"Edit {draft.rel}", draft.text), edited)

    def _candidate_note(self) -> lookup.Found | None:
        candidate = self.chosen()
        if candidate is None:
            self.notify("No candidate to act on", severity="warning", markup=False)
        return candidate

    def action_merge(self) -> None:
        draft = self._draft()
        candidate = self._candidate_note() if draft else None
        if draft is None or candidate is None:
            return

        self.curator.run_plan(lambda p: _planners().plan_merge_draft(p, draft.rel, candidate.path))

    def action_supersede(self) -> None:
        """Promote the draft (through the form) as the note that replaces the candidate."""
        draft = self._draft()
        candidate = self._candidate_note() if draft else None
        if draft is None or candidate is None or self.palace is None:
            return
        old = candidate.path

        def chosen(fields: dict[str, Any] | None) -> None:
            if fields is not None:
                self.curator.run_plan(
                    lambda p: _planners().plan_promote(p, draft.rel, supersedes=old, **fields)
                )

        self.app.push_screen(PromoteForm(self.palace, draft, supersedes=candidate.name), chosen)


def _planners() -> Any:
    from curator.ui.core import planners

    return planners()
