"""The `?` key help: curator's own keys of the focused screen or dialog first, then the
generic keys of the focused widget (cursor moves, text editing). It lies over the right-hand
side of the screen (nothing under it is laid out again, so the tab bar and a screen's filters
stay as they were), takes the focus so Up/Down/PgUp/PgDn scroll it at 80×24, and Escape (or
`?`/F1 again) closes it and gives the focus back."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import HelpPanel, KeyPanel
from textual.widgets._key_panel import BindingsTable

#: one row: keys, what the key does
Row = tuple[str, Text]


def help_rows(app: Any, active: list[Any]) -> tuple[list[Row], list[Row]]:
    """(curator's keys, generic keys) from a screen's active bindings, one row per action."""
    ours: list[Row] = []
    generic: list[Row] = []
    seen: set[str] = set()
    active = sorted(active, key=lambda a: not a.binding.show)  # the footer's keys first
    for _node, binding, enabled, tooltip in active:
        if binding.system or binding.action in seen or not binding.description:
            continue
        seen.add(binding.action)
        what = Text(binding.description, style="" if enabled else "dim")
        if tooltip or binding.tooltip:
            what.append(" " + (tooltip or binding.tooltip), style="dim")
        (ours if binding.id else generic).append((app.get_key_display(binding), what))
    return ours, generic


class CuratorBindings(BindingsTable):
    def __init__(self, rows: tuple[list[Row], list[Row]]) -> None:
        super().__init__(shrink=True, expand=False)
        self.rows = rows

    def render_bindings_table(self) -> Table:
        table = Table(padding=(0, 1), show_header=False, box=box.SIMPLE)
        table.add_column("key", justify="right", style="bold")
        table.add_column("what")
        ours, generic = self.rows
        table.add_row("", Text("curator", style="bold underline"))
        for keys, what in ours:
            table.add_row(keys, what)
        if generic:
            table.add_row("", Text("generic", style="bold underline"))
            for keys, what in generic:
                table.add_row(keys, what)
        return table


class CuratorKeyPanel(KeyPanel, can_focus=True):
    """The keys as they were when the help opened (it has the focus now, so the screen's
    active bindings are its own)."""

    BINDINGS = [Binding("escape", "app.toggle_keys", "Close", id="keys.close")]

    def __init__(self, rows: tuple[list[Row], list[Row]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rows = rows

    def compose(self) -> ComposeResult:
        yield CuratorBindings(self.rows)

    async def on_mount(self) -> None:
        self.set_class(bool(self.app.ansi_color), "-ansi-scrollbar")  # no re-render on focus moves

    def render_bindings_table(self) -> Table:
        return self.query_one(CuratorBindings).render_bindings_table()


class CuratorHelp(HelpPanel):
    def __init__(self, screen: Any) -> None:
        super().__init__()
        self.rows = help_rows(screen.app, list(screen.active_bindings.values()))
        self.gave_focus: Widget | None = screen.focused

    def compose(self) -> ComposeResult:
        yield CuratorKeyPanel(self.rows, id="keys-help")

    def on_mount(self) -> None:
        self.query_one(CuratorKeyPanel).focus()

    def close(self) -> None:
        back = self.gave_focus
        self.remove()
        if back is not None and back.is_attached:
            back.focus()
