"""A bar for long background work (index builds): a line above the current screen's key
footer while a job runs, removed when it ends (never over the tab bar)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label, ProgressBar


class JobProgress(Horizontal):
    DEFAULT_CSS = """
    JobProgress {
        height: 1;
        background: $panel;
    }
    JobProgress > Label {
        width: auto;
        padding: 0 1;
    }
    JobProgress > ProgressBar {
        width: 1fr;
    }
    """

    def __init__(self, label: str) -> None:
        super().__init__(id="job-progress")
        self._label = label

    def compose(self) -> ComposeResult:
        yield Label(self._label, markup=False)
        yield ProgressBar(total=None, show_eta=False)

    def show(self, label: str, done: float, total: float | None) -> None:
        self.query_one(Label).update(label)
        self.query_one(ProgressBar).update(total=total, progress=done)
