"""The tab bar of the app's screens, at the top of every screen: where you are, and the key
that goes to each of the others. It never takes focus (the number keys switch screens); a
click on a tab switches too.

One label per screen, not Textual's Tabs: a Tabs widget mounted while the app switched screens
fast ("2", "3", "6" in one burst) raised "No Tab with id 'tab-tasks'" from its own mount and
ended the app. The active tab is marked in brackets and reverse bold, so it shows without
colour, not by a brighter grey alone."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.events import Click
from textual.widgets import Static

from curator.ui.screens_list import SCREENS


def tab_label(key: str, title: str, active: bool) -> Text:
    if active:
        return Text(f"[{key} {title}]", style="bold reverse")
    return Text(f" {key} {title} ")


class ScreenTab(Static):
    def __init__(self, mode: str, active: bool) -> None:
        title, key, _help = SCREENS[mode]
        super().__init__(tab_label(key, title, active), id=f"tab-{mode}")
        self.mode = mode
        self.set_class(active, "-active")

    def on_click(self, event: Click) -> None:
        event.stop()
        self.app.call_later(self.app.run_action, f"show_screen('{self.mode}')")


class ScreenTabs(Horizontal):
    can_focus = False

    def __init__(self, mode: str) -> None:
        super().__init__(id="screen-tabs")
        self.mode = mode

    def compose(self) -> ComposeResult:
        for mode in SCREENS:
            yield ScreenTab(mode, mode == self.mode)
