"""The person's own editor ($VISUAL, else $EDITOR) run on a temp file: the one runner that
`curator edit` and the app's Edit share.

The command is the user's setting, split as a shell would split it but never run through one;
the file name is curator's own, never note text.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Edited", "editor_command", "run_editor"]


def editor_command(fallback: str | None = None) -> list[str] | None:
    """$VISUAL, else $EDITOR, else `fallback`, as an argument list (None when none is set)."""
    command = os.environ.get("VISUAL") or os.environ.get("EDITOR") or fallback
    return shlex.split(command) if command and command.strip() else None


@dataclass(frozen=True)
class Edited:
    returncode: int
    data: bytes  # the file's bytes after the editor exited
    path: Path  # the temp file, left for the caller to keep or remove


def run_editor(
    argv: list[str],
    data: bytes,
    *,
    folder: Path | None = None,
    prefix: str = "curator-edit-",
    suffix: str = ".md",
) -> Edited:
    """`data` in a new temp file (in `folder`), edited by `argv`; OSError when the editor
    cannot start (the temp file is removed then)."""
    fd, name = tempfile.mkstemp(dir=folder, prefix=prefix, suffix=suffix)
    path = Path(name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        done = subprocess.run([*argv, str(path)], check=False)
        return Edited(done.returncode, path.read_bytes(), path)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
