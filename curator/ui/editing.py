"""Editing a text: in `$VISUAL`/`$EDITOR` when one is set (the app suspended meanwhile), in the
built-in editor otherwise. A text that does not validate is never thrown away: it opens in
the built-in editor with the problems shown."""

from __future__ import annotations

from typing import Any

from textual.app import App, SuspendNotSupported

from curator.model.text import clean
from curator.ui import services
from curator.ui.widgets.dialogs import AskDialog, Check, EditDialog


def outside_editor() -> list[str] | None:
    return services.editor_command()


#: run_editor's answer when the editor exited with an error (vim's :cq): nothing changes
CANCELLED = object()


def run_editor(app: App[Any], argv: list[str], text: str, suffix: str = ".md") -> Any:
    """The text after the editor `argv` edited it; None when it could not run here (the app
    cannot suspend, or no such program: the caller uses the built-in editor, and the reviewer
    is told why); CANCELLED when the editor exited with an error."""
    program = clean(argv[0])
    done = None
    try:
        try:
            with app.suspend():
                try:  # inside the block: suspend() gives the terminal back only on a clean exit
                    done = services.run_editor(argv, text.encode("utf-8"), suffix=suffix)
                except OSError as exc:
                    app.notify(
                        f"Could not start {program} ({clean(exc.strerror or str(exc))}): "
                        "editing here instead",
                        severity="warning",
                        markup=False,
                    )
                    return None
        except SuspendNotSupported:
            app.notify(
                f"{program} cannot have the terminal here: editing in the app instead",
                severity="warning",
                markup=False,
            )
            return None
        if done.returncode != 0:
            app.notify(f"{program} exited with {done.returncode}: nothing changed", markup=False)
            return CANCELLED
        return done.data.decode("utf-8")
    finally:
        if done is not None:
            done.path.unlink(missing_ok=True)


async def edit_text(
    app: App[Any],
    title: str,
    text: str,
    check: Check,
    *,
    keep_unchanged: bool = False,
    reason: list[str] | None = None,
) -> str | None:
    """The edited text once it validates (None: cancelled, or unchanged unless
    `keep_unchanged`: a merge goes ahead with the merged text as it is). Call from a worker.
    With `reason`, the reviewer is asked why (as a commit message is asked for): a line under
    the built-in editor, or a one-line question after $EDITOR; it is appended to `reason`."""
    argv = outside_editor()
    edited = run_editor(app, argv, text) if argv else None
    if edited is CANCELLED:
        return None
    if edited is not None:
        if edited == text and not keep_unchanged:
            return None
        if not check(edited):
            if reason is not None:
                asked = AskDialog("Why this edit? (one line; Enter alone: none)", required=False)
                said: str | None = await app.push_screen_wait(asked)
                reason.append(said or "")
            return edited
    start = text if edited is None else edited
    dialog = EditDialog(title, start, check=check, original=text, ask_reason=reason is not None)
    result: str | None = await app.push_screen_wait(dialog)
    if result is None or (result == text and not keep_unchanged):
        return None
    if reason is not None:
        reason.append(dialog.reason)
    return result
