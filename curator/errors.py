"""Errors a person must act on: each names a file (and a line where one is known)."""

from __future__ import annotations


class CuratorError(Exception):
    """Base for errors shown to a person as one sentence, never as a traceback."""

    def __init__(self, message: str, *, path: str | None = None, line: int = 0) -> None:
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
