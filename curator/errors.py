"""Errors a person must act on, and the one table of exit codes.

Every error curator shows a person is a CuratorError: one sentence naming a file (and a line
where one is known), never a traceback. The wings put their own kinds under it (WriterError
for anything that changes the palace, SearchIndexError for the search index), and
:func:`exit_code` maps any exception to the process's exit status from :data:`EXIT_CODES`.
"""

from __future__ import annotations


class CuratorError(Exception):
    """Base for errors shown to a person as one sentence, never as a traceback."""

    def __init__(self, message: str = "", *, path: str | None = None, line: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line

    def __str__(self) -> str:
        if self.path and self.line:
            return f"{self.path}:{self.line}: {self.message}"
        if self.path:
            return f"{self.path}: {self.message}"
        return self.message


class ConfigError(CuratorError):
    """palace.toml is unreadable or holds an unknown key or a bad value."""


class PalaceNotFound(CuratorError):
    """No palace at the given path, in CURATOR_PALACE, or above the working directory."""


class NoteNotFound(CuratorError):
    """A note or draft reference matched nothing (or more than one thing)."""


class WriterError(CuratorError):
    """An action could not change the palace; the files are as they were before it."""


class SearchIndexError(CuratorError):
    """The search index is missing, damaged or cannot be written."""


EXIT_OK = 0
EXIT_FAILED = 1  # the command ran and found problems (check, audit), or the user declined
EXIT_REFUSED = 2  # a CuratorError: nothing was changed; stderr says why in one line
EXIT_INTERNAL = 3  # a bug: one line on stderr, nothing half-written
EXIT_INTERRUPTED = 130  # Ctrl-C

EXIT_CODES: dict[int, str] = {
    EXIT_OK: "done",
    EXIT_FAILED: "ran, and found problems (check, audit, index --check) or the user said no",
    EXIT_REFUSED: "refused: an error a person must act on; nothing was changed",
    EXIT_INTERNAL: "internal error (a bug); nothing was half-written",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C)",
}


def exit_code(exc: BaseException) -> int:
    """The exit status a command that ended with `exc` returns."""
    if isinstance(exc, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    if isinstance(exc, CuratorError):
        return EXIT_REFUSED
    return EXIT_INTERNAL
