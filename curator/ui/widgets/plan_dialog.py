"""The confirmation dialog: what an action will change (files and a diff), before it does."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from curator.model.text import clean
from curator.ui.safe import plain
from curator.writer.plan import Plan

_DIFF_STYLES = (
    ("+++", "bold"),
    ("---", "bold"),
    ("@@", "cyan"),
    ("diff --git", "bold magenta"),
    ("+", "green"),
    ("-", "red"),
)


def diff_text(diff: str) -> Text:
    out = Text()
    for line in clean(diff).splitlines():
        style = next((s for prefix, s in _DIFF_STYLES if line.startswith(prefix)), "")
        out.append(line + "\n", style=style)
    return out


class PlanDialog(ModalScreen[bool]):
    """Shows a Plan; dismisses True to apply it, False to cancel."""

    BINDINGS = [
        Binding("y,enter", "confirm", "Apply", id="plan.confirm", tooltip="Apply this change"),
        Binding("n,escape", "cancel", "Cancel", id="plan.cancel", tooltip="Change nothing"),
    ]

    def __init__(self, plan: Plan, root: Path) -> None:
        super().__init__()
        self.plan = plan
        self.root = root

    def compose(self) -> ComposeResult:
        with Vertical(id="plan-box"):
            yield Label(plain(self.plan.subject, "bold"), id="plan-subject")
            files = Text()
            for path in self.plan.paths():
                files.append("  " + clean(path) + "\n")
            yield Static(files, id="plan-files")
            with VerticalScroll(id="plan-diff-scroll"):
                yield Static(diff_text(self.plan.diff(self.root)), id="plan-diff")
            with Horizontal(id="plan-buttons"):
                yield Button("Apply (y)", variant="primary", id="plan-apply")
                yield Button("Cancel (n)", id="plan-cancel")

    def on_mount(self) -> None:
        self.query_one("#plan-diff-scroll").focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "plan-apply")

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)
