"""Watching a palace's files: a daemon thread that calls back when notes, drafts or
palace.toml change on disk (the CLI, agents, `git pull`), ignoring curator's derived state."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from curator.model.discovery import palace_changed

DEBOUNCE_MS = 50  # changes within this many milliseconds are one change


class PalaceWatch:
    """Calls each listener (from the watch thread) after a change; `stop` ends the thread."""

    def __init__(self, root: Path, debounce_ms: int = DEBOUNCE_MS) -> None:
        self.root = Path(root).resolve()
        self.debounce_ms = debounce_ms
        self._listeners: list[Callable[[], None]] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def listen(self, listener: Callable[[], None]) -> None:
        """Call `listener` after every change from now on (the thread starts with the first)."""
        self._listeners.append(listener)
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="curator-watch", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        from watchfiles import watch

        root = self.root
        for _changes in watch(
            root,
            watch_filter=lambda _change, path: palace_changed(root, path),
            debounce=self.debounce_ms,
            step=50,
            stop_event=self._stop,
            raise_interrupt=False,
        ):
            for listener in list(self._listeners):
                listener()
