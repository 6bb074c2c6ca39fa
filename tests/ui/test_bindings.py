"""Bindings: each has an id, shows in every screen's footer, can be remapped from keys.toml in
the XDG config folder; `?` shows key help; the command palette lists every action and
"open note…"; `T` switches dark and light."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from textual.binding import Binding
from textual.command import CommandList, CommandPalette
from textual.pilot import Pilot
from textual.widgets import Footer, Input
from textual.widgets._footer import FooterKey
from uihelpers import make_app, messages_of, settle, wait_until

from curator.ui.app import CuratorApp
from curator.ui.screens.audit import AuditScreen
from curator.ui.screens.base import PalaceScreen
from curator.ui.screens.history import HistoryScreen
from curator.ui.screens.inbox import InboxScreen
from curator.ui.screens.rooms import RoomsScreen
from curator.ui.screens.search import SearchScreen
from curator.ui.screens.tasks import TasksScreen
from curator.ui.widgets.dialogs import AskDialog, EditDialog
from curator.ui.widgets.plan_dialog import PlanDialog
from curator.ui.widgets.promote_form import PromoteForm

pytestmark = pytest.mark.anyio

SCREENS: dict[str, type[PalaceScreen]] = {
    "inbox": InboxScreen,
    "rooms": RoomsScreen,
    "audit": AuditScreen,
    "search": SearchScreen,
    "history": HistoryScreen,
    "tasks": TasksScreen,
}
KEYED = [
    CuratorApp,
    PalaceScreen,
    *SCREENS.values(),
    AskDialog,
    EditDialog,
    PlanDialog,
    PromoteForm,
]


def test_every_mode_is_covered() -> None:
    assert set(CuratorApp.MODES) == set(SCREENS)


def bindings_of(cls: Any) -> list[Binding]:
    return [b for b in cls.BINDINGS if isinstance(b, Binding)]


def test_every_binding_has_a_unique_id_and_a_tooltip() -> None:
    seen: dict[str, str] = {}
    shared: dict[str, Binding] = {}  # one binding on several screens (Rooms' and Audit's)
    for cls in KEYED:
        assert all(isinstance(b, Binding) for b in cls.BINDINGS), cls.__name__
        for binding in bindings_of(cls):
            where = f"{cls.__name__} {binding.key} -> {binding.action}"
            assert binding.id, f"no id: {where}"
            if shared.get(binding.id) is binding:
                continue
            assert binding.id not in seen, f"{binding.id} on {seen.get(binding.id)} and {where}"
            shared[binding.id] = binding
            assert binding.description and binding.tooltip, where
            seen[binding.id] = where


async def _go(pilot: Pilot[None], mode: str) -> None:
    app = pilot.app
    assert isinstance(app, CuratorApp)
    app.action_show_screen(mode)
    await settle(pilot)


def _footer(app: CuratorApp) -> dict[str, tuple[str, str]]:
    """action -> (key shown, description) for the current screen's footer."""
    keys = app.screen.query_one(Footer).query(FooterKey)
    return {k.action: (k.key_display, k.description) for k in keys}


async def test_footer_shows_every_binding_on_every_screen(sample_palace: Path) -> None:
    """On a screen wide enough for all of them (a narrower footer keeps the most used and
    `?`: tests/ui/test_footer_fit.py)."""
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(260, 30)) as pilot:
        await settle(pilot)
        for mode, cls in SCREENS.items():
            await _go(pilot, mode)
            assert isinstance(app.screen, cls)
            if mode == "search":
                # While typing a query the Input takes printable keys, so the footer drops
                # those bindings; from the results list every binding is live again.
                await wait_until(pilot, lambda: "focus_filters" in _footer(app))
                assert "show_screen('inbox')" not in _footer(app)
                results = app.screen.query_one("#search-results")
                results.focus()
                await wait_until(pilot, lambda r=results: app.focused is r)  # type: ignore[misc]
            expected = [*bindings_of(CuratorApp), *bindings_of(PalaceScreen), *bindings_of(cls)]
            # F1's key help is listed only where `?` types (a text field has focus); Search's
            # Backspace only while a note is open in place
            expected = [
                b
                for b in expected
                if app.check_action(b.action, ()) is not False
                and app.screen.check_action(b.action, ()) is not False
            ]
            groups: dict[str, Binding] = {}
            for b in expected:
                if b.show and b.group:
                    groups.setdefault(b.group.description, b)
            # a group's keys share one footer key, its first binding's
            wanted = {
                b.action for b in expected if b.show and (not b.group or b in groups.values())
            }
            # the footer recomposes after a screen switch or a focus change: wait for it
            await wait_until(pilot, lambda w=wanted: w <= set(_footer(app)))  # type: ignore[misc]
            shown = _footer(app)
            for binding in expected:
                if not binding.show:
                    continue  # deliberately hidden (search.py's Down into the results)
                if binding.group is not None:  # `[` and `]`: one key "[ ] Cand."
                    first = groups[binding.group.description]
                    key, description = shown[first.action]
                    assert description == binding.group.description, (mode, binding.id)
                    assert app.get_key_display(binding) in key.split(), (mode, binding.id, key)
                    continue
                assert binding.action in shown, f"{mode}: {binding.id} not in the footer"
                key, description = shown[binding.action]
                assert description == binding.description
                assert key == app.get_key_display(binding), (mode, binding.id, key)


