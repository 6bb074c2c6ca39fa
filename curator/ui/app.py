"""The curator app: screens switched by key and palette, the palace loaded in a worker,
every action planned, confirmed, then committed in a thread. Index builds run in a thread
worker with a progress bar; the event loop never waits on git, LanceDB or an audit."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Iterable
from datetime import date
from pathlib import Path
from typing import Any

from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.reactive import var
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, TextArea
from textual.worker import Worker, get_current_worker

from curator.model.palace import Palace
from curator.model.text import clean, one_line
from curator.ui import services
from curator.ui.commands import CuratorPalette, OpenNoteProvider
from curator.ui.indexing import IndexJobs
from curator.ui.keys import load_keymap
from curator.ui.paint import StyleMemo, freeze_start_up, tune_collector
from curator.ui.screens.base import PalaceScreen
from curator.ui.screens.inbox import InboxScreen
from curator.ui.screens_list import SCREENS
from curator.ui.services import Plan, Session
from curator.ui.shell import Build, Check
from curator.ui.styles import css_paths
from curator.ui.threads import DaemonExecutor, finish
from curator.ui.typeahead import TypeAhead
from curator.ui.widgets.dialog_base import Dialog, DialogShown, help_bindings
from curator.ui.widgets.keyhelp import CuratorHelp, CuratorKeyPanel
from curator.ui.widgets.messages import MessageLog, MessagesDialog, toast_text
from curator.ui.wording import for_app

WATCH_DEBOUNCE_MS = 300
READY_POLL = 0.02  # seconds between looks at whether a screen switched to is ready for keys
_OUTSIDE_DIALOGS = {"show_screen", "reload", "reindex", "quit", "toggle_theme", "messages"}


def _lazy(mode: str) -> Callable[[], Screen[Any]]:
    """The screen of `mode`, its module imported on first use (first paint pays only for the
    inbox)."""

    def make() -> Screen[Any]:
        if mode == "rooms":
            from curator.ui.screens.rooms import RoomsScreen

            return RoomsScreen()
        if mode == "audit":
            from curator.ui.screens.audit import AuditScreen

            return AuditScreen()
        if mode == "tasks":
            from curator.ui.screens.tasks import TasksScreen

            return TasksScreen()
        if mode == "search":
            from curator.ui.screens.search import SearchScreen

            return SearchScreen()
        from curator.ui.screens.history import HistoryScreen

        return HistoryScreen()

    return make


def screen_ready(screen: Screen[Any]) -> bool:
    """Keys can go to `screen`: its list has drawn (`loaded`, for a screen that fills it from a
    worker) and has focus, or, on a screen shown before, the widget the reviewer left focused
    has it back."""
    if not isinstance(screen, PalaceScreen) or screen.MAIN is None:
        return True
    if screen.palace is None:
        return True  # nothing to wait for until the palace loads (the keys act on the shell)
    try:
        main = screen.query_one(screen.MAIN)
    except NoMatches:
        return False  # not composed yet
    focused = screen.focused
    settled = focused is main or (screen.focus_restored and focused is not None)
    return getattr(screen, "loaded", True) and not main.loading and settled


def _screen_bindings() -> list[Binding]:
    """Each screen's number key, and alt+number, which works in a text field too."""
    plain = [
        Binding(
            key, f"show_screen('{mode}')", title, id=f"screen.{mode}", tooltip=help_, show=False
        )
        for mode, (title, key, help_) in SCREENS.items()
    ]
    alt = [
        Binding(
            f"alt+{key}",
            f"show_screen('{mode}')",
            title,
            id=f"screen.{mode}.alt",
            tooltip=f"{help_} (from a text field too)",
            show=False,
            priority=True,
        )
        for mode, (title, key, help_) in SCREENS.items()
    ]
    return plain + alt


