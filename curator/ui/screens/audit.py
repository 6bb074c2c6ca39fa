"""Audit: stale and due notes with reason and since-date; re-verify, review, edit, supersede,
retire; the audit itself runs in a worker with a progress bar."""

from __future__ import annotations

from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, ProgressBar

from curator.model.note import Note
from curator.model.palace import Palace
from curator.model.text import one_line
from curator.ui.safe import badges, plain
from curator.ui.screens.base import PalaceScreen
from curator.ui.widgets.dialogs import AskDialog, EditDialog
from curator.ui.widgets.footer import KeyFooter

WATCHED = ("stale", "due", "expired")


def reason_and_since(palace: Palace, note: Note, flags: list[str]) -> tuple[str, str]:
    if note.stale:
        return note.stale.get("reason", "stale"), note.stale.get("since", "")
    if "expired" in flags:
        return "expired", note.expires
    spec = palace.config.type_spec(note.type)
    every = f" (every {spec.review_after_days} days)" if spec else ""
    return f"due for review{every}", note.reviewed or note.created


class AuditScreen(PalaceScreen):
    MAIN = "#audit-table"
    BINDINGS = [
        Binding("v", "verify", "Re-verify", id="audit.verify", tooltip="Re-verify this note now"),
        Binding("r", "reviewed", "Reviewed", id="audit.reviewed", tooltip="Mark reviewed today"),
        Binding("e", "edit", "Edit", id="audit.edit", tooltip="Edit the note"),
        Binding(
            "s",
            "supersede",
            "Supersede",
            id="audit.supersede",
            tooltip="Supersede with another note",
        ),
        Binding("t", "retire", "Retire", id="audit.retire", tooltip="Retire with a reason"),
        Binding("A", "audit_all", "Run audit", id="audit.run", tooltip="Audit every note"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[Note] = []

    def compose(self) -> ComposeResult:
        yield ProgressBar(id="audit-progress", show_eta=False)
        table: DataTable[Any] = DataTable(id="audit-table", cursor_type="row")
        table.loading = True
        yield table
        yield KeyFooter()

    def on_mount(self) -> None:
        table = self.query_one("#audit-table", DataTable)
        table.border_title = "Stale and due"
        table.add_column("Flags", key="flags", width=18)
        table.add_column("Note", key="name")
        table.add_column("Reason", key="reason")
        table.add_column("Since", key="since", width=10)
        self.query_one(ProgressBar).display = False
        self.sync()

    def palace_changed(self, palace: Palace) -> None:
        table = self.query_one("#audit-table", DataTable)
        table.loading = False
        keep = self.selected()
        table.clear()
        today = self.curator.today
        self.rows = []
        for note in palace.notes:
            if note.superseded:
                continue  # replaced or retired: nothing left to review
            flags = palace.flags(note, today)
            if not any(f in WATCHED for f in flags):
                continue
            reason, since = reason_and_since(palace, note, flags)
            self.rows.append(note)
            table.add_row(
                badges([f for f in flags if f in WATCHED]),
                plain(note.name or note.rel),
                plain(reason, limit=60),
                plain(since[:10]),
                key=note.rel,
            )
        table.border_title = f"Stale and due ({len(self.rows)})"
        rels = [n.rel for n in self.rows]
        if keep is not None and keep.rel in rels:
            table.move_cursor(row=rels.index(keep.rel), animate=False)

    def selected(self) -> Note | None:
        table = self.query_one("#audit-table", DataTable)
        if not self.rows or not 0 <= table.cursor_row < len(self.rows):
            return None
        return self.rows[table.cursor_row]

    def _note(self) -> Note | None:
        note = self.selected()
        if note is None:
            self.notify("No note selected", severity="warning", markup=False)
        return note

    # -- audit runs ----------------------------------------------------------------------------
    def action_verify(self) -> None:
        note = self._note()
        if note is not None and self.palace is not None:
            self.run_audit([note])

    def action_audit_all(self) -> None:
        if self.palace is not None:
            self.run_audit(None)

    @work(thread=True, exclusive=True, group="audit", exit_on_error=False)
    def run_audit(self, notes: list[Note] | None) -> None:
        """Audit in this thread with a progress bar, then offer the stale changes as a plan.
        The palace is the app's when the audit starts, not an argument (see
        CuratorApp._index_job)."""
        from curator.audit.run import plan_audit
        from curator.audit.run import run_audit as audit

        palace = self.palace
        if palace is None:
            return

        bar = self.query_one(ProgressBar)
        total = len(notes) if notes is not None else len(palace.notes)
        self.app.call_from_thread(self._progress_start, total)

        def progress(done: int, total: int, *_: Any) -> None:
            self.app.call_from_thread(bar.update, progress=done, total=total)

        refs = [n.rel for n in notes] if notes is not None else None
        try:
            report = audit(palace, refs, today=self.curator.today, progress=progress)
            plan = plan_audit(palace, report, self.curator.today)
        except Exception as exc:
            self.app.call_from_thread(self.curator.error, exc)
            return
        finally:
            self.app.call_from_thread(self._progress_end)
        summary = one_line(report.summary(), 300)
        self.app.call_from_thread(self.notify, summary, markup=False, timeout=8)
        if plan is not None:
            self.app.call_from_thread(self.curator.run_plan, lambda _p: plan)

    def _progress_start(self, total: int) -> None:
        bar = self.query_one(ProgressBar)
        bar.update(total=total, progress=0)
        bar.display = True

    def _progress_end(self) -> None:
        self.query_one(ProgressBar).display = False

    # -- write actions -------------------------------------------------------------------------
    def action_reviewed(self) -> None:
        note = self._note()
        if note is not None:
            self.curator.run_plan(lambda p: _planners().plan_mark_reviewed(p, note.rel))

    def action_edit(self) -> None:
        note = self._note()
        if note is None:
            return

        def edited(text: str | None) -> None:
            if text is not None and text != note.text:
                data = text.encode("utf-8")
                self.curator.run_plan(lambda p: _planners().plan_edit(p, note.rel, data))

        self.app.push_screen(EditDialog(f"Edit {note.rel}", note.text), edited)

    def action_supersede(self) -> None:
        note = self._note()
        if note is None:
            return

        def chosen(ref: str | None) -> None:
            if ref:
                self.curator.run_plan(lambda p: _planners().plan_supersede(p, note.rel, ref))

        self.app.push_screen(AskDialog("Superseded by which note (path, slug or name)?"), chosen)

    def action_retire(self) -> None:
        note = self._note()
        if note is None:
            return

        def reason(text: str | None) -> None:
            if text:
                self.curator.run_plan(lambda p: _planners().plan_retire(p, note.rel, text))

        self.app.push_screen(AskDialog("Retire this note: why?"), reason)


def _planners() -> Any:
    from curator.ui.core import planners

    return planners()
