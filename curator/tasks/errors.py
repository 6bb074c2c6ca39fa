"""Errors of the task store: each a sentence an agent or a person can act on."""

from __future__ import annotations

from curator.errors import CuratorError


class TaskError(CuratorError):
    """Base of every task-store refusal."""


class BadCheckpoint(TaskError):
    """A checkpoint (given on stdin or found on disk) is not in the seven-section form."""


class TaskNotFound(TaskError):
    """No task of that slug, or a revision that does not exist."""


class Refused(TaskError):
    """The ownership rules refuse the action; `owner` is whoever holds the task (or None)."""

    def __init__(self, message: str, *, owner: str | None = None, path: str | None = None) -> None:
        super().__init__(message, path=path)
        self.owner = owner


class StaleView(Refused):
    """The task moved on since the caller read it: nothing is done from a cached view."""
