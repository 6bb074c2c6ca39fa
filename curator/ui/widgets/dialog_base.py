"""What every curator dialog shares: the key help on `?` (and on F1 in a text field, where `?`
is a character), listed in the dialog's own footer (a ModalScreen's bindings stop at the
dialog, so the app's own `?` never reached one); and saying when it is up, so keys typed
ahead for it are sent to it (curator/ui/typeahead.py)."""

from __future__ import annotations

from typing import TypeVar

from textual.binding import Binding
from textual.message import Message
from textual.screen import ModalScreen

ResultT = TypeVar("ResultT")


class DialogShown(Message):
    """A dialog is mounted and has focused its field: keys typed ahead for it can go."""


class Dialog(ModalScreen[ResultT]):
    BINDINGS = [
        Binding("question_mark", "app.toggle_keys", "Keys", id="dialog.keys", tooltip="Key help"),
        Binding(
            "f1",
            "app.toggle_keys_typing",
            "Keys",
            id="dialog.keys_typing",
            tooltip="Key help (in a text field ? types a ?)",
        ),
    ]

    def on_mount(self) -> None:
        # runs after a subclass's on_mount, whose focus() is queued on the app before this
        self.app.post_message(DialogShown())
