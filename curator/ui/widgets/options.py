"""An option list that moves as the app's tables do: j/k beside Down/Up, Home and End."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import OptionList


class Options(OptionList):
    """OptionList with the app's list keys: j/k move like Down/Up, as they do in every table."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
    ]
