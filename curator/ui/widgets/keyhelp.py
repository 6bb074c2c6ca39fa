"""The `?` key help: the keys of the focused screen or dialog and curator's own keys first,
then the generic keys of the focused widget (cursor moves, text editing)."""

from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import HelpPanel, KeyPanel, Markdown


class CuratorKeyPanel(KeyPanel):
    def render_bindings_table(self) -> Table:
        table = Table(padding=(0, 1), show_header=False, box=box.SIMPLE)
        table.add_column("key", justify="right", style="bold")
        table.add_column("what")
        ours: list[tuple[str, Text]] = []
        generic: list[tuple[str, Text]] = []
        seen: set[str] = set()
        for _node, binding, enabled, tooltip in self.screen.active_bindings.values():
            if binding.system or binding.action in seen or not binding.description:
                continue
            seen.add(binding.action)
            keys = self.app.get_key_display(binding)
            what = Text(binding.description, style="" if enabled else "dim")
            if tooltip or binding.tooltip:
                what.append(" " + (tooltip or binding.tooltip), style="dim")
            (ours if binding.id else generic).append((keys, what))
        table.add_row("", Text("curator", style="bold underline"))
        for keys, what in ours:
            table.add_row(keys, what)
        if generic:
            table.add_row("", Text("generic", style="bold underline"))
            for keys, what in generic:
                table.add_row(keys, what)
        return table


class CuratorHelp(HelpPanel):
    def compose(self) -> ComposeResult:
        yield Markdown(id="widget-help")
        yield CuratorKeyPanel(id="keys-help")
