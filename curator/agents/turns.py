"""One agent turn's record, so the Stop hook can tell whether the turn changed the project.

UserPromptSubmit `mark`s the turn: when it started and a digest of the project's git state
(HEAD, the status lines and their files' mtimes), in .curator/turns/<session>.json. Stop
compares the digest with the state now; `captured_since` tells whether a draft landed in the
inbox during the turn. A project that is not a git repository has no state (None): no warning.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

from curator.gitenv import git_env

__all__ = ["captured_since", "leave", "mark", "once", "project_state", "read", "take"]

TURN_DIR = ".curator/turns"
KEEP_SECONDS = 7 * 86400


def project_state(project: Path) -> str | None:
    """A digest of the project's git state, or None outside a repository."""
    try:
        proc = subprocess.run(
            ["git", "-C", str(project), "status", "--porcelain=v1", "-z", "--untracked-files"],
            capture_output=True,
            timeout=1.5,
            check=False,
            env=git_env(),
        )
        head = subprocess.run(
            ["git", "-C", str(project), "rev-parse", "-q", "--verify", "HEAD"],
            capture_output=True,
            timeout=1.0,
            check=False,
            env=git_env(),
        )
    except (OSError, ValueError, subprocess.SubprocessError):  # ValueError: a NUL in the path
        return None
    if proc.returncode != 0:
        return None
    digest = hashlib.sha256(head.stdout)
    for entry in proc.stdout.split(b"\0"):
        digest.update(entry)
        with contextlib.suppress(OSError, ValueError):
            digest.update(str(os.stat(project / os.fsdecode(entry[3:])).st_mtime_ns).encode())
    return digest.hexdigest()


def _path(root: Path, session: str) -> Path:
    return Path(root) / TURN_DIR / f"{session}.json"


def mark(root: Path, session: str, project: Path, started: float) -> None:
    """Record the start of a turn (never raises: a hook must not fail for it)."""
    from curator.fsutil import atomic_write
    from curator.model.discovery import ensure_state_dir

    with contextlib.suppress(OSError):
        ensure_state_dir(root)
        path = _path(root, session)
        path.parent.mkdir(exist_ok=True)
        state = {
            "started": started,
            "state": project_state(project),
            "inbox": inbox_listing(root),
        }
        atomic_write(path, json.dumps(state).encode("utf-8"), sync=False)
        _sweep(path.parent, started - KEEP_SECONDS)


def _sweep(folder: Path, cutoff: float) -> None:
    """Forget the turns of sessions idle for long (one file per session otherwise piles up)."""
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            with contextlib.suppress(OSError):
                if entry.stat(follow_symlinks=False).st_mtime < cutoff:
                    os.unlink(entry.path)


def read(root: Path, session: str) -> dict[str, Any] | None:
    try:
        value = json.loads(_path(root, session).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _note_path(root: Path, session: str) -> Path:
    return Path(root) / TURN_DIR / f"{session}.next.json"


def leave(root: Path, session: str, lines: list[str]) -> None:
    """Lines for the session's next prompt to carry to the model (Stop's message: what Stop
    prints reaches the person only). Never raises."""
    from curator.fsutil import atomic_write
    from curator.model.discovery import ensure_state_dir

    with contextlib.suppress(OSError):
        ensure_state_dir(root)
        path = _note_path(root, session)
        path.parent.mkdir(exist_ok=True)
        atomic_write(path, json.dumps(lines).encode("utf-8"), sync=False)


def take(root: Path, session: str) -> list[str]:
    """The lines `leave` left for this session, once (they are removed as they are read)."""
    path = _note_path(root, session)
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
        path.unlink()
    except (OSError, ValueError):
        return []
    return [str(v) for v in value] if isinstance(value, list) else []


def once(root: Path, session: str, what: str, every: float, now: float) -> bool:
    """True at most once per `every` seconds for this session and `what` (and records it)."""
    from curator.model.discovery import ensure_state_dir

    path = Path(root) / TURN_DIR / f"{session}.{what}"
    with contextlib.suppress(OSError):
        if now - path.stat().st_mtime < every:
            return False
    with contextlib.suppress(OSError):
        ensure_state_dir(root)
        path.parent.mkdir(exist_ok=True)
        path.touch()
        os.utime(path, (now, now))
    return True


def inbox_listing(root: Path) -> dict[str, int]:
    """{draft file name: mtime in ns} of the inbox now (empty when there is none, or when
    palace.toml cannot say where it is: a hook never fails for it)."""
    from curator.errors import CuratorError
    from curator.model.discovery import inbox_of

    with (
        contextlib.suppress(OSError, CuratorError),
        os.scandir(Path(root) / inbox_of(root)) as entries,
    ):
        return {
            e.name: e.stat(follow_symlinks=False).st_mtime_ns
            for e in entries
            if e.name.endswith(".md")
        }
    return {}


def captured_since(root: Path, turn: dict[str, Any]) -> bool:
    """Did a draft land in (or change in) the inbox during the turn? Compared with the listing
    `mark` took at its start; a turn marked without one falls back to mtimes after its start
    (a second of slack for coarse clocks)."""
    now = inbox_listing(root)
    before = turn.get("inbox")
    if isinstance(before, dict):
        return any(before.get(name) != mtime for name, mtime in now.items())
    since = float(turn.get("started", 0)) - 1
    return any(mtime / 1e9 >= since for mtime in now.values())
