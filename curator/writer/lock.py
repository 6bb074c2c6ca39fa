"""One curator writer at a time per palace: ``.curator/writer.lock``, held with filelock.

filelock (an OS-level ``flock`` on POSIX) is released by the kernel when the holder dies, so
a killed writer never leaves the palace locked; what it left half-done is the journal's job
(:mod:`curator.writer.journal`).
"""

from __future__ import annotations

import os
from pathlib import Path

from filelock import FileLock, Timeout

from curator.errors import WriterError
from curator.model.discovery import ensure_state_dir

__all__ = ["LOCK_REL", "LockTimeoutError", "WriterLock"]

LOCK_REL = ".curator/writer.lock"
POLL = 0.01  # seconds between tries: a racing action waits for the other's commit, not longer


class LockTimeoutError(WriterError):
    def __init__(self, path: Path, holder: str, waited: float) -> None:
        self.lock_path = path
        self.holder = holder
        super().__init__(
            f"another curator action (pid {holder}) holds {path}; waited {waited:.1f}s. Wait "
            f"for it to finish, then try again."
        )


def _name_holder(fd: int) -> None:
    """The holder's pid in the lock file, for the message of whoever waits too long (padded to
    one width, so it overwrites the last holder's without truncating the file)."""
    os.pwrite(fd, f"{os.getpid():>10}\n".encode(), 0)


def _holder(path: Path) -> str:
    try:
        return path.read_text("ascii", "replace").strip() or "unknown"
    except OSError:
        return "unknown"


class WriterLock:
    """A context manager: ``with WriterLock(root): ...`` holds the palace's writer lock."""

    def __init__(self, palace_root: Path, timeout: float = 10.0) -> None:
        self.path = Path(palace_root) / LOCK_REL
        self.timeout = timeout
        self._lock = FileLock(
            self.path,
            timeout=timeout,
            poll_interval=POLL,
            thread_local=False,
            preserve_lock_file=True,
            on_acquired=_name_holder,
        )

    def acquire(self) -> None:
        try:
            ensure_state_dir(self.path.parent.parent)  # .curator/ with its .gitignore
            self._lock.acquire()
        except Timeout:
            raise LockTimeoutError(self.path, _holder(self.path), self.timeout) from None
        except OSError as exc:
            raise WriterError(
                f"cannot take the writer lock {self.path}: {exc.strerror or exc}; nothing was "
                f"changed"
            ) from None

    def release(self) -> None:
        self._lock.release()

    def __enter__(self) -> WriterLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
