"""What every curator dialog shares: the key help on `?` (and on F1 in a text field, where `?`
is a character), listed in the dialog's own footer (a ModalScreen's bindings stop at the
dialog, so the app's own `?` never reached one); and saying when it is up, so keys typed
ahead for it are sent to it (curator/ui/typeahead.py)."""

from __future__ import annotations

from typing import TypeVar

from textual.binding import Binding
from textual.message import Message
from textual.screen import ModalScreen

from curator.ui.paint import KeepsStyles

ResultT = TypeVar("ResultT")


class DialogShown(Message):
    """A dialog is mounted and has focused its field: keys typed ahead for it can go."""


def help_bindings(action_prefix: str, id_prefix: str) -> list[Binding]:
    """The key help's two keys: `?`, and F1 where `?` is a character (the app's check_action
    shows one or the other)."""
    return [
        Binding(
            "question_mark",
            f"{action_prefix}toggle_keys",
            "Keys",
            id=f"{id_prefix}.keys",
            tooltip="Show key help",
        ),
        Binding(
            "f1",
            f"{action_prefix}toggle_keys_typing",
            "Keys",
            id=f"{id_prefix}.keys_typing",
            tooltip="Show key help (in a text field ? types a ?)",
        ),
    ]


class Dialog(KeepsStyles, ModalScreen[ResultT]):
    BINDINGS = [*help_bindings("app.", "dialog")]

    def on_mount(self) -> None:
        # runs after a subclass's on_mount, whose focus() is queued on the app before this
        self.app.post_message(DialogShown())
