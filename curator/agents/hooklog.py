"""The hook log: one JSON line per hook run in .curator/hooks.log, so a hook that silently
produces nothing (or fails every time) shows up in `curator hook log`.

Each record: at (UTC time), tool (claude-code | generic), event, ms, items, outcome
(ok | empty | error | timeout) and detail (what failed, one line). The log keeps its last
MAX_RECORDS runs: past twice that, the oldest half is dropped on the next write.
"""

from __future__ import annotations

import contextlib
import json
import os
import time

TYPE_CHECKING = False  # typing.TYPE_CHECKING without loading typing: a hook process imports this
if TYPE_CHECKING:  # nor pathlib (see curator.model.discovery)
    from pathlib import Path
    from typing import Any

__all__ = ["LOG_REL", "append", "failure", "read"]

LOG_REL = ".curator/hooks.log"
MAX_RECORDS = 2000
_MAX_BYTES = MAX_RECORDS * 400  # a record is well under 400 bytes


def append(root: str | Path, record: dict[str, Any]) -> None:
    """Append one record; never raises (a hook must not fail because its log cannot be written)."""
    from curator.model.discovery import state_dir

    record = {"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **record}
    line = json.dumps(record, ensure_ascii=False) + "\n"
    with contextlib.suppress(OSError):
        state_dir(root)
        path = os.path.join(os.fspath(root), LOG_REL)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0))
        try:
            os.write(fd, line.encode("utf-8"))
            size = os.fstat(fd).st_size
        finally:
            os.close(fd)
        if size > _MAX_BYTES:
            _trim(path)


def failure(exc: BaseException) -> str:
    """What failed, as a record's detail (and the hook's stderr line) says it: one line."""
    text = " ".join(str(exc).split())[:300]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _trim(log: str) -> None:
    from pathlib import Path

    from curator.fsutil import atomic_write

    path = Path(log)
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
    atomic_write(path, "".join(lines[-MAX_RECORDS:]).encode("utf-8"), sync=False)


def read(root: str | Path, limit: int = 50) -> list[dict[str, Any]]:
    """The last `limit` records, oldest first; unreadable lines are skipped."""
    try:
        with open(os.path.join(os.fspath(root), LOG_REL), encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    out: list[dict[str, Any]] = []
    for line in lines[-limit:] if limit > 0 else lines:
        with contextlib.suppress(ValueError):
            value = json.loads(line)
            if isinstance(value, dict):
                out.append(value)
    return out