class CuratorApp(App[None]):
    #: the palace as last loaded; screens watch it and redraw (the app never calls them)
    palace: var[Palace | None] = var(None, always_update=True, init=False)

    TITLE = "curator"
    CSS_PATH = css_paths()
    MODES = {
        "inbox": InboxScreen,
        "rooms": _lazy("rooms"),
        "audit": _lazy("audit"),
        "search": _lazy("search"),
        "history": _lazy("history"),
        "tasks": _lazy("tasks"),
    }
    COMMANDS = App.COMMANDS | {OpenNoteProvider}
    BINDINGS = [
        *_screen_bindings(),
        *help_bindings("", "app"),
        Binding("ctrl+r", "reload", "Reload", id="app.reload", tooltip="Reload the palace"),
        Binding(
            "R",
            "reindex",
            "Reindex",
            id="app.reindex",
            tooltip="Rebuild the search index from the notes (in the background)",
        ),
        Binding("S", "sync", "Sync", id="app.sync", tooltip="Sync with the team's remote"),
        Binding(
            "L",
            "messages",
            "Messages",
            id="app.messages",
            show=False,
            tooltip="Every message shown this session, whole (toasts go, and a long one is cut)",
        ),
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Quit curator"),
    ]

    def action_sync(self) -> None:
        from curator.ui.screens.sync import SyncDialog  # the plan first, then the sync

        self.push_screen(SyncDialog(), lambda synced: self.load_palace() if synced else None)

    def __init__(
        self,
        root: Path,
        *,
        today: date | None = None,
        watch: bool = True,
        keymap_file: Path | None = None,
    ) -> None:
        from curator.runtime import tune_process

        tune_process()  # before the app's threads start (the CLI has called it already)
        tune_collector()
        super().__init__()
        self.root = Path(root)
        self.today = today or date.today()
        self.watch_inbox = watch
        self.keymap_file = keymap_file
        self._loads = 0  # load_palace calls so far
        self._start_up_frozen = False  # paint.freeze_start_up runs after the first load
        self._keys_wait_for_load: int | None = None  # keys wait until this load has drawn
        self._sent: dict[str, float] = {}  # message -> when notify was last called with it
        self.message_log = MessageLog()
        self.session = Session.open(self.root, apart=True)  # the app's one: palace and index
        self.index_jobs = IndexJobs(self, self.session)
        self.typeahead = TypeAhead(self)
        self._styled = StyleMemo(self.get_css_variables())  # see refresh_css
        self._when_shown: list[Callable[[], None]] = []  # run once the screen switched to is ready

    # -- start ---------------------------------------------------------------------------------
    def on_mount(self) -> None:
        asyncio.get_running_loop().set_default_executor(DaemonExecutor())  # quit never waits
        keymap, problems = load_keymap(self.keymap_file)
        if keymap:
            self.set_keymap(keymap)
        for problem in problems:
            self.notify(problem, severity="warning", markup=False)
        self.switch_mode("inbox")
        self.load_palace()
        if self.watch_inbox:
            self.watch_files()

    def refresh_css(self, animate: bool = True) -> None:
        """Textual's refresh, only when the CSS variables changed (`paint.StyleMemo`)."""
        styled = getattr(self, "_styled", None)  # (None: Textual asks during __init__)
        if styled is None or styled.changed(self.get_css_variables()):
            super().refresh_css(animate)

    @property
    def indexing(self) -> bool:
        """An index job (first build, sync, reindex) is running."""
        return self.index_jobs.running

    def action_reindex(self) -> None:
        self.index_jobs.reindex()

    def error(self, exc: BaseException) -> None:
        """An error shown as one line (a CuratorError names its file), never a traceback."""
        self.notify(
            one_line(str(exc)) or type(exc).__name__, severity="error", markup=False, timeout=8
        )

    def on_unmount(self) -> None:
        self.session.close()

    def load_palace(self) -> int:
        """Read the palace again in a thread; the screens redraw from it. Returns the load's
        number (a load started later has a higher one, and cancels this one)."""
        self._loads += 1
        self._load(self._loads)
        return self._loads

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def _load(self, number: int) -> None:
        try:
            palace = self.session.reload()  # shares unchanged notes with the last one
        except Exception as exc:
            self.call_from_thread(self._load_failed, exc, number)
            return
        if not get_current_worker().is_cancelled:  # a newer load started: it has the news
            self.call_from_thread(self._set_palace, palace, number)

    def _load_failed(self, exc: Exception, number: int) -> None:
        self.error(exc)
        self._drawn(number)

    def _set_palace(self, palace: Palace, number: int = 0) -> None:
        self.palace = palace  # the screens on show redraw from it now (PalaceScreen)
        self._drawn(number)
        if not self._start_up_frozen:
            self._start_up_frozen = True
            freeze_start_up()
        self.index_jobs.sync()

    def keys_wait_for_load(self, number: int) -> None:
        """Keys typed from now on wait until load `number` (or a later one) has drawn."""
        self._keys_wait_for_load = number
        self.typeahead.expect("reload")

    def _drawn(self, number: int) -> None:
        wanted = self._keys_wait_for_load
        if wanted is not None and number >= wanted:
            self._keys_wait_for_load = None
            self.call_later(self.typeahead.arrived, "reload")  # after the focus moves it asked

    # -- watching the palace ----------------------------------------------------------------
    def watch_files(self) -> None:
        """Reload when notes or drafts change on disk (the CLI, agents, `git pull`): the
        session's watch reports a change within WATCH_DEBOUNCE_MS (derived state ignored)."""

        def changed() -> None:
            with contextlib.suppress(RuntimeError):  # the app has stopped meanwhile
                self.call_from_thread(self.load_palace)

        self.session.watch(changed, debounce_ms=WATCH_DEBOUNCE_MS)

    # -- keys typed ahead ----------------------------------------------------------------------
    async def on_event(self, event: events.Event) -> None:
        """Keys go on one at a time, each once the one before it is handled (typeahead.py)."""
        if isinstance(event, events.Key) and not event.is_forwarded:
            if self.typeahead.hold(event):
                return
            target = self.focused or self.screen
            await super().on_event(event)
            self.typeahead.sent(event, target)
            return
        await super().on_event(event)

    def push_screen(self, screen: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(screen, Dialog):
            self.typeahead.expect_dialog()  # until it is mounted and has focused its field
        return super().push_screen(screen, *args, **kwargs)

    def on_dialog_shown(self, _message: DialogShown) -> None:
        self.typeahead.dialog_shown()

    # -- navigation ----------------------------------------------------------------------------
    def action_show_screen(self, mode: str) -> None:
        if mode in self.MODES and self.current_mode != mode:
            self.typeahead.expect("screen")  # keys typed next are for the screen shown
            self.call_later(self._screen_shown, self.switch_mode(mode))
            if self.index_jobs.job is not None:
                self.call_after_refresh(self.index_jobs.show)

    async def _screen_shown(self, mounted: Awaitable[None]) -> None:
        """The screen switched to is mounted (it draws from the palace as it mounts or
        resumes): the keys held meanwhile go to it once it is ready (the typeahead's timer
        bounds the wait)."""
        await mounted
        self.call_later(self._when_ready, self.screen)  # after the focus its drawing asked for

    def _when_ready(self, screen: Screen[Any]) -> None:
        if not self.screen_stack:  # the app is closing
            return
        if "screen" not in self.typeahead.waiting:  # the wait ended at its bound
            shown, self._when_shown = self._when_shown, []
            for then in shown:
                then()
            return
        if screen is not self.screen or screen_ready(screen):
            self.typeahead.arrived("screen")
            shown, self._when_shown = self._when_shown, []
            for then in shown:
                then()
        else:
            self.set_timer(READY_POLL, lambda: self._when_ready(screen))

    def action_toggle_keys(self) -> None:
        screen = self.screen
        shown = screen.query(CuratorHelp)
        if shown:
            for panel in shown:
                panel.close()
        else:
            screen.mount(CuratorHelp(screen))
        screen.set_class(not shown, "-keys-open")  # toasts move left of the panel

    def action_toggle_keys_typing(self) -> None:
        self.action_toggle_keys()

    def action_reload(self) -> None:
        """Read the palace again (the lists follow it by themselves: this is for a palace
        opened with no watch, or changed where the watch cannot see)."""
        self.load_palace()

    def open_note(self, rel: str) -> None:
        """Show `rel` in Rooms, once Rooms has drawn its list (when switched to just now)."""
        switching = self.current_mode != "rooms"
        self.action_show_screen("rooms")
        if switching and "screen" in self.typeahead.waiting:
            self._when_shown.append(lambda: self._open_in_rooms(rel))
        else:
            self.call_after_refresh(self._open_in_rooms, rel)

    def pick_note(self) -> None:
        """The palette's Open note: a picker whose field has the focus (what is typed next
        names the note), then the note picked in Rooms."""
        from curator.ui.widgets.dialogs import NotePicker

        palace = self.palace
        if palace is None:
            return

        def picked(rel: str | None) -> None:
            if rel:
                self.open_note(rel)

        find = lambda query: services.notes_named(palace, query)  # noqa: E731
        self.push_screen(NotePicker("Open which note?", find), picked)

    def _open_in_rooms(self, rel: str) -> None:
        from curator.ui.screens.rooms import RoomsScreen

        screen = self.screen
        if isinstance(screen, RoomsScreen):
            screen.open_note(rel)

    def action_command_palette(self) -> None:
        if self.use_command_palette and not CuratorPalette.is_open(self):  # type: ignore[arg-type]
            self.push_screen(CuratorPalette(id="--command-palette"))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Curator's commands, each once: the screens, the focused screen's actions, theme,
        keys and quit (no generic widget entries)."""
        for mode, (title, _key, help_) in SCREENS.items():
            yield SystemCommand(f"{title} screen", help_, self._show(mode))
        seen: set[str] = set()
        actives = sorted(screen.active_bindings.values(), key=lambda a: not a.binding.show)
        for active in actives:  # shown keys first: one entry per action, under its main key
            binding = active.binding
            if binding.action in seen or binding.action.startswith("show_screen"):
                continue
            if not binding.description or binding.system or not binding.id:
                continue  # a widget's own key (cursor moves, text editing)
            if binding.action in ("toggle_theme", "quit", "toggle_keys", "toggle_keys_typing"):
                continue  # listed below
            seen.add(binding.action)
            yield SystemCommand(
                binding.description,
                f"{self.get_key_display(binding)} · {binding.tooltip or binding.description}",
                self._runner(binding.action, active.node),
            )
        yield SystemCommand("Theme: dark and light", "Switch the colour theme", self._theme)
        yield SystemCommand("Keys", "Show the keys of this screen", self.action_toggle_keys)
        yield SystemCommand("Quit", "Quit curator", self.exit)

    def _theme(self) -> None:
        self.theme = "textual-light" if self.theme == "textual-dark" else "textual-dark"

    def _show(self, mode: str) -> Callable[[], None]:
        return lambda: self.action_show_screen(mode)

    def _runner(self, action: str, node: Any) -> Callable[[], Any]:
        return lambda: self.run_action(action, node)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Inside a dialog the screen keys, reload and quit are off (a dialog is answered
        first); they are then neither run nor listed. In a text field `?` is a character, so
        the key help is on F1 there (and the footer says so)."""
        name = action.split("(", 1)[0]
        if name in ("toggle_keys", "toggle_keys_typing"):
            if isinstance(self.focused, CuratorKeyPanel):
                return True  # the help is open: either key closes it
            typing = isinstance(self.focused, (Input, TextArea))
            return typing == (name == "toggle_keys_typing")
        in_dialog = isinstance(self.screen, ModalScreen)
        return not (in_dialog and name in _OUTSIDE_DIALOGS)

    def notify(self, message: str, *args: Any, **kwargs: Any) -> None:
        """A notification, kept whole in the messages log (L) and shown as a toast, cut to
        what a toast holds; one identical to a toast on screen, or to one sent a moment ago
        and not yet shown (notify posts a message), is not shown twice. A CLI flag in it is
        said in the app's keys (`wording.for_app`)."""
        message = for_app(message)
        now = time.monotonic()
        toast = toast_text(message)
        shown = any(n.message == toast for n in self._notifications)
        if shown or self._sent.get(message, 0.0) > now - 1.0:
            return
        self._sent = {m: t for m, t in self._sent.items() if t > now - 1.0}
        self._sent[message] = now
        self.message_log.add(message, kwargs.get("severity", "information"))
        super().notify(toast, *args, **kwargs)

    def action_messages(self) -> None:
        if not isinstance(self.screen, MessagesDialog):
            self.push_screen(MessagesDialog(self.message_log))

    # -- actions -------------------------------------------------------------------------------
    def run_plan(
        self, build: Build, planning: services.Planning | None = None
    ) -> Worker[Plan | None]:
        """Plan, show, confirm and commit `build` (see `_plan_flow`); keys typed from now on
        are for its dialog, which shows `planning`'s progress and cancels it on Escape."""
        self.typeahead.expect_dialog()
        return self._plan_flow(build, planning)

    @work(group="action", exit_on_error=False)
    async def _plan_flow(self, build: Build, planning: services.Planning | None) -> Plan | None:
        """Open the plan dialog, plan (and render the diff) in a thread, show the plan, commit
        in a thread, name the commit. Returns the plan once committed (None otherwise)."""
        from curator.ui.widgets.plan_dialog import PlanDialog, diff_text

        palace = self.palace
        if palace is None:
            self.typeahead.dialog_shown()  # none is coming
            self.notify("The palace is still loading", severity="warning", markup=False)
            return None
        # from the yes on, keys wait for the list the commit leaves (commit_plan)
        dialog = PlanDialog(on_apply=lambda: self.typeahead.expect("reload"), planning=planning)
        answer = self.push_screen(dialog, wait_for_dismiss=True)

        def planned() -> tuple[Plan, Any]:
            plan = build(palace)
            return plan, diff_text(plan.diff(palace.root)) if plan.changes else None

        try:
            plan, diff = await asyncio.to_thread(planned)
        except Exception as exc:
            if dialog in self.screen_stack:  # not cancelled (Escape) already
                dialog.dismiss(False)
            await answer
            self.typeahead.arrived("reload")  # no commit follows a yes typed early
            if isinstance(exc, services.Cancelled):
                self.notify("Cancelled: nothing changed", markup=False)
            else:
                self.error(exc)
            return None
        if not plan.changes:
            dialog.dismiss(False)
            await answer
            self.typeahead.arrived("reload")
            self.notify("Nothing to change", markup=False)
            return None
        dialog.set_plan(plan, diff)
        if not await answer:
            self.notify("Cancelled: nothing changed", markup=False)
            return None
        await self.commit_plan(plan)
        return plan

    def edit_then_plan(
        self,
        rel: str,
        text: str,
        build: Callable[[str], Build] | None = None,
        check: Check | None = None,
        title: str | None = None,
    ) -> Worker[None]:
        """Edit, then plan (see `_edit_flow`); keys typed from now on are for the editor."""
        self.typeahead.expect_dialog()
        return self._edit_flow(rel, text, build, check, title or f"Edit {rel}")

    @work(group="edit", exit_on_error=False)
    async def _edit_flow(
        self,
        rel: str,
        text: str,
        build: Callable[[str], Build] | None = None,
        check: Check | None = None,
        title: str = "",
    ) -> None:
        """Edit `text` ($EDITOR or the built-in editor), then plan `build(new_text)` (an edit
        of `rel` by default), checked on save as `curator edit` checks it."""
        from curator.ui.editing import edit_text

        palace = self.palace
        if palace is None:
            self.typeahead.dialog_shown()  # none is coming
            return
        if check is None:
            check = lambda new: services.edit_problems(palace, rel, new)  # noqa: E731
        why: list[str] | None = [] if build is None else None  # a plain edit asks why
        new = await edit_text(
            self, title, text, check, keep_unchanged=build is not None, reason=why
        )
        if new is None:
            self.typeahead.dialog_shown()  # no plan follows ($EDITOR left it unchanged)
            return
        if build is None:
            reason = why[0] if why else ""
            self.run_plan(lambda p: services.plan_edit(p, rel, new, reason))
        else:
            self.run_plan(build(new))

    async def commit_plan(self, plan: Plan) -> None:
        subject = clean(plan.message.split("\n", 1)[0])

        def committed(sha: str) -> None:  # in the worker: git has it, the index update follows
            self.call_from_thread(
                self.notify, f"Committed {sha[:10]}: {subject}", markup=False, timeout=6
            )

        try:
            await finish(services.commit, self.session, plan, self.palace, committed)
        except Exception as exc:
            self.error(exc)
        # keys typed since the plan was applied are for the list the commit leaves (the next
        # draft's row, not the row of the draft just rejected that the list still shows)
        self.keys_wait_for_load(self.load_palace())
