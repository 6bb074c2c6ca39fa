"""What runs after a writer commit: the derived views a caller keeps in step (its search
index), passed to the commit by that caller, so the writer knows nothing of search.

The writer runs each callback after the commit (and undo, and a sync's replay), still
holding the writer lock. A failing callback never loses the commit: its error becomes a
warning on the result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from curator.model.palace import Palace

__all__ = ["AfterCommit", "run_after_commit"]

AfterCommit = Callable[[Path, "Palace | None", list[str]], None]
"""callback(root, after, changed_paths): `after` is the palace as the commit left it when the
writer knows it without reloading (None otherwise); `changed_paths` are palace-relative."""


def run_after_commit(
    callbacks: Iterable[AfterCommit], root: Path, after: Palace | None, changed_paths: list[str]
) -> list[str]:
    """Call each callback; the warnings of those that failed, one line each."""
    warnings: list[str] = []
    for callback in callbacks:
        try:
            callback(root, after, list(changed_paths))
        except Exception as exc:  # a derived view failed: the commit stands, say so
            name = getattr(callback, "__qualname__", repr(callback))
            warnings.append(f"after the commit, {name} failed: {exc}")
    return warnings
