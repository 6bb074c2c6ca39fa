"""History: curator actions from git log, each with its files, reason and whether it was
undone (by which commit); undo the selected one (the CLI's undo)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from curator.model.palace import Palace
from curator.model.text import one_line
from curator.ui import services
from curator.ui.safe import plain
from curator.ui.screens.base import PalaceScreen
from curator.ui.widgets.list_filter import ListFilter
from curator.ui.widgets.table import Row, Table


class HistoryScreen(PalaceScreen):
    MODE = "history"
    MAIN = "#history-table"
    BINDINGS = [
        Binding("u", "undo", "Undo", id="history.undo", tooltip="Undo the selected action"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.by_sha: dict[str, Any] = {}  # the commits listed, newest first
        self.loaded = False  # the commits are listed (keys typed ahead wait for it)
        self.undone_by: dict[str, str] = {}

    def body(self) -> ComposeResult:
        table = Table(flex="subject", id="history-table")
        table.loading = True
        yield table
        yield ListFilter("#history-table", id="history-filter")
        yield Static(Text(), id="history-detail")

    def on_mount(self) -> None:
        table = self.query_one("#history-table", Table)
        table.border_title = "History"
        table.add_fixed("Commit", "sha", 10)
        table.add_fixed("Date", "date", 16)
        table.add_fixed("Action", "action", 9)
        table.add_fixed("Undone", "undone", 6)
        table.add_flex("Subject")

    def palace_changed(self, palace: Palace) -> None:
        self.load(palace.root)  # a path, not the palace: see IndexJobs._run

    @work(thread=True, exclusive=True, group="history", exit_on_error=False)
    def load(self, root: Path) -> None:
        try:
            entries = services.history(root)
        except Exception as exc:
            self.app.call_from_thread(self.curator.error, exc)
            entries = []
        self.app.call_from_thread(self._show, entries)

    def _show(self, entries: list[Any]) -> None:
        table = self.query_one("#history-table", Table)
        table.loading = False
        self.by_sha = {e.sha: e for e in entries}
        self.undone_by = {e.undoes: e.sha for e in entries if e.undoes}
        rows = []
        for entry in entries:
            undone = self.undoer(entry.sha)
            cells = (
                Text(entry.sha[:10], style="yellow"),
                plain(entry.when),  # as `curator history` shows it
                plain(entry.action, "bold"),
                Text("undone", style="dim italic") if undone else Text(""),
                plain(entry.subject),
            )
            # `/` finds a commit by its subject, action, sha or author (a reviewer's name)
            words = " ".join((entry.sha, entry.action, entry.subject, entry.author)).lower()
            rows.append(Row(entry.sha, cells, words))
        table.show(rows)  # filtered as now; the cursor stays on its commit
        self.focus_main()
        self.loaded = True

    @on(Table.Arranged, "#history-table")
    def _arranged(self, event: Table.Arranged) -> None:
        shown, every = len(event.table.shown), len(self.entries)
        event.table.border_title = (
            f"History ({shown} of {every})" if shown != every else (f"History ({every})")
        )
        self._detail()

    @property
    def entries(self) -> list[Any]:
        return list(self.by_sha.values())

    def selected(self) -> Any | None:
        sha = self.query_one("#history-table", Table).current_key()
        return self.by_sha.get(sha) if sha else None

    @on(DataTable.RowHighlighted, "#history-table")
    def _highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._detail()

    @on(DataTable.RowSelected, "#history-table")
    def _opened(self, _event: DataTable.RowSelected) -> None:
        entry = self.selected()
        palace = self.palace
        if entry is None or palace is None:
            return
        rel = next((n for n in entry.notes if n in palace.by_rel), None)
        if rel is not None and palace.by_rel[rel].kind == "note":
            self.curator.open_note(rel)
            return
        what = ", ".join(entry.notes) or "no note"
        self.notify(  # say why Enter did nothing (a rejected draft is gone)
            one_line(f"Nothing to open: {what} is not a note in the palace now", 200),
            severity="warning",
            markup=False,
        )

    @work(thread=True, exclusive=True, group="history-detail", exit_on_error=False)
    def _files(self, sha: str) -> None:
        files = services.changed_files(self.curator.root, sha)
        self.app.call_from_thread(self._detail, sha, files)

    def _detail(self, sha: str | None = None, files: list[str] | None = None) -> None:
        detail = self.query_one("#history-detail", Static)
        entry = self.selected()
        if entry is None:
            empty = "No curator actions yet: promote or reject a draft in the Inbox (1)."
            detail.update(Text(empty if not self.by_sha else "", style="dim"))
            return
        if files is None:
            self._files(entry.sha)
        elif sha != entry.sha:
            return
        # most telling first (a short pane cuts the last lines): what, undone by whom, files,
        # why; the author last
        out = plain(entry.subject, "bold")
        out.append("\n")
        out.append_text(plain(entry.sha[:10], "yellow"))
        by = self.undone_by.get(entry.sha)
        if by:  # (plain() folds whitespace: the separators go in on their own)
            out.append("  · ", style="dim")
            out.append_text(plain(f"undone by {by[:10]}", "bold yellow"))
            if self.undoer(entry.sha) is None:  # that undo was undone in turn: in effect again
                out.append_text(plain(f", redone by {self.undone_by[by][:10]}", "yellow"))
        if entry.undoes:
            out.append("  · ", style="dim")
            out.append_text(plain(f"undoes {entry.undoes[:10]}", "cyan"))
        out.append("  · ", style="dim")
        out.append_text(plain(f"by {entry.author}", "dim", limit=80))
        out.append("\n")
        # (None: git is still being asked)
        listed = "…" if files is None else ", ".join([*files, *self._moves(entry)]) or "none"
        out.append_text(plain("files: " + listed, limit=400))
        if entry.reason:
            out.append("\n")
            out.append_text(plain("reason: " + entry.reason, "italic", limit=300))
        detail.update(out)

    def undoer(self, sha: str) -> str | None:
        """The undo that took `sha` back and still stands (one that was undone in turn does
        not count: the action is in effect again)."""
        by = self.undone_by.get(sha)
        return by if by is not None and self.undoer(by) is None else None

    def _moves(self, entry: Any) -> list[str]:
        """The drafts the action moved outside git (an ignored inbox: the commit itself lists
        no file), from its Curator-Restore trailers; an undo's are the undone action's, back."""
        moves = [f"{src} → {dst}" for src, dst in entry.restores]
        undone = self.by_sha.get(entry.undoes) if entry.undoes else None
        if undone is not None and not entry.restores:
            moves += [f"{dst} → {src}" for src, dst in undone.restores]
        return moves

    def action_undo(self) -> None:
        entry = self.selected()
        if entry is None:
            self.notify("No action to undo", severity="warning", markup=False)
            return
        undone = self.undoer(entry.sha)
        if undone:
            self.notify(
                f"{entry.sha[:10]} was already undone by {undone[:10]}",
                severity="warning",
                markup=False,
            )
            return
        sha = entry.sha
        self.curator.run_plan(lambda palace: services.plan_undo(palace, sha))
