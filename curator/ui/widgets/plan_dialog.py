"""The confirmation dialog: what an action will change (files and a diff), before it does."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Label, Static

from curator.model.text import clean
from curator.ui.safe import plain
from curator.ui.widgets.dialog_base import Dialog
from curator.ui.widgets.footer import KeyFooter
from curator.writer.plan import Plan

_DIFF_STYLES = (
    ("+++", "bold"),
    ("---", "bold"),
    ("@@", "cyan"),
    ("diff --git", "bold magenta"),
    ("+", "green"),
    ("-", "red"),
)


# A diff is shown up to this many lines a file (and in all): the first action on a palace whose
# INDEX.md is behind rewrites the whole index (60k diff lines at 10k notes), and a Static holding
# all of it took ~110 MB and seconds to lay out, for lines nobody reads in a dialog.
MAX_FILE_LINES = 400
MAX_LINES = 4000


def diff_text(diff: str, file_lines: int = MAX_FILE_LINES, total: int = MAX_LINES) -> Text:
    """The diff, coloured, with each file's part cut after `file_lines` lines (its header and
    every other file's still shown) and the whole after `total` lines."""
    out = Text()
    shown = in_file = hidden = 0

    def note_hidden() -> None:
        if hidden:
            more = "line" if hidden == 1 else "lines"
            out.append(f"… {hidden:,} more {more} of this file's diff not shown\n", style="dim")

    lines = clean(diff).splitlines()
    for number, line in enumerate(lines):
        if line.startswith("diff --git"):
            note_hidden()
            in_file = hidden = 0
        if shown >= total:
            rest = len(lines) - number
            out.append(f"… {rest:,} more diff lines not shown\n", style="dim")
            return out
        if in_file >= file_lines:
            hidden += 1
            continue
        style = next((s for prefix, s in _DIFF_STYLES if line.startswith(prefix)), "")
        out.append(line + "\n", style=style)
        shown += 1
        in_file += 1
    note_hidden()
    return out


class PlanDialog(Dialog[bool]):
    """Shows a Plan; dismisses True to apply it, False to cancel.

    It opens at once, while the plan is still being made (`set_plan` fills it in), so a key
    typed right after the action's key is not lost: y or Enter pressed early applies the plan
    as soon as it is shown; n or Escape cancels it."""

    BINDINGS = [
        Binding("y,enter", "confirm", "Apply", id="plan.confirm", tooltip="Apply this change"),
        Binding("n,escape", "cancel", "Cancel", id="plan.cancel", tooltip="Change nothing"),
    ]

    def __init__(
        self,
        plan: Plan | None = None,
        root: Path | None = None,
        on_apply: Callable[[], None] | None = None,
    ) -> None:
        super().__init__()
        self.plan = plan
        self.root = root
        self.on_apply = on_apply  # called on the yes, before the dialog closes
        self.early = False  # confirmed before the plan was ready
        self._diff: Text | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="plan-box"):
            yield Label(Text("Planning…", style="bold"), id="plan-subject")
            yield Static(Text(), id="plan-files")
            with VerticalScroll(id="plan-diff-scroll"):
                yield Static(Text(), id="plan-diff")
            with Horizontal(id="plan-buttons"):
                yield Button("Apply (y)", variant="primary", id="plan-apply")
                yield Button("Cancel (n)", id="plan-cancel")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#plan-diff-scroll").focus()
        if self.plan is not None:
            if self._diff is None and self.root is not None:
                self._diff = diff_text(self.plan.diff(self.root))
            self._show(self.plan, self._diff or Text())

    def set_plan(self, plan: Plan, diff: Text) -> None:
        """Show the plan (its diff already rendered, off the event loop); before the dialog
        is mounted it is kept for `on_mount`."""
        self.plan = plan
        self._diff = diff
        if self.early:  # confirmed already: no need to lay the diff out
            self.dismiss(True)
        elif self.is_mounted:
            self._show(plan, diff)

    def _show(self, plan: Plan, diff: Text) -> None:
        self.query_one("#plan-subject", Label).update(plain(plan.subject, "bold"))
        files = Text()
        for path in plan.paths():
            files.append("  " + clean(path) + "\n")
        self.query_one("#plan-files", Static).update(files)
        self.query_one("#plan-diff", Static).update(diff)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "plan-apply":
            self.action_confirm()
        else:
            self.action_cancel()

    def action_confirm(self) -> None:
        if self.on_apply is not None and not self.early:
            self.on_apply()
        if self.plan is None:
            self.early = True
        else:
            self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)
