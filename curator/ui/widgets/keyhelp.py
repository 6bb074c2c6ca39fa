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
from textual.widgets import HelpPanel, Input, KeyPanel
from textual.widgets._key_panel import BindingsTable

#: one row: keys, what the key does, its id for keys.toml ("" when it has none)
Row = tuple[str, Text, str]


def what_it_does(description: str, tooltip: str) -> str:
    """The key's description and tooltip, the name said once ("Promote into the palace", not
    "Promote Promote into the palace")."""
    if not tooltip or tooltip == description:
        return description
    if tooltip.casefold().startswith(description.casefold().rstrip(".")):
        return tooltip
    return f"{description}: {tooltip}"


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
        text = what_it_does(binding.description, tooltip or binding.tooltip or "")
        what = Text(text, style="" if enabled else "dim")
        row = (app.get_key_display(binding), what, binding.id or "")
        (ours if binding.id else generic).append(row)
    return ours, generic


def matching(rows: list[Row], query: str) -> list[Row]:
    """The rows whose key, text or id hold every word of `query` (any case)."""
    words = query.casefold().split()
    return [
        row
        for row in rows
        if all(w in f"{row[0]} {row[1].plain} {row[2]}".casefold() for w in words)
    ]


class CuratorBindings(BindingsTable):
    def __init__(self, rows: tuple[list[Row], list[Row]]) -> None:
        super().__init__(shrink=True, expand=True)
        self.rows = rows
        self.find = ""  # what the help's filter holds

    def render_bindings_table(self) -> Table:
        table = Table(padding=(0, 1), show_header=False, box=box.SIMPLE, expand=True)
        table.add_column("key", justify="right", style="bold", no_wrap=True)
        table.add_column("what", ratio=1)
        ours, generic = (matching(rows, self.find) for rows in self.rows)
        table.add_row(
            "", Text.assemble(("curator", "bold underline"), ("  id for keys.toml", "dim"))
        )
        for keys, what, id_ in ours:
            table.add_row(keys, Text.assemble(what, "  ", (id_, "dim italic")))
        if generic:
            table.add_row("", Text("generic", style="bold underline"))
            for keys, what, _id in generic:
                table.add_row(keys, what)
        if not ours and not generic:
            table.add_row("", Text(f"no key matches {self.find!r}", style="italic"))
        return table


class CuratorKeyPanel(KeyPanel, can_focus=True):
    """The keys as they were when the help opened (it has the focus now, so the screen's
    active bindings are its own)."""

    BINDINGS = [
        Binding("escape", "app.toggle_keys", "Close", id="keys.close"),
        Binding("slash", "find", "Find", id="keys.find", tooltip="Find a key by name, key or id"),
    ]

    def __init__(self, rows: tuple[list[Row], list[Row]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rows = rows

    def compose(self) -> ComposeResult:
        yield CuratorBindings(self.rows)

    async def on_mount(self) -> None:
        self.set_class(bool(self.app.ansi_color), "-ansi-scrollbar")  # no re-render on focus moves

    def render_bindings_table(self) -> Table:
        return self.query_one(CuratorBindings).render_bindings_table()

    def action_find(self) -> None:
        self.screen.query_one("#keys-filter", KeyFilter).focus()

    def show_matching(self, query: str) -> None:
        table = self.query_one(CuratorBindings)
        table.find = query
        table.refresh(layout=True)
        self.scroll_home(animate=False)


class KeyFilter(Input):
    """What the key help lists: keys whose name, key or id hold the words typed."""

    BINDINGS = [
        Binding("escape", "done(True)", "Clear", id="keys.find_clear", tooltip="Clear the filter"),
        Binding("enter", "done(False)", "Keep", id="keys.find_keep", tooltip="Keep the filter"),
    ]

    def action_done(self, clear: bool) -> None:
        if clear:
            self.value = ""
        self.screen.query_one(CuratorKeyPanel).focus()


class CuratorHelp(HelpPanel):
    def __init__(self, screen: Any) -> None:
        super().__init__()
        self.rows = help_rows(screen.app, list(screen.active_bindings.values()))
        self.gave_focus: Widget | None = screen.focused

    def compose(self) -> ComposeResult:
        yield KeyFilter(placeholder="/ find a key", id="keys-filter")
        yield CuratorKeyPanel(self.rows, id="keys-help")

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.query_one(CuratorKeyPanel).show_matching(event.value)

    def on_mount(self) -> None:
        self.query_one(CuratorKeyPanel).focus()

    def close(self) -> None:
        back = self.gave_focus
        self.remove()
        if back is not None and back.is_attached:
            back.focus()
