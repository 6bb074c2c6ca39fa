"""Editing a text: in `$VISUAL`/`$EDITOR` when one is set (the app suspended meanwhile), in the
built-in editor otherwise. A text that does not validate is never thrown away: it opens in
the built-in editor with the problems shown."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from textual.app import App, SuspendNotSupported

from curator.ui.widgets.dialogs import Check, EditDialog


def outside_editor() -> list[str] | None:
    command = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    return shlex.split(command) if command and command.strip() else None


def run_editor(app: App[Any], argv: list[str], text: str, suffix: str = ".md") -> str | None:
    """The text after the editor `argv` edited it (None: the app cannot suspend here, or the
    editor failed; the caller uses the built-in editor)."""
    fd, name = tempfile.mkstemp(prefix="curator-edit-", suffix=suffix)
    path = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        try:
            with app.suspend():
                try:  # inside the block: suspend() gives the terminal back only on a clean exit
                    done = subprocess.run([*argv, str(path)], check=False)
                except OSError:  # no such program: the built-in editor instead
                    return None
        except SuspendNotSupported:
            return None
        if done.returncode != 0:
            return None
        return path.read_text(encoding="utf-8")
    finally:
        path.unlink(missing_ok=True)


async def edit_text(
    app: App[Any], title: str, text: str, check: Check, *, keep_unchanged: bool = False
) -> str | None:
    """The edited text once it validates (None: cancelled, or unchanged unless
    `keep_unchanged`: a merge goes ahead with the merged text as it is). Call from a worker."""
    argv = outside_editor()
    edited = run_editor(app, argv, text) if argv else None
    if edited is not None:
        if edited == text and not keep_unchanged:
            return None
        if not check(edited):
            return edited
    start = text if edited is None else edited
    dialog = EditDialog(title, start, check=check, original=text)
    result: str | None = await app.push_screen_wait(dialog)
    if result is None or (result == text and not keep_unchanged):
        return None
    return result
