"""Audit: stale and due notes with reason and since-date, and a detail pane; re-verify,
review, edit, supersede, retire (the same keys as Rooms); the audit itself runs in a worker
with a progress bar."""

from __future__ import annotations

from functools import cache
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, ProgressBar, Static

from curator.model.note import Note
from curator.model.palace import Palace
from curator.model.text import one_line
from curator.ui import services
from curator.ui.safe import badges, plain
from curator.ui.screens.base import note_words
from curator.ui.screens.note_actions import NOTE_BINDINGS, NoteActions
from curator.ui.widgets.list_filter import ListFilter
from curator.ui.widgets.table import Row, Table

WATCHED = ("stale", "due", "expired")
FLAGS_WIDTH = 9


def reason_and_since(palace: Palace, note: Note, flags: list[str]) -> tuple[str, str]:
    if note.stale:
        return note.stale.get("reason", "stale"), note.stale.get("since", "")
    if "expired" in flags:  # (the badge already says "expired": say what it means)
        return "past its expiry date", note.expires
    spec = palace.config.type_spec(note.type)
    every = f" (every {spec.review_after_days} days)" if spec else ""
    return f"due for review{every}", note.reviewed or note.created


class AuditScreen(NoteActions):
    MODE = "audit"
    MAIN = "#audit-table"
    TABLE = "#audit-table"
    BINDINGS = [
        Binding("v", "verify", "Re-verify", id="audit.verify", tooltip="Re-verify this note now"),
        Binding("A", "audit_all", "Run audit", id="audit.run", tooltip="Audit every note"),
        *NOTE_BINDINGS,
        Binding(
            "f", "show_kind", "Show", id="audit.show", tooltip="Show all, stale, due or expired"
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[Note] = []

    def body(self) -> ComposeResult:
        yield ProgressBar(id="audit-progress", show_eta=False)
        table = self.notes_table()
        table.loading = True
        yield table
        yield Static(Text(), id="audit-detail")
        yield ListFilter("#audit-table", id="audit-filter")

    def on_mount(self) -> None:
        table = self.query_one("#audit-table", Table)
        table.border_title = "Stale and due"
        table.add_fixed(" ", "mark", 1)
        table.add_fitted("Flags", "flags", FLAGS_WIDTH)
        table.add_fitted("Since", "since", 10)
        table.add_fitted("Reason", "reason", 24)
        table.add_flex("Note")
        table.sortable = ("flags", "since", "reason", "name")
        self.query_one(ProgressBar).display = False

    def palace_changed(self, palace: Palace) -> None:
        table = self.query_one("#audit-table", Table)
        table.loading = False
        today = self.curator.today
        self.rows = []
        rows = []
        # the same few flags, dates and reasons recur over thousands of rows: one Text each
        # (a table only reads its cells), not thousands to allocate and collect on first paint
        shown_badges = cache(lambda flags: badges(list(flags)))
        shown = cache(lambda text, limit: plain(text, limit=limit))
        for note in palace.notes:
            if note.superseded:
                continue  # replaced or retired: nothing left to review
            flags = [f for f in palace.flags(note, today) if f in WATCHED]
            if not flags:
                continue
            reason, since = reason_and_since(palace, note, flags)
            self.rows.append(note)
            cells = (
                shown_badges(tuple(flags)),
                shown(since[:10], None),
                shown(reason, 60),
                plain(note.name or note.rel),
            )
            words = " ".join([note_words(note), reason.lower()])
            rows.append(Row(note.rel, cells, words, kinds=frozenset(flags)))
        self.marks.keep_only({n.rel for n in self.rows})
        table.show(rows)  # the cursor stays on its note, else on its row
        self.show_title()
        self._detail()

    @on(Table.Arranged, "#audit-table")
    def _arranged(self, _event: Table.Arranged) -> None:
        self.show_title()

    def action_show_kind(self) -> None:
        """Show every row, then only the stale ones, the due ones, the expired ones."""
        table = self.query_one("#audit-table", Table)
        kinds: list[str | None] = [None, *WATCHED]
        table.only(kinds[(kinds.index(table.kind) + 1) % len(kinds)])
        self._detail()

    @on(DataTable.RowHighlighted, "#audit-table")
    def _highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._detail()

    @on(DataTable.RowSelected, "#audit-table")
    def _opened(self, _event: DataTable.RowSelected) -> None:
        note = self.selected()
        if note is not None:
            self.curator.open_note(note.rel)

    def _detail(self) -> None:
        """The selected note's name, file, flags, whole reason and since-date."""
        detail = self.query_one("#audit-detail", Static)
        palace = self.palace
        note = self.selected()
        if palace is None or note is None:
            empty = "Nothing is stale or due: every note has been reviewed in time."
            detail.update(Text(empty if palace is not None else "", style="dim"))
            return
        flags = palace.flags(note, self.curator.today)
        reason, since = reason_and_since(palace, note, flags)
        # most telling first (a short pane cuts the last lines): which note, what and since
        # when, the whole reason, then its file
        out = plain(note.name or note.rel, "bold")
        out.append("\n")
        out.append_text(badges(flags))
        out.append(f"  since {since[:10] or '?'}\n")
        out.append_text(plain(reason, limit=400))
        out.append("\n")
        out.append_text(plain(note.rel, "dim"))
        detail.update(out)

    def list_title(self) -> str:
        table = self.query_one("#audit-table", Table)
        shown = len(table.shown)
        count = f"{shown} of {len(self.rows)}" if shown != len(self.rows) else str(shown)
        only = f" · only {table.kind}: f" if table.kind else ""
        return f"Stale and due ({count}){only}"

    def shown_flags(self, note: Note) -> list[str]:
        palace = self.palace
        flags = palace.flags(note, self.curator.today) if palace is not None else []
        return [f for f in flags if f in WATCHED]

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
        IndexJobs._run)."""
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
            report, plan = services.run_audit(palace, refs, self.curator.today, progress)
        except Exception as exc:
            self.app.call_from_thread(self.curator.error, exc)
            return
        finally:
            self.app.call_from_thread(self._progress_end)
        summary = one_line(report.summary(), 300)
        if notes is not None and len(notes) == 1:  # say which note was checked
            summary = one_line(f"{notes[0].name or notes[0].rel}: {summary}", 300)
        self.app.call_from_thread(self.notify, summary, markup=False, timeout=8)
        if plan is not None:
            self.app.call_from_thread(self.curator.run_plan, lambda _p: plan)

    def _progress_start(self, total: int) -> None:
        bar = self.query_one(ProgressBar)
        bar.update(total=total, progress=0)
        bar.display = True

    def _progress_end(self) -> None:
        self.query_one(ProgressBar).display = False