async def test_keys_toml_in_xdg_config_remaps_and_footer_follows(sample_palace: Path) -> None:
    folder = Path(os.environ["XDG_CONFIG_HOME"]) / "curator"
    folder.mkdir(parents=True)
    (folder / "keys.toml").write_text('"inbox.promote" = "P"\n"screen.audit" = "f3"\n')
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await wait_until(pilot, lambda: "promote" in _footer(app))
        assert _footer(app)["promote"][0] == "P"
        await pilot.press("p")
        await pilot.pause()  # idle: the key was handled
        assert not isinstance(app.screen, PromoteForm)
        await pilot.press("P")
        await wait_until(pilot, lambda: isinstance(app.screen, PromoteForm))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, PromoteForm))  # keys switch
        await pilot.pause()  # screens only outside dialogs: the pop is done
        await pilot.press("3")
        await pilot.pause()
        assert app.current_mode == "inbox"
        await pilot.press("f3")
        await wait_until(pilot, lambda: app.current_mode == "audit")


async def test_bad_keys_toml_is_reported_not_fatal(sample_palace: Path) -> None:
    folder = Path(os.environ["XDG_CONFIG_HOME"]) / "curator"
    folder.mkdir(parents=True)
    (folder / "keys.toml").write_text('"inbox.promote" = 3\n')
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        # checked at once: a notification times out, and settling may take longer on a busy box
        assert any("inbox.promote" in m for m in messages_of(app))
        await settle(pilot)
        assert app.is_running


async def test_question_mark_toggles_key_help(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for mode in ("inbox", "rooms", "audit", "history"):
            await _go(pilot, mode)
            await pilot.press("question_mark")
            await wait_until(pilot, lambda: bool(app.screen.query("HelpPanel")))
            await pilot.press("question_mark")
            await wait_until(pilot, lambda: not app.screen.query("HelpPanel"))


async def _gathered(pilot: Pilot[None]) -> None:
    """Until the command palette's search is done (it fills its list in batches)."""
    app = pilot.app
    await pilot.pause()  # the last Input.Changed handled: its search is listed
    group = CommandPalette._GATHER_COMMANDS_GROUP
    await wait_until(pilot, lambda: all(w.is_finished for w in app.workers if w.group == group))


async def _palette_prompts(pilot: Pilot[None], query: str) -> list[str]:
    app = pilot.app
    await pilot.press("ctrl+p")
    await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
    palette = app.screen
    if query:
        palette.query_one(Input).value = query
    await wait_until(pilot, lambda: palette.query_one(CommandList).option_count > 0)
    await _gathered(pilot)
    options = palette.query_one(CommandList)
    prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
    await pilot.press("escape")
    await wait_until(pilot, lambda: not isinstance(app.screen, CommandPalette))
    return prompts


async def test_palette_lists_every_action_and_open_note(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for mode, cls in SCREENS.items():
            await _go(pilot, mode)
            if mode == "search":
                app.screen.set_focus(None)
            prompts = " | ".join(await _palette_prompts(pilot, ""))
            assert "Open note…" in prompts, mode
            for binding in [*bindings_of(PalaceScreen), *bindings_of(cls)]:
                if app.screen.check_action(binding.action, ()) is False:
                    continue  # (Search's Backspace: only while a note is open in place)
                assert binding.description in prompts, f"{mode}: {binding.id} not in the palette"
            for title in ("Inbox screen", "Rooms screen", "Audit screen", "History screen"):
                assert title in prompts, mode
        await _go(pilot, "inbox")
        prompts = await _palette_prompts(pilot, "stripe webhooks enter")
        assert any(p.startswith("open note…") and "Stripe" in p for p in prompts), prompts


async def test_palette_opens_a_note(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"open note money integer")
        await _gathered(pilot)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.current_mode == "rooms")
        view = app.screen.query_one("NoteView")
        # rooms may show another note first: wait for the one picked
        slug = "money-is-integer-cents"
        await wait_until(pilot, lambda: getattr(view.note, "slug", None) == slug)
        assert view.note is not None and view.note.slug == "money-is-integer-cents"  # type: ignore[attr-defined]


async def test_theme_toggles_dark_and_light(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.theme == "textual-dark"
        await pilot.press("T")
        await pilot.pause()
        assert app.theme == "textual-light"
        await _go(pilot, "audit")
        await pilot.press("T")
        await pilot.pause()
        assert app.theme == "textual-dark"
