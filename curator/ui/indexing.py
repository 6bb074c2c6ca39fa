"""The app's search index jobs: the first build, the sync after every change, a reindex on
request; each in a thread worker, with a progress bar on the current screen."""

from __future__ import annotations

import time
from typing import Any, cast

from textual.app import App
from textual.css.query import NoMatches
from textual.worker import Worker, get_current_worker

from curator.model.palace import Palace
from curator.ui.progress import JobProgress
from curator.ui.screens.base import PalaceScreen
from curator.ui.services import Session
from curator.ui.shell import Shell
from curator.ui.widgets.footer import KeyFooter

SYNC, REINDEX = "index", "reindex"  # the workers' groups


class IndexJobs:
    """Keeps the search index in step with the app's palace. A sync runs in an exclusive
    worker: a newer palace cancels the sync of an older one (a cancelled sync already under
    way ends its work quietly; the newer one waits for it on the session index's lock, then
    syncs what is left). A reindex runs alone; the syncs asked for meanwhile wait for it."""

    def __init__(self, app: App[Any], session: Session) -> None:
        self.app = app
        self.session = session
        self.job: tuple[str, float, float | None] | None = None  # label, done, total
        self._bars: list[JobProgress] = []
        self._reindex: Worker[None] | None = None

    @property
    def running(self) -> bool:
        """An index job (first build, sync, reindex) is running."""
        return any(w.group in (SYNC, REINDEX) and not w.is_finished for w in self.app.workers)

    @property
    def shell(self) -> Shell:
        return cast(Shell, self.app)

    @property
    def palace(self) -> Palace | None:
        return self.shell.palace

    def sync(self) -> None:
        """Bring the search index in line with the palace in a worker (the first one builds
        it); after a running reindex, which syncs again when it ends."""
        if self.palace is None or (self._reindex is not None and not self._reindex.is_finished):
            return
        self.app.run_worker(
            lambda: self._run(rebuild=False),
            group=SYNC,
            exclusive=True,
            thread=True,
            exit_on_error=False,
        )

    def reindex(self) -> None:
        if self.palace is None:
            self.app.notify("The palace is still loading", severity="warning", markup=False)
        elif self.running:
            self.app.notify("The search index is being built already", markup=False)
        else:
            self.job = ("Reindexing", 0, None)
            self.show()
            self._reindex = self.app.run_worker(
                lambda: self._run(rebuild=True), group=REINDEX, thread=True, exit_on_error=False
            )

    def _run(self, rebuild: bool) -> None:
        """Sync (or rebuild) the index to the app's palace as it is when the job starts.

        Thread workers take no palace argument, here and on every screen: textual keeps
        finished workers (their callable and arguments) reachable from contexts that outlive
        them (the executor thread's own context, tasks and handles made while they ran), and a
        palace argument kept a whole old generation of notes alive after each reload."""
        worker = get_current_worker()
        palace = self.palace
        assert palace is not None  # only started once the palace has loaded
        label = "Reindexing" if rebuild else "Building the search index"
        last = 0.0

        def progress(done: int, total: int) -> None:
            nonlocal last
            now = time.monotonic()
            if not worker.is_cancelled and (now - last >= 0.05 or done >= total):
                last = now
                self.app.call_from_thread(self._progress, label, done, total)

        start = time.monotonic()
        stats: Any
        try:
            if rebuild:
                stats = self.session.reindex(palace, progress)
            else:
                stats = self.session.sync_index(palace, progress)
        except Exception as exc:
            if not worker.is_cancelled:
                self.app.call_from_thread(self._done, exc, None, 0.0, rebuild)
            return
        if not worker.is_cancelled:  # (a newer sync reports)
            self.app.call_from_thread(self._done, None, stats, time.monotonic() - start, rebuild)

    def _progress(self, label: str, done: int, total: int) -> None:
        # embedding is most of the work; writing the table and its text index is the rest
        self.job = (label, done, total * 1.1)
        self.show()

    def _done(self, exc: Exception | None, stats: Any, seconds: float, rebuild: bool) -> None:
        self.job = None
        self.show()
        if exc is not None:
            self.shell.error(exc)
        elif rebuild:
            count = stats.added + stats.updated + stats.unchanged
            self.app.notify(f"Search index rebuilt: {count} notes in {seconds:.1f} s", markup=False)
        if rebuild:
            self._reindex = None
            self.sync()  # the palace may have changed while it ran

    def show(self) -> None:
        """Show the running job on the current screen; remove the bars when none runs."""
        screen = self.app.screen
        for bar in list(self._bars):
            if self.job is None or bar.parent is not screen:
                self._bars.remove(bar)
                bar.remove()
        if self.job is None or not isinstance(screen, PalaceScreen):
            return
        label, done, total = self.job
        try:
            screen.query_one(JobProgress).show(label, done, total)
        except NoMatches:
            bar = JobProgress(label)
            self._bars.append(bar)
            screen.mount(bar, before=screen.query_one(KeyFooter))  # the body's last line
            self.app.call_after_refresh(bar.show, label, done, total)
