"""Small modal dialogs: ask for a line of text, edit a file's text."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, TextArea

from curator.ui.safe import plain


class AskDialog(ModalScreen[str | None]):
    """One line of text (a reason, a name, a note); Enter accepts, Escape cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="ask.cancel", tooltip="Cancel")]

    def __init__(self, prompt: str, value: str = "", *, required: bool = True) -> None:
        super().__init__()
        self.prompt = prompt
        self.value = value
        self.required = required

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Label(plain(self.prompt, "bold"))
            yield Input(self.value, id="ask-input", select_on_focus=False)
            yield Label("", id="ask-error", classes="error")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        if self.required and not value:
            self.query_one("#ask-error", Label).update("A value is required.")
            return
        self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class EditDialog(ModalScreen[str | None]):
    """Edit a note's whole text; ctrl+s saves (dismisses the new text), Escape cancels."""

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="edit.save", tooltip="Plan the edit"),
        Binding("escape", "cancel", "Cancel", id="edit.cancel", tooltip="Discard"),
    ]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box", id="edit-box"):
            yield Label(plain(self.title_text, "bold"))
            yield TextArea(self.text, id="edit-area", soft_wrap=True, show_line_numbers=False)

    def action_save(self) -> None:
        self.dismiss(self.query_one(TextArea).text)

    def action_cancel(self) -> None:
        self.dismiss(None)
