"""A bar for long background work (index builds): a line above the current screen's key
footer while a job runs, removed when it ends (never over the tab bar)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label, ProgressBar


class JobProgress(Horizontal):
    """The job's label and bar. `show` may come at any time from the app's job updates: right
    after the bar is mounted (before it has composed its label and bar) or while it is being
    removed (its children already gone); it keeps the latest values, and the bar shows them
    once composed. It never queries its children, which may not be there yet or any more."""

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
        self._state: tuple[str, float, float | None] = (label, 0, None)
        self._parts: tuple[Label, ProgressBar] | None = None

    def compose(self) -> ComposeResult:
        label, done, total = self._state
        text = Label(label, markup=False)
        bar = ProgressBar(total=total, show_eta=False)
        bar.progress = done
        self._parts = (text, bar)
        yield text
        yield bar

    def show(self, label: str, done: float, total: float | None) -> None:
        self._state = (label, done, total)
        if self._parts is not None:
            text, bar = self._parts
            text.update(label)
            bar.update(total=total, progress=done)
