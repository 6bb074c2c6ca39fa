"""Tasks: every task checkpoint with its owner, status, age and next action, stale claims
flagged; a task's revisions with a diff between any two, and its requests word for word.

The list reads only each task's newest revision header. A person's actions (release a stuck
claim, mark done or abandoned) are planned, shown in the plan dialog, then written against the
revision the screen showed: if the task moved on meanwhile, the action is refused, never
applied to a task the person did not see.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.timer import Timer
from textual.widgets import DataTable, Static

from curator.model.palace import Palace
from curator.model.text import clean
from curator.tasks import TaskService, default_owner
from curator.tasks.checkpoint import STATUSES
from curator.tasks.claims import age_text
from curator.ui.safe import BADGE_STYLE, plain
from curator.ui.screens.base import PalaceScreen
from curator.ui.styles import styles_dir
from curator.ui.threads import finish
from curator.ui.widgets.table import RowTable, Table
from curator.ui.widgets.zoom import ZoomDialog, zoom_binding

AGE_TICK = 30.0  # seconds between readings of the list while it is shown
FIRST_ROWS = 100  # rows put in the table before its first paint: more than a screen holds
_ORDER = {status: i for i, status in enumerate(STATUSES)}
# a style per status, in the table's order (zip refuses a status added without its style)
_STATUS_STYLE = dict(zip(STATUSES, ("green", "yellow", "dim", "dim red"), strict=True))


def requests_text(requests: list[Any]) -> Text:
    """The person's requests as plain text: their words cleaned of escapes, never markup."""
    out = Text()
    if not requests:
        return Text("No requests recorded.", style="dim")
    for r in requests:
        out.append(f"Request {r.number} · {clean(r.at)} · {clean(r.by)}\n", style="bold")
        out.append(clean(r.text).rstrip("\n") + "\n\n")
    return out


