"""A diff on the whole screen, as lazygit's `+` zoom: the plan dialog's, a task's revisions' and
a sync conflict's (or the merged text once a conflict is merged), scrollable; Escape or z goes
back to where it was opened."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, Static

from curator.ui.safe import plain
from curator.ui.widgets.dialog_base import Dialog
from curator.ui.widgets.footer import KeyFooter

#: the key that zooms a diff, where one shows (and closes the zoom again)
ZOOM_KEYS = "z"


def zoom_binding(prefix: str) -> Binding:
    return Binding(ZOOM_KEYS, "zoom", "Zoom", id=f"{prefix}.zoom", tooltip="The diff full screen")


class ZoomDialog(Dialog[None]):
    BINDINGS = [
        Binding(f"escape,{ZOOM_KEYS}", "close", "Back", id="zoom.close", tooltip="Back"),
        Binding("j", "scroll(1)", "Down", id="zoom.down", show=False, tooltip="Scroll down"),
        Binding("k", "scroll(-1)", "Up", id="zoom.up", show=False, tooltip="Scroll up"),
    ]

    def __init__(self, title: str, text: Text) -> None:
        super().__init__()
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="zoom-box"):
            yield Label(plain(self.title_text, "bold"), id="zoom-title")
            with VerticalScroll(id="zoom-scroll"):
                yield Static(self.text, id="zoom-text")
            yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#zoom-scroll").focus()
        super().on_mount()

    def action_scroll(self, step: int) -> None:
        self.query_one("#zoom-scroll", VerticalScroll).scroll_relative(y=step, animate=False)

    def action_close(self) -> None:
        self.dismiss(None)
