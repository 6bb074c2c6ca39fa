"""The messages log: every notification the app showed this session, newest last, in a dialog
the person opens with `L` (listed in `?` and the palette). A toast goes after a few seconds and
a long one is cut to the lines it has; the log keeps each whole, with its time."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, Static

from curator.ui.safe import block
from curator.ui.widgets.dialog_base import Dialog
from curator.ui.widgets.footer import KeyFooter

KEEP = 500  # messages kept (the oldest go first)
#: a toast longer than this is shown cut, ending in TOAST_MORE; the log has it whole
TOAST_CHARS = 140
TOAST_MORE = " … (L: messages)"
_STYLE = {"error": "bold red", "warning": "yellow", "information": ""}


@dataclass(frozen=True)
class Message:
    at: datetime
    severity: str
    text: str


class MessageLog:
    def __init__(self) -> None:
        self.messages: deque[Message] = deque(maxlen=KEEP)

    def add(self, text: str, severity: str) -> None:
        self.messages.append(Message(datetime.now().astimezone(), severity, text))

    def render(self) -> Text:
        if not self.messages:
            return Text("No messages yet.", style="dim")
        out = Text()
        for message in self.messages:
            out.append(message.at.strftime("%H:%M:%S "), style="dim")
            out.append_text(block(message.text, _STYLE.get(message.severity, "")))
            out.append("\n")
        return out


def toast_text(text: str) -> str:
    """What a toast shows of `text`: all of it, or its start and where the rest is."""
    if len(text) <= TOAST_CHARS:
        return text
    return text[: TOAST_CHARS - len(TOAST_MORE)].rstrip() + TOAST_MORE


class MessagesDialog(Dialog[None]):
    BINDINGS = [
        Binding("escape,L", "close", "Close", id="messages.close", tooltip="Close the log"),
    ]

    def __init__(self, log: MessageLog) -> None:
        super().__init__()
        self.log_ = log

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box", id="messages-box"):
            yield Label(Text("Messages (newest last)", style="bold"))
            with VerticalScroll(id="messages-scroll"):
                yield Static(self.log_.render(), id="messages-text")
            yield Label("Up/Down, PgUp/PgDn: scroll · Escape: close", classes="hint")
        yield KeyFooter()

    def on_mount(self) -> None:
        scroll = self.query_one("#messages-scroll", VerticalScroll)
        scroll.focus()
        self.call_after_refresh(scroll.scroll_end, animate=False)
        super().on_mount()

    def action_close(self) -> None:
        self.dismiss(None)