class TasksScreen(PalaceScreen):
    CSS_PATH = str(styles_dir() / "tasks.tcss")
    MODE = "tasks"
    MAIN = "#tasks-table"
    NARROW = 140  # six columns: side by side only when the next action still has room
    BINDINGS = [
        Binding(
            "r",
            "act('release')",
            "Release",
            id="tasks.release",
            tooltip="Release the selected task's (stuck) claim",
        ),
        Binding("d", "act('done')", "Done", id="tasks.done", tooltip="Mark the task done"),
        Binding(
            "x", "act('abandoned')", "Abandon", id="tasks.abandon", tooltip="Mark it abandoned"
        ),
        Binding(
            "m",
            "mark",
            "Diff from",
            id="tasks.mark",
            tooltip="Diff later revisions against the highlighted one",
        ),
        zoom_binding("tasks"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.revisions: dict[str, int] = {}  # slug -> the newest revision shown
        self.current: str | None = None
        self.base: int | None = None  # the revision diffs start from (None: the previous one)
        self.row_revisions: list[int] = []  # the revision number of each row of the revisions
        # when the list was first on screen, and when every row was in it (the benchmark)
        self.drawn_at: float | None = None
        self.filled_at: float | None = None
        self._generation = 0  # of the list shown: a newer one drops the older one's rows
        self.detail_ready = False
        self._ticker: Timer | None = None
        self._service: TaskService | None = None  # made once per palace load (see service)

    def body(self) -> ComposeResult:
        with Horizontal(id="tasks-main"):
            yield Table(flex="next", id="tasks-table")  # Home/End: first/last row
            yield Vertical(id="tasks-detail")  # filled once the list is on screen

    async def _mount_detail(self) -> None:
        """The selected task's panes: revisions, two revisions side by side, its requests."""
        revs = RowTable(id="tasks-revisions", cursor_type="row")
        revs.border_title = "Revisions"
        for label, key in (("Rev", "rev"), ("Saved", "saved"), ("Event", "event"), ("By", "by")):
            revs.add_column(label, key=key)
        requests = VerticalScroll(Static(Text(), id="tasks-requests"), id="tasks-requests-scroll")
        requests.border_title = "Requests (word for word)"
        sides = [
            VerticalScroll(Static(Text(), id=f"tasks-{side}"), id=f"tasks-{side}-scroll")
            for side in ("left", "right")
        ]
        for side in sides:
            side.add_class("tasks-side")
        await self.query_one("#tasks-detail").mount(
            revs, Horizontal(*sides, id="tasks-diff"), requests
        )
        self.detail_ready = True
        if self.current is not None:
            self.load_task(self.current)

    def on_mount(self) -> None:
        table = self.query_one("#tasks-table", DataTable)
        table.border_title = "Tasks"
        assert isinstance(table, Table)
        for label, key, width in (
            ("Task", "task", 22),
            ("Status", "status", 9),
            ("Owner", "owner", 12),
            ("Age", "age", 4),
            ("", "flag", 7),
        ):
            table.add_fixed(label, key, width)
        table.add_flex("Next action")  # what the fixed columns leave: no sideways scrolling
        if self.palace is None:
            return  # the list follows once the palace has loaded
        # The first view is read here, not in a worker: the newest headers of a thousand tasks
        # take ~35 ms, less than a worker thread fighting the first paint for the GIL took.
        self._stale, self._has_drawn = False, True
        try:
            self._show(*self._read())
        except Exception as exc:
            self.curator.error(exc)
            self._show([], [])

    def palace_changed(self, palace: Palace) -> None:
        self._service = None  # palace.toml's [tasks] may have changed with it
        self.load(palace.root)

    def on_screen_resume(self) -> None:
        if self._ticker is None:  # ages and stale flags follow the clock while shown
            self._ticker = self.set_interval(AGE_TICK, self.tick)
        self._ticker.resume()

    def on_screen_suspend(self) -> None:
        if self._ticker is not None:
            self._ticker.pause()

    def tick(self) -> None:
        """Read the list again (the Age column, STALE and LAPSED follow the clock)."""
        self.load(self.curator.root)

    @property
    def service(self) -> TaskService:
        """The screen's one TaskService, made from palace.toml as last loaded."""
        if self._service is None:
            self._service = TaskService(self.curator.root)
        return self._service

    # -- the list --------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="tasks", exit_on_error=False)
    def load(self, root: Path) -> None:
        try:
            listed = self._read()
        except Exception as exc:
            self.app.call_from_thread(self.curator.error, exc)
            listed = ([], [])
        self.app.call_from_thread(self._show, *listed)

    def _read(self) -> tuple[list[Any], list[str]]:
        rows, broken = self.service.rows()
        rows.sort(key=lambda r: (not r.stale, _ORDER.get(r.header.status, 4), r.age or 0))
        return rows, [str(e) for e in broken]

    def _cells(self, row: Any) -> tuple[Text, ...]:
        h = row.header
        flag = Text("STALE", style=BADGE_STYLE["stale"]) if row.stale else Text("")
        if row.lapsed:
            flag = Text("LAPSED", style=BADGE_STYLE["expired"])
        return (
            plain(h.task, "bold"),
            Text(h.status, style=_STATUS_STYLE.get(h.status, "")),
            plain(h.owner or "-"),
            Text(age_text(row.age)),
            flag,
            plain(h.next_action),
        )

    def _show(self, rows: list[Any], broken: list[str]) -> None:
        """Fill the list: the first screenfuls at once, the rest right after they are drawn
        (the table measures every cell it is given before it paints)."""
        table = self.query_one("#tasks-table", DataTable)
        table.clear()
        self._generation += 1
        self.revisions = {r.header.task: r.header.revision for r in rows}
        self._add_rows(self._generation, rows[:FIRST_ROWS])
        self.call_after_refresh(self._drawn, self._generation, rows[FIRST_ROWS:])
        current = self.current
        if current is not None and any(r.header.task == current for r in rows[:FIRST_ROWS]):
            # the open task stays open, its panes read again
            table.move_cursor(row=table.get_row_index(current), animate=False)
            if self.detail_ready:
                self.load_task(current)
        for problem in broken[:3]:
            self.notify(problem, severity="warning", markup=False)
        table.border_subtitle = (
            "" if rows else "No tasks yet: an agent starts one with `curator task new`"
        )
        self.focus_main()

    def _add_rows(self, generation: int, rows: list[Any], last: bool = False) -> None:
        if generation != self._generation:
            return  # a newer list replaced this one
        table = self.query_one("#tasks-table", DataTable)
        for row in rows:
            table.add_row(*self._cells(row), key=row.header.task)
        if last and self.filled_at is None:
            self.call_after_refresh(self._filled)

    def _drawn(self, generation: int, rows: list[Any]) -> None:
        """The top of the list is on screen: now the rest."""
        if self.drawn_at is None:
            self.drawn_at = time.perf_counter()
            self.call_after_refresh(self._mount_detail)
        self._add_rows(generation, rows, last=True)

    def _filled(self) -> None:
        self.filled_at = time.perf_counter()

    def selected(self) -> str | None:
        table = self.query_one("#tasks-table", DataTable)
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return None if key is None else str(key)

    # -- one task's revisions, diff and requests ---------------------------------------------
    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a task opens it: into its revisions (the detail follows the cursor)."""
        if event.data_table.id == "tasks-table" and self.detail_ready:
            self.query_one("#tasks-revisions").focus()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "tasks-table":
            slug = self.selected()
            if slug is not None and slug != self.current:
                self.current, self.base = slug, None
                if self.detail_ready:
                    self.load_task(slug)
        elif (
            event.data_table.id == "tasks-revisions"
            and self.current is not None
            and 0 <= event.cursor_row < len(self.row_revisions)
        ):
            self.show_diff(self.current, self.row_revisions[event.cursor_row])

    @work(thread=True, exclusive=True, group="task-detail", exit_on_error=False)
    def load_task(self, slug: str) -> None:
        svc = self.service
        try:
            headers = svc.history(slug)
            requests = svc.requests(slug)
        except Exception as exc:
            self.app.call_from_thread(self.curator.error, exc)
            return
        self.app.call_from_thread(self._show_task, slug, headers, requests)

    def _show_task(self, slug: str, headers: list[Any], requests: list[Any]) -> None:
        if slug != self.current or not self.detail_ready:
            return
        revs = self.query_one("#tasks-revisions", DataTable)
        revs.clear()
        self.row_revisions = [h.revision for h in headers]  # the rows' revision numbers
        for h in headers:
            event = h.event + (f" from {h.taken_over_from}" if h.taken_over_from else "")
            event += " (unverified)" if h.unverified else ""
            revs.add_row(
                Text(f"{h.revision:04d}"),
                plain(h.saved_at),
                plain(event),
                plain(h.by or "-"),
            )
        if headers:
            revs.move_cursor(row=len(headers) - 1)
        self.query_one("#tasks-requests", Static).update(requests_text(requests))

    @work(thread=True, exclusive=True, group="task-diff", exit_on_error=False)
    def show_diff(self, slug: str, number: int) -> None:
        """Revision `number` beside the one before, the words only one of them has highlighted
        on its side; from a revision marked with "Diff from", the unified diff between the two
        as `curator task history --diff` prints it, coloured, in one pane."""
        from curator.ui.widgets.candidate_diff import word_diff
        from curator.ui.widgets.plan_dialog import diff_text

        marked = self.base is not None and self.base != number
        base = self.base if marked and self.base is not None else number - 1
        if marked and base > number:  # a diff reads from the older revision to the newer
            base, number = number, base
        svc = self.service
        right: Text | None
        try:
            new = svc.store.read_bytes(slug, number).decode("utf-8", "replace")
            if base < 1:
                left, right = Text("(no earlier revision)", style="dim"), Text(clean(new))
            elif marked:
                unified = svc.diff(slug, base, number)
                left = diff_text(unified) if unified else Text("(no change)", style="dim")
                right = None
            else:
                old = svc.store.read_bytes(slug, base).decode("utf-8", "replace")
                left, right = word_diff(old, new)
        except Exception as exc:
            self.app.call_from_thread(self.curator.error, exc)
            return
        if right is None:
            titles = (f"Diff: revision {base} → {number}", "")
        else:
            titles = (f"Revision {base}" if base >= 1 else "", f"Revision {number}")
        self.app.call_from_thread(self._show_diff, titles, left, right)

    def _show_diff(self, titles: tuple[str, str], left: Text, right: Text | None) -> None:
        self.query_one("#tasks-left-scroll").border_title = titles[0]
        self.query_one("#tasks-right-scroll").border_title = titles[1]
        self.query_one("#tasks-left", Static).update(left)
        self.query_one("#tasks-right-scroll").display = right is not None
        if right is not None:
            self.query_one("#tasks-right", Static).update(right)

    def action_zoom(self) -> None:
        """The diff shown (both sides, one after the other) on the whole screen."""
        left = self.query_one("#tasks-left", Static).visual
        parts = [Text(str(self.query_one("#tasks-left-scroll").border_title or ""), "bold")]
        parts.append(left if isinstance(left, Text) else Text(str(left)))
        if self.query_one("#tasks-right-scroll").display:
            right = self.query_one("#tasks-right", Static).visual
            parts.append(
                Text(str(self.query_one("#tasks-right-scroll").border_title or ""), "bold")
            )
            parts.append(right if isinstance(right, Text) else Text(str(right)))
        self.app.push_screen(ZoomDialog(f"Task {self.current or ''}", Text("\n").join(parts)))

    def action_mark(self) -> None:
        if self.current is None or not self.detail_ready:
            return
        revs = self.query_one("#tasks-revisions", DataTable)
        row = revs.cursor_coordinate.row
        if revs.row_count == 0 or not 0 <= row < len(self.row_revisions):
            return
        self.base = self.row_revisions[row]
        self.notify(f"Diffs now start from revision {self.base}", markup=False)

    # -- a person's actions ------------------------------------------------------------------
    def action_act(self, action: str) -> None:
        slug = self.selected()
        if slug is None:
            self.notify("No task selected", severity="warning", markup=False)
            return
        self.perform(action, slug, self.revisions[slug])

    @work(group="action", exit_on_error=False)
    async def perform(self, action: str, slug: str, base: int) -> None:
        """Plan (against the revision on screen), show the plan, write and commit it."""
        from curator.ui.widgets.plan_dialog import PlanDialog

        svc, owner = self.service, default_owner()
        try:
            pending = await asyncio.to_thread(svc.propose, action, slug, owner, base=base)
            plan = await asyncio.to_thread(svc.plan, pending)
        except Exception as exc:
            self.curator.error(exc)
            return
        if not await self.app.push_screen_wait(PlanDialog(plan, svc.root)):
            self.notify("Cancelled: nothing changed", markup=False)
            return
        try:
            outcome = await finish(svc.apply, pending, owner)
        except Exception as exc:
            self.curator.error(exc)
        else:
            sha, warning = outcome.committed.sha, outcome.committed.warning
            done = f"Committed {sha[:10]}" if sha else "Saved"
            self.notify(f"{done}: {clean(plan.subject)}", markup=False, timeout=6)
            if warning:
                self.notify(clean(warning), severity="warning", markup=False)
        self.current = None
        self.load(svc.root)
