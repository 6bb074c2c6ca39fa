"""The tab bar of the app's screens, at the top of every screen: where you are, and the key
that goes to each of the others. It never takes focus (the number keys switch screens)."""

from __future__ import annotations

from textual.widgets import Tab, Tabs

from curator.ui.screens_list import SCREENS


class ScreenTabs(Tabs):
    can_focus = False

    def __init__(self, mode: str) -> None:
        tabs = [Tab(f"{key} {title}", id=f"tab-{m}") for m, (title, key, _) in SCREENS.items()]
        super().__init__(*tabs, active=f"tab-{mode}", id="screen-tabs")
        self.mode = mode

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        event.stop()
        tab_id = event.tab.id or ""
        mode = tab_id.removeprefix("tab-")
        if mode != self.mode:
            self.app.call_later(self.app.run_action, f"show_screen('{mode}')")
