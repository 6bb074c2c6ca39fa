"""What every screen shares: the tab bar, the key footer, and the palace the app publishes
(its `palace` reactive, watched: a screen redraws when it is in the stack on show, else once it
is shown again). Screens never import the app: they ask it for what `Shell` lists."""

from __future__ import annotations

from typing import cast

from textual.app import ComposeResult
from textual.binding import Binding
from textual.events import Resize
from textual.screen import Screen

from curator.model.note import Note
from curator.model.palace import Palace
from curator.model.text import one_line
from curator.ui.paint import KeepsStyles
from curator.ui.shell import Shell
from curator.ui.widgets.footer import KeyFooter
from curator.ui.widgets.marked_table import MarkedTable
from curator.ui.widgets.tabs import ScreenTabs

THEMES = ("textual-dark", "textual-light")
NARROW = 120  # columns: below this, screens stack their panes (see the .narrow rules)


class PalaceScreen(KeepsStyles, Screen[None]):
    BINDINGS = [
        # in the palette ("Theme: dark and light"), not the footer
        Binding("T", "toggle_theme", "Theme", id="app.theme", show=False, tooltip="Dark/light"),
        Binding(
            "w",
            "toggle_wide",
            "Wide",
            id="app.wide",
            show=False,  # in `?` and the palette: the footer keeps its room for the screen's keys
            tooltip="Wide mode (k9s's): the list takes the whole screen, its columns widen; "
            "w again brings the panes beside it back",
        ),
    ]
    #: this screen's mode (its tab)
    MODE = ""
    #: the widget focused once the palace has loaded, if nothing else has focus (tables show
    #: a loading indicator until then, and a loading widget cannot take focus)
    MAIN: str | None = None
    #: below this width the screen stacks its panes (a screen whose list has more columns sets
    #: a wider one)
    NARROW = NARROW
    _stale = True  # the app published a palace this screen has not drawn yet
    _has_drawn = False  # it has drawn one
    #: left after it drew, with a widget focused: shown again, the focus Textual restores is
    #: where the reviewer left it (Rooms' links, a side list), not necessarily MAIN
    focus_restored = False

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width < self.NARROW, "narrow")

    def compose(self) -> ComposeResult:
        # the class for the app's width before any widget is mounted, so each is styled for
        # it as it mounts: set by the first resize instead, it restyled every widget again
        self.set_class(self.app.size.width < self.NARROW, "narrow")
        yield ScreenTabs(self.MODE)
        yield from self.body()
        yield KeyFooter()

    def body(self) -> ComposeResult:
        """The screen's own widgets, between the tab bar and the footer."""
        yield from ()

    @property
    def curator(self) -> Shell:
        return cast(Shell, self.app)

    @property
    def palace(self) -> Palace | None:
        """The palace the app publishes now (read when needed, never kept: a screen out of
        sight holds no old generation of notes)."""
        return self.curator.palace

    def on_mount(self) -> None:
        # after the screen's own on_mount (Textual runs the base class's handler next)
        self.watch(self.app, "palace", self._published, init=False)
        self.sync()

    def _published(self, _palace: Palace | None) -> None:
        self._stale = True
        if self in self.app.screen_stack:  # on show, or under a dialog on show
            self.sync()

    def sync(self) -> None:
        """Redraw from the app's palace when it changed since this screen last drew."""
        if self.palace is None or not self.is_mounted or not self._stale:
            return
        first = not self._has_drawn
        self._stale, self._has_drawn = False, True
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

    def on_screen_suspend(self) -> None:
        self.focus_restored = self._has_drawn and self.focused is not None

    def palace_changed(self, palace: Palace) -> None:
        """Redraw from `palace`."""

    def action_toggle_wide(self) -> None:
        """On every screen at once (a class on the app the screens' sheets read): a reviewer
        who wants long names wants them on the next screen too."""
        self.app.toggle_class("-wide")

    def action_toggle_theme(self) -> None:
        app = self.app
        app.theme = THEMES[1] if app.theme == THEMES[0] else THEMES[0]

    def find(self, rel: str | None) -> Note | None:
        if rel is None or self.palace is None:
            return None
        return self.palace.by_rel.get(rel)

    def name_of(self, rel: str) -> str:
        note = self.find(rel)
        return one_line((note.name if note is not None else "") or rel, 60)

    # -- marks: the keys of `mark_bindings` act on the screen's MarkedTable ----------------
    @property
    def marks(self) -> MarkedTable:
        return self.query_one(MarkedTable)

    @property
    def marked(self) -> set[str]:
        """The rows marked in the screen's MarkedTable (none when it has none)."""
        tables = self.query(MarkedTable)
        return tables.first().marked if tables else set()

    def action_mark(self) -> None:
        self.marks.toggle()

    def action_mark_move(self, step: int) -> None:
        self.marks.mark_move(step)

    def action_mark_like(self) -> None:
        self.marks.mark_like()

    def action_unmark_all(self) -> None:
        self.marks.unmark()

    def action_back_out(self) -> None:
        """Escape: the marks go first (the list and the cursor stay)."""
        if self.marked:
            self.marks.unmark()


def note_words(note: Note) -> str:
    """What `/` finds a listed note or draft by: its name, its path, its tags."""
    return " ".join([note.name, note.rel, *note.tags]).lower()
