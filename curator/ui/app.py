"""The curator app: screens switched by key and palette, the palace loaded in a worker,
every action planned, confirmed, then committed in a thread."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from datetime import date
from pathlib import Path
from typing import Any

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from curator.model.palace import INBOX_DIR, Palace
from curator.model.text import clean, one_line
from curator.ui.commands import OpenNoteProvider
from curator.ui.keys import load_keymap
from curator.ui.screens.audit import AuditScreen
from curator.ui.screens.base import PalaceScreen
from curator.ui.screens.history import HistoryScreen
from curator.ui.screens.inbox import InboxScreen
from curator.ui.screens.rooms import RoomsScreen
from curator.ui.screens.search import SearchScreen
from curator.ui.styles import css_paths
from curator.ui.widgets.plan_dialog import PlanDialog
from curator.writer.plan import Plan

SCREENS = {
    "inbox": ("Inbox", "1", "Drafts waiting for review"),
    "rooms": ("Rooms", "2", "The palace by room, note by note"),
    "audit": ("Audit", "3", "Stale and due notes"),
    "search": ("Search", "4", "Search every note"),
    "history": ("History", "5", "Curator actions; undo"),
}


def _screen_bindings() -> list[Binding]:
    return [
        Binding(key, f"show_screen('{mode}')", title, id=f"screen.{mode}", tooltip=help_)
        for mode, (title, key, help_) in SCREENS.items()
    ]


class CuratorApp(App[None]):
    TITLE = "curator"
    CSS_PATH = css_paths()
    MODES = {
        "inbox": InboxScreen,
        "rooms": RoomsScreen,
        "audit": AuditScreen,
        "search": SearchScreen,
        "history": HistoryScreen,
    }
    COMMANDS = App.COMMANDS | {OpenNoteProvider}
    BINDINGS = [
        *_screen_bindings(),
        Binding("question_mark", "toggle_keys", "Keys", id="app.keys", tooltip="Show key help"),
        Binding("ctrl+r", "reload", "Reload", id="app.reload", tooltip="Reload the palace"),
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Quit curator"),
    ]

    def __init__(
        self,
        root: Path,
        *,
        today: date | None = None,
        watch: bool = True,
        keymap_file: Path | None = None,
    ) -> None:
        super().__init__()
        self.root = Path(root)
        self.today = today or date.today()
        self.watch_inbox = watch
        self.keymap_file = keymap_file
        self.palace: Palace | None = None
        self.palace_version = 0
        self._inbox_stamp: tuple[Any, ...] | None = None

    # -- start ---------------------------------------------------------------------------------
    def on_mount(self) -> None:
        keymap, problems = load_keymap(self.keymap_file)
        if keymap:
            self.set_keymap(keymap)
        for problem in problems:
            self.notify(problem, severity="warning", markup=False)
        self.switch_mode("inbox")
        self._inbox_stamp = self._stamp()
        self.load_palace()
        if self.watch_inbox:
            self.set_interval(1.0, self.poll_inbox)

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def load_palace(self) -> None:
        try:
            palace = Palace.open(self.root)
        except Exception as exc:
            self.call_from_thread(self.error, exc)
            return
        self.call_from_thread(self._set_palace, palace)

    def _set_palace(self, palace: Palace) -> None:
        self.palace = palace
        self.palace_version += 1
        for screen in self.screen_stack:
            if isinstance(screen, PalaceScreen):
                screen.sync()

    # -- inbox watching -------------------------------------------------------------------------
    def _stamp(self) -> tuple[Any, ...]:
        inbox = self.root / INBOX_DIR
        try:
            st = inbox.stat()
            files = tuple(
                sorted((e.name, e.stat().st_mtime_ns, e.stat().st_size) for e in inbox.iterdir())
            )
        except OSError:
            return ()
        return (st.st_mtime_ns, files)

    def poll_inbox(self) -> None:
        stamp = self._stamp()
        if stamp != self._inbox_stamp:
            self._inbox_stamp = stamp
            self.load_palace()

    # -- navigation ----------------------------------------------------------------------------
    def action_show_screen(self, mode: str) -> None:
        if mode in self.MODES and self.current_mode != mode:
            self.switch_mode(mode)

    def action_toggle_keys(self) -> None:
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    def action_reload(self) -> None:
        self.load_palace()

    def open_note(self, rel: str) -> None:
        self.action_show_screen("rooms")
        self.call_after_refresh(self._open_in_rooms, rel)

    def _open_in_rooms(self, rel: str) -> None:
        screen = self.screen
        if isinstance(screen, RoomsScreen):
            screen.open_note(rel)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for mode, (title, _key, help_) in SCREENS.items():
            yield SystemCommand(f"{title} screen", help_, self._show(mode))
        seen: set[str] = set()
        for active in screen.active_bindings.values():
            binding = active.binding
            if binding.action in seen or binding.action.startswith("show_screen"):
                continue
            if not binding.description or binding.system:
                continue
            seen.add(binding.action)
            yield SystemCommand(
                binding.description,
                binding.tooltip or binding.description,
                self._runner(binding.action, active.node),
            )

    def _show(self, mode: str) -> Callable[[], None]:
        return lambda: self.action_show_screen(mode)

    def _runner(self, action: str, node: Any) -> Callable[[], Any]:
        return lambda: self.run_action(action, node)

    # -- actions -------------------------------------------------------------------------------
    def error(self, exc: BaseException) -> None:
        self.notify(one_line(str(exc)) or type(exc).__name__, severity="error", markup=False,
                    timeout=8)

    @work(group="action", exit_on_error=False)
    async def run_plan(self, build: Callable[[Palace], Plan]) -> None:
        """Plan in a thread, show the plan, commit in a thread, name the commit."""
        palace = self.palace
        if palace is None:
            self.notify("The palace is still loading", severity="warning", markup=False)
            return
        try:
            plan = await asyncio.to_thread(build, palace)
        except Exception as exc:
            self.error(exc)
            return
        if not plan.changes:
            self.notify("Nothing to change", markup=False)
            return
        if not await self.push_screen_wait(PlanDialog(plan, palace.root)):
            self.notify("Cancelled: nothing changed", markup=False)
            return
        await self.commit_plan(plan)

    async def commit_plan(self, plan: Plan) -> None:
        from curator.ui import core

        try:
            applied = await asyncio.to_thread(core.commit, self.root, plan)
        except Exception as exc:
            self.error(exc)
            self.load_palace()
            return
        subject = clean(applied.message.split("\n", 1)[0])
        self.notify(f"Committed {applied.sha[:10]}: {subject}", markup=False, timeout=6)
        self.load_palace()
