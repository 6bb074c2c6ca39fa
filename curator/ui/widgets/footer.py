"""The key footer every screen shows: Textual's Footer, without its leak.

Footer rebuilds its FooterKey widgets whenever the screen's bindings change (focus moves,
a dialog opens or closes), and each FooterKey watches `Footer.compact` through `data_bind`.
Textual prunes a watcher whose widget is gone only when the watched value changes, which
`compact` never does, so every rebuild kept the old keys alive (~70 widgets per promote in the
inbox; Textual issue #6666). Re-announcing `compact` after a rebuild prunes them."""

from __future__ import annotations

from textual.widgets import Footer


class KeyFooter(Footer):
    async def recompose(self) -> None:
        await super().recompose()
        self.mutate_reactive(Footer.compact)  # drops the watchers of the removed keys
