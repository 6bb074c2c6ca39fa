"""The app's search index jobs: the first build, the sync after every change, a reindex on
request; each in a thread worker, with a progress bar on the current screen."""

from __future__ import annotations

import time
from typing import Any

from textual import work
from textual.app import App
from textual.css.query import NoMatches

from curator.model.palace import Palace
from curator.model.text import one_line
from curator.ui.progress import JobProgress
from curator.ui.screens.base import PalaceScreen
from curator.ui.services import SearchSession
from curator.ui.widgets.footer import KeyFooter


class IndexingApp(App[None]):
    """The part of CuratorApp that keeps the search index in step with its palace."""

    palace: Palace | None
    search_session: SearchSession

    def __init__(self) -> None:
        super().__init__()
        self.indexing = False  # an index job (first build, sync, reindex) is running
        self._index_again = False  # the palace changed while it ran: sync once more after
        self._job: tuple[str, float, float | None] | None = None  # label, done, total
        self._bars: list[JobProgress] = []

    def error(self, exc: BaseException) -> None:
        """An error shown as one line (a CuratorError names its file), never a traceback."""
        self.notify(
            one_line(str(exc)) or type(exc).__name__, severity="error", markup=False, timeout=8
        )

    def sync_index(self) -> None:
        """Bring the search index in line with the palace in a worker (the first one builds
        it); one job at a time, the latest palace last."""
        if self.indexing:
            self._index_again = True
        elif self.palace is not None:
            self.indexing = True
            self._index_job(rebuild=False)

    def action_reindex(self) -> None:
        if self.palace is None:
            self.notify("The palace is still loading", severity="warning", markup=False)
        elif self.indexing:
            self.notify("The search index is being built already", markup=False)
        else:
            self.indexing = True
            self._job = ("Reindexing", 0, None)
            self._show_job()
            self._index_job(rebuild=True)

    @work(thread=True, group="index", exit_on_error=False)
    def _index_job(self, rebuild: bool) -> None:
        """Sync (or rebuild) the index to the app's palace as it is when the job starts.

        Thread workers take no palace argument, here and on every screen: textual keeps
        finished workers (their callable and arguments) reachable from contexts that outlive
        them (the executor thread's own context, tasks and handles made while they ran), and a
        palace argument kept a whole old generation of notes alive after each reload."""
        palace = self.palace
        assert palace is not None  # only started once the palace has loaded
        label = "Reindexing" if rebuild else "Building the search index"
        last = 0.0

        def progress(done: int, total: int) -> None:
            nonlocal last
            now = time.monotonic()
            if now - last >= 0.05 or done >= total:
                last = now
                self.call_from_thread(self._progress, label, done, total)

        start = time.monotonic()
        stats: Any
        try:
            if rebuild:
                stats = self.search_session.reindex(palace, progress)
            else:
                stats = self.search_session.sync(palace, progress)
        except Exception as exc:
            self.call_from_thread(self._index_done, exc, None, 0.0, rebuild)
            return
        self.call_from_thread(self._index_done, None, stats, time.monotonic() - start, rebuild)

    def _progress(self, label: str, done: int, total: int) -> None:
        # embedding is most of the work; writing the table and its text index is the rest
        self._job = (label, done, total * 1.1)
        self._show_job()

    def _index_done(self, exc: Exception | None, stats: Any, seconds: float, rebuild: bool) -> None:
        self.indexing = False
        self._job = None
        self._show_job()
        if exc is not None:
            self.error(exc)
        elif rebuild:
            count = stats.added + stats.updated + stats.unchanged
            self.notify(f"Search index rebuilt: {count} notes in {seconds:.1f} s", markup=False)
        if self._index_again:
            self._index_again = False
            self.sync_index()

    def _show_job(self) -> None:
        """Show the running job on the current screen; remove the bars when none runs."""
        screen = self.screen
        for bar in list(self._bars):
            if self._job is None or bar.parent is not screen:
                self._bars.remove(bar)
                bar.remove()
        if self._job is None or not isinstance(screen, PalaceScreen):
            return
        label, done, total = self._job
        try:
            screen.query_one(JobProgress).show(label, done, total)
        except NoMatches:
            bar = JobProgress(label)
            self._bars.append(bar)
            screen.mount(bar, before=screen.query_one(KeyFooter))  # the body's last line
            self.call_after_refresh(bar.show, label, done, total)
