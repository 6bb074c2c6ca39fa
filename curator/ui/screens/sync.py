"""Sync with the team's remote: the plan first (what comes in, what goes out), then the sync;
a conflict is settled here (the Conflicts view), one file at a time, by keeping this clone's
text, the remote's, or a merge edited in the editor from both sides (git's conflict markers).

Everything runs through `ui/services.py` (the CLI's `curator sync`); the plan and the sync run
in a worker thread and post back, git's progress of each fetch and push on a bar as it comes.
Text from the remote is shown as plain text, never markup.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, cast

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, OptionList, ProgressBar, Static
from textual.widgets.option_list import Option

from curator.model.text import clean
from curator.ui import services
from curator.ui.shell import Shell
from curator.ui.widgets.dialog_base import Dialog
from curator.ui.widgets.footer import KeyFooter
from curator.ui.widgets.options import Options
from curator.ui.widgets.plan_dialog import diff_text
from curator.ui.wording import for_app


class SyncDialog(Dialog[bool]):
    """Shows the sync's plan and its conflicts; y syncs, m / t / e settle the highlighted
    conflict (this clone's text / the remote's / a merge edited by hand). Dismisses True when
    the sync went through."""

    BINDINGS = [
        Binding("y", "sync", "Sync", id="sync.apply", tooltip="Pull, replay and push"),
        Binding("m", "keep('mine')", "Keep mine", id="sync.mine", tooltip="Keep this clone's"),
        Binding(
            "t", "keep('theirs')", "Keep theirs", id="sync.theirs", tooltip="Keep the remote's"
        ),
        Binding("e", "merge", "Edit a merge", id="sync.merge", tooltip="Merge both sides by hand"),
        Binding("escape,n", "cancel", "Close", id="sync.cancel", tooltip="Change nothing"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.plan: Any = None
        self.resolutions: dict[str, str | bytes] = {}  # path -> "mine" | "theirs" | merged
        self.busy = True
        self.transfer: Any = None  # git's last progress report (curator.writer.gitpy.Transfer)

    def compose(self) -> ComposeResult:
        with Vertical(id="sync-dialog"):
            yield Label("Sync with the team's remote", id="sync-title")
            yield Static("Fetching…", id="sync-plan", markup=False)
            yield Label("", id="sync-stage", markup=False)
            yield ProgressBar(id="sync-progress", show_eta=False)
            yield Options(id="sync-conflicts")
            with VerticalScroll(id="sync-diff-box"):
                yield Static("", id="sync-diff", markup=False)
            yield KeyFooter()

    @property
    def root(self) -> Path:
        return cast(Shell, self.app).root

    def on_mount(self) -> None:
        self.query_one(OptionList).display = False
        self.query_one("#sync-stage").display = False
        self.query_one("#sync-progress").display = False
        self.load_plan()
        super().on_mount()

    @work(thread=True, exclusive=True, group="sync", exit_on_error=False)
    def load_plan(self) -> None:
        try:
            plan = services.sync_plan(self.root, dict(self.resolutions), self.from_thread)
        except Exception as exc:
            self.app.call_from_thread(self.show_error, exc)
            return
        self.app.call_from_thread(self.show_plan, plan)

    def from_thread(self, transfer: Any) -> None:
        """git's progress, handed on from the worker thread git's output is read in."""
        self.app.call_from_thread(self.show_transfer, transfer)

    def show_transfer(self, transfer: Any) -> None:
        """The stage (its words are curator's, never the remote's) and the bar."""
        self.transfer = transfer
        stage, bar = self.query_one("#sync-stage", Label), self.query_one(ProgressBar)
        stage.display = bar.display = True
        stage.update(transfer.line())
        bar.update(total=transfer.total, progress=transfer.done)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Sync only a plan without conflicts, settle only a conflict: with no plan (no remote,
        an unreachable one) the footer offers nothing but Close, and the dialog says why."""
        if action == "sync":
            return self.plan is not None and not self.plan.conflicts
        if action in ("keep", "merge"):
            return self.plan is not None and bool(self.plan.conflicts)
        return True

    def show_error(self, exc: Exception) -> None:
        self.busy = False
        self.query_one("#sync-plan", Static).update(clean(f"Cannot sync: {for_app(str(exc))}"))
        self.refresh_bindings()

    def show_plan(self, plan: Any) -> None:
        self.busy, self.plan = False, plan
        self.refresh_bindings()
        lines = list(plan.lines())
        settled = [
            f"  settled: {p} ({'merged' if isinstance(how, bytes) else how})"
            for p, how in sorted(self.resolutions.items())
        ]
        hint = "y: sync" if not plan.conflicts else "m / t / e on each conflict, then y"
        text = "\n".join([*lines, *settled, "", hint])
        self.query_one("#sync-plan", Static).update(clean(text))
        conflicts = self.query_one(OptionList)
        conflicts.clear_options()
        conflicts.add_options(
            [Option(clean(c.sentence()), id=str(i)) for i, c in enumerate(plan.conflicts)]
        )
        conflicts.display = bool(plan.conflicts)
        if plan.conflicts:
            conflicts.highlighted = 0
            conflicts.focus()
            self._show_diff(0)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show_diff(event.option_index)

    def _show_diff(self, index: int) -> None:
        if self.plan is not None and 0 <= index < len(self.plan.conflicts):
            diff = self.plan.conflicts[index].diff()
            self.query_one("#sync-diff", Static).update(diff_text(diff))

    def _highlighted(self) -> Any:
        """The conflict under the cursor (None while busy or when there is none)."""
        index = self.query_one(OptionList).highlighted
        if self.busy or self.plan is None or index is None or not self.plan.conflicts:
            return None
        return self.plan.conflicts[index]

    def action_keep(self, side: str) -> None:
        conflict = self._highlighted()
        if conflict is None:
            return
        self.resolutions[conflict.path] = side
        self.busy = True
        self.load_plan()  # the plan again, with this conflict settled

    def action_merge(self) -> None:
        conflict = self._highlighted()
        if conflict is None:
            return
        earlier = self.resolutions.get(conflict.path)
        if conflict.mine_text is None and conflict.theirs_text is None and earlier is None:
            # a check the remote's notes fail: no two texts to merge
            self.app.notify(
                "No two texts to merge here: keep one side (m / t)",
                severity="warning",
                markup=False,
            )
            return
        self.busy = True
        self.edit_merge(conflict, earlier if isinstance(earlier, bytes) else None)

    @work(group="sync-merge", exit_on_error=False)
    async def edit_merge(self, conflict: Any, earlier: bytes | None) -> None:
        """Open both sides in the editor (or the merge made before); the saved text settles
        the conflict, checked as `curator sync --merged` checks it."""
        from curator.ui.editing import edit_text

        path = conflict.path
        root = self.root
        start = earlier
        if start is None:
            try:
                start = await asyncio.to_thread(services.merge_start, root, conflict)
            except Exception as exc:
                self.show_error(exc)
                return
        merged = await edit_text(
            self.app,
            f"Merge {clean(path)}: keep what is right from both sides, remove the markers",
            start.decode("utf-8", "replace"),
            lambda text: services.merge_problems(path, text.encode("utf-8")),
            keep_unchanged=True,
        )
        if merged is None:  # cancelled: the conflict stays open
            self.busy = False
            return
        self.resolutions[path] = merged.encode("utf-8")
        self.load_plan()  # the plan again, with the merged text replayed

    def action_sync(self) -> None:
        if self.busy or self.plan is None or self.plan.conflicts:
            return
        self.busy = True
        self.query_one("#sync-plan", Static).update("Syncing…")
        self.run_sync()

    @work(thread=True, exclusive=True, group="sync", exit_on_error=False)
    def run_sync(self) -> None:
        try:
            result = services.sync(
                cast(Shell, self.app).session, dict(self.resolutions), self.from_thread
            )
        except Exception as exc:
            self.app.call_from_thread(self.show_error, exc)
            return
        self.app.call_from_thread(self.synced, result)

    def synced(self, result: Any) -> None:
        self.app.notify(result.summary(), markup=False, timeout=6)
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)
