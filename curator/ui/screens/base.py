"""What every screen shares: the tab bar, the key footer, and the palace from the app,
refreshed when it reloads."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.app import ComposeResult
from textual.binding import Binding
from textual.events import Resize
from textual.screen import Screen

from curator.model.note import Note
from curator.model.palace import Palace
from curator.ui.widgets.footer import KeyFooter
from curator.ui.widgets.tabs import ScreenTabs

if TYPE_CHECKING:
    from curator.ui.app import CuratorApp


THEMES = ("textual-dark", "textual-light")
NARROW = 120  # columns: below this, screens stack their panes (see the .narrow rules)


class PalaceScreen(Screen[None]):
    BINDINGS = [
        # in the palette ("Theme: dark and light"), not the footer
        Binding("T", "toggle_theme", "Theme", id="app.theme", show=False, tooltip="Dark/light"),
    ]
    #: this screen's mode (its tab)
    MODE = ""
    #: the widget focused once the palace has loaded, if nothing else has focus (tables show
    #: a loading indicator until then, and a loading widget cannot take focus)
    MAIN: str | None = None
    #: below this width the screen stacks its panes (a screen whose list has more columns sets
    #: a wider one)
    NARROW = NARROW
    _seen_version = 0

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width < self.NARROW, "narrow")

    def compose(self) -> ComposeResult:
        yield ScreenTabs(self.MODE)
        yield from self.body()
        yield KeyFooter()

    def body(self) -> ComposeResult:
        """The screen's own widgets, between the tab bar and the footer."""
        yield from ()

    @property
    def curator(self) -> CuratorApp:
        return cast("CuratorApp", self.app)

    @property
    def palace(self) -> Palace | None:
        return self.curator.palace

    def sync(self) -> None:
        """Redraw from the app's palace when it changed since this screen last drew."""
        if self.palace is None or not self.is_mounted:
            return
        if self._seen_version == self.curator.palace_version:
            return
        first = self._seen_version == 0
        self._seen_version = self.curator.palace_version
        self.palace_changed(self.palace)
        self.focus_main(force=first)

    def focus_main(self, *, force: bool = False) -> None:
        """Focus the screen's main list (on the first draw always: nothing the reviewer
        chose has focus yet; later only when nothing has)."""
        if self.MAIN is None or (self.focused is not None and not force):
            return
        widget = self.query_one(self.MAIN)
        widget.loading = False
        if widget.focusable:
            widget.focus()

    def on_screen_resume(self) -> None:
        self.call_after_refresh(self.sync)

    def refresh_requested(self) -> None:
        """The reviewer asked for a reload (ctrl+r)."""

    def palace_changed(self, palace: Palace) -> None:
        """Redraw from `palace`."""

    def action_toggle_theme(self) -> None:
        app = self.app
        app.theme = THEMES[1] if app.theme == THEMES[0] else THEMES[0]

    def find(self, rel: str | None) -> Note | None:
        if rel is None or self.palace is None:
            return None
        return self.palace.by_rel.get(rel)
