"""What must happen after every writer commit, registered by the wings that need it.

The writer knows nothing of search: the search wing registers its index sync here once at
start (``curator.search.register_hooks``), and the writer runs every registered callback after
each commit and undo, still holding the writer lock. A failing callback never loses the
commit: its error becomes a warning on the result.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from curator.model.palace import Palace

__all__ = ["AfterCommit", "register_after_commit", "run_after_commit"]

AfterCommit = Callable[[Path, "Palace | None", list[str]], None]
"""callback(root, after, changed_paths): `after` is the palace as the commit left it when the
writer knows it without reloading (None otherwise); `changed_paths` are palace-relative."""

_CALLBACKS: list[AfterCommit] = []


def register_after_commit(callback: AfterCommit) -> None:
    """Run `callback` after every commit from now on (registering it twice runs it once)."""
    if callback not in _CALLBACKS:
        _CALLBACKS.append(callback)


def run_after_commit(root: Path, after: Palace | None, changed_paths: list[str]) -> list[str]:
    """Call every registered callback; the warnings of those that failed, one line each."""
    warnings: list[str] = []
    for callback in list(_CALLBACKS):
        try:
            callback(root, after, list(changed_paths))
        except Exception as exc:  # a derived view failed: the commit stands, say so
            name = getattr(callback, "__qualname__", repr(callback))
            warnings.append(f"after the commit, {name} failed: {exc}")
    return warnings
