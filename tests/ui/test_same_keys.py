"""The same keys for the same action on every screen where it applies (edit, supersede,
retire, review, the marks), read from the screens' bindings by id and from the running app;
Enter opens the selected item on every screen; Search's note keys act on the highlighted
result (issue 15)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from textual.binding import Binding
from textual.widgets import DataTable, Input, OptionList, Select
from uihelpers import apply_plan, git_log, make_app, messages_of, settle, wait_until

from curator.model.palace import Palace
from curator.session import Session
from curator.tasks import TaskService
from curator.ui import services
from curator.ui.app import CuratorApp, screen_ready
from curator.ui.screens.audit import AuditScreen
from curator.ui.screens.history import HistoryScreen
from curator.ui.screens.inbox import InboxScreen
from curator.ui.screens.rooms import RoomsScreen
from curator.ui.screens.search import SearchScreen
from curator.ui.widgets.dialogs import AskDialog, EditDialog
from curator.ui.widgets.note_view import NoteView
from curator.ui.widgets.plan_dialog import PlanDialog

pytestmark = pytest.mark.anyio

NOTE_SCREENS = {
    "inbox": InboxScreen,
    "rooms": RoomsScreen,
    "audit": AuditScreen,
    "search": SearchScreen,
}
# binding id (after its screen's prefix) -> the screens it applies to (drafts are rejected,
# not reviewed or retired; Search lists one result at a time, nothing to mark)
APPLIES = {
    "edit": {"inbox", "rooms", "audit", "search"},
    "supersede": {"inbox", "rooms", "audit", "search"},
    "retire": {"rooms", "audit", "search"},
    "reviewed": {"rooms", "audit", "search"},
    "mark": {"inbox", "rooms", "audit"},
    "mark_down": {"inbox", "rooms", "audit"},
    "mark_up": {"inbox", "rooms", "audit"},
    "mark_like": {"inbox", "rooms", "audit"},
}


def bindings_by_id(cls: type) -> dict[str, Binding]:
    """The screen's bindings by the last part of their id ('note.edit' -> 'edit')."""
    out: dict[str, Binding] = {}
    for binding in cls.BINDINGS:  # type: ignore[attr-defined]
        assert isinstance(binding, Binding) and binding.id, (cls.__name__, binding)
        out[binding.id.split(".", 1)[1]] = binding
    return out


def test_the_same_action_has_the_same_key_on_every_screen() -> None:
    found = {mode: bindings_by_id(cls) for mode, cls in NOTE_SCREENS.items()}
    for name, modes in APPLIES.items():
        have = {mode for mode in NOTE_SCREENS if name in found[mode]}
        assert have == modes, f"{name}: bound on {sorted(have)}, applies to {sorted(modes)}"
        keys = {mode: found[mode][name].key for mode in modes}
        assert len(set(keys.values())) == 1, f"{name} has different keys: {keys}"
        actions = {found[mode][name].action for mode in modes}
        assert len(actions) == 1, f"{name} runs different actions: {actions}"
    # no screen puts another action on one of those keys
    rooms = found["rooms"]
    owner = {rooms[name].key: rooms[name].action for name in APPLIES}
    for mode, bindings in found.items():
        for binding in bindings.values():
            for key in binding.key.split(","):
                action = owner.get(key, binding.action)
                assert action == binding.action, f"{mode}: {key} runs {binding.action}"


async def test_the_running_screens_answer_the_same_keys(sample_palace: Path) -> None:
    """The keys as the app has them (keymap applied): on each screen the key of every action
    that applies there runs that action."""
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        rooms = bindings_by_id(RoomsScreen)
        for mode in NOTE_SCREENS:
            app.action_show_screen(mode)
            await settle(pilot)
            if mode == "search":
                app.screen.query_one("#search-results").focus()
                await wait_until(
                    pilot, lambda: app.focused is app.screen.query_one("#search-results")
                )
            active = {key: b.binding.action for key, b in app.screen.active_bindings.items()}
            for name, modes in APPLIES.items():
                if mode in modes:
                    key, action = rooms[name].key, rooms[name].action
                    assert active.get(key) == action, (mode, key, active.get(key))


# -- Enter opens ------------------------------------------------------------------------------


@pytest.fixture
def palace(sample_palace: Path) -> Path:
    """The sample palace with a promote and a reject in its history, and two tasks."""
    palace = Palace.open(sample_palace)
    draft = next(d for d in palace.drafts if "invoice-pdf" in d.rel)
    plan = services.plan_promote(palace, draft.rel, name="Invoice PDFs show the VAT id")
    Session(palace).commit(plan)
    palace = Palace.open(sample_palace)
    draft = next(d for d in palace.drafts if "render-autoscaling" in d.rel)
    Session(palace).commit(services.plan_reject(palace, draft.rel, "wrong"))
    tasks = TaskService(sample_palace)
    tasks.new("first", "The first task", "agent")
    tasks.new("second", "The second task", "agent")
    return sample_palace


async def show(pilot: Any, app: CuratorApp, mode: str) -> Any:
    app.action_show_screen(mode)
    await settle(pilot)
    return app.screen


def opened(app: CuratorApp) -> str | None:
    """The note Rooms shows, once Rooms is the screen."""
    if not isinstance(app.screen, RoomsScreen):
        return None
    note = app.screen.query_one(NoteView).note
    return note.rel if note is not None else None


async def test_enter_opens_the_selected_item_on_every_screen(
    palace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    app = make_app(palace, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        # Inbox: Enter goes into the draft's candidates, Escape back; `e` edits it
        inbox = app.screen
        assert isinstance(inbox, InboxScreen)
        draft = inbox.current()
        assert draft is not None
        await pilot.press("enter")
        await wait_until(pilot, lambda: inbox.focused is inbox.query_one("#inbox-candidates"))
        await pilot.press("escape")
        await wait_until(pilot, lambda: inbox.focused is inbox.query_one("#inbox-drafts"))
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EditDialog))
        assert app.screen.query_one("#edit-area").text == draft.text  # type: ignore[attr-defined]
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is inbox)

        # Rooms: Enter on a room goes into its notes, on a note into its links, on a link there
        rooms = await show(pilot, app, "rooms")
        rooms.query_one("#rooms-list").focus()
        listed = rooms.query_one("#rooms-list", OptionList)
        listed.highlighted = listed.get_option_index("project")
        # the highlight shows the room; Enter on it goes into its notes
        await wait_until(pilot, lambda: rooms.room == "project" and rooms.focused is listed)
        await pilot.press("enter")
        await wait_until(pilot, lambda: rooms.focused.id == "rooms-notes")
        assert rooms.room == "project"
        rooms.open_note("notes/project/stripe-webhook-handler.md")
        rooms.query_one("#rooms-notes").focus()
        await wait_until(pilot, lambda: rooms.focused.id == "rooms-notes")
        await pilot.pause()  # the cursor's move handled before Enter
        await pilot.press("enter")
        await wait_until(pilot, lambda: rooms.focused.id == "note-links")
        links = rooms.query_one("#note-links", OptionList)
        target = next(
            links.get_option_at_index(i).id
            for i in range(links.option_count)
            if not links.get_option_at_index(i).disabled
        )
        links.highlighted = links.get_option_index(target)
        await pilot.press("enter")
        await wait_until(pilot, lambda: opened(app) == target.split(":", 1)[1])

        # Audit: the note opens in Rooms
        audit = await show(pilot, app, "audit")
        assert isinstance(audit, AuditScreen) and audit.selected() is not None
        rel = audit.selected().rel
        audit.query_one("#audit-table").focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: opened(app) == rel)

        # History: the promoted note opens in Rooms; a rejected draft's entry says why not
        history = await show(pilot, app, "history")
        assert isinstance(history, HistoryScreen)
        table = history.query_one("#history-table", DataTable)
        await wait_until(pilot, lambda: len(history.entries) >= 2)  # and the tasks' commits
        promote = next(e for e in history.entries if e.action == "promote")
        reject = next(e for e in history.entries if e.action == "reject")
        promoted = next(r for r in promote.notes if r.startswith("notes/"))
        table.focus()
        table.move_cursor(row=table.get_row_index(reject.sha))
        await wait_until(pilot, lambda: history.focused is table)
        await pilot.pause()  # the cursor's move handled before Enter
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("Nothing to open" in m for m in messages_of(app)))
        assert app.screen is history
        table.move_cursor(row=table.get_row_index(promote.sha))
        await pilot.pause()
        await pilot.press("enter")
        await wait_until(pilot, lambda: opened(app) == promoted)

        # Search: Enter in the query opens the best result, Enter in the results the one
        # chosen, in place (Search stays the screen; Escape back to the results)
        search = await show(pilot, app, "search")
        assert isinstance(search, SearchScreen)
        search.query_one("#search-query", Input).focus()
        await pilot.press(*"stripe webhooks")
        await wait_until(pilot, lambda: len(search.results) >= 2)
        best = search.results[0].path
        in_search = lambda: search.reading and search.selected().rel  # noqa: E731
        await pilot.press("enter")
        await wait_until(pilot, lambda: in_search() == best)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not search.reading)
        search.query_one("#search-query", Input).focus()
        await pilot.press("down", "down")
        assert search.focused.id == "search-results"
        chosen = search.results[1].path
        await pilot.press("enter")
        await wait_until(pilot, lambda: in_search() == chosen)
        assert app.screen is search

        # Tasks: Enter on a task goes into its revisions
        tasks = await show(pilot, app, "tasks")
        await wait_until(pilot, lambda: bool(tasks.query("#tasks-revisions")))
        tasks.query_one("#tasks-table").focus()
        await wait_until(pilot, lambda: tasks.focused is tasks.query_one("#tasks-table"))
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: tasks.focused is not None and tasks.focused.id == "tasks-revisions"
        )


async def test_a_screen_shown_again_takes_keys_where_its_focus_was_left(palace: Path) -> None:
    """Rooms left with its note's links focused: shown again (Enter on an audit row opens the
    note there), it is ready for keys as soon as that focus is back. It used to wait for its
    main list to have the focus, which never came: keys typed meanwhile were held, and the
    note opened, only when the typeahead's 15-second bound ran out."""
    app = make_app(palace, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        rooms = await show(pilot, app, "rooms")
        rooms.open_note("notes/project/stripe-webhook-handler.md")
        await pilot.pause()
        rooms.query_one("#note-links").focus()
        await wait_until(pilot, lambda: rooms.focused.id == "note-links")
        audit = await show(pilot, app, "audit")
        rel = audit.selected().rel
        audit.query_one("#audit-table").focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is rooms and rooms.focused is not None)
        assert rooms.focused.id == "note-links"
        assert screen_ready(rooms)
        await wait_until(pilot, lambda: opened(app) == rel)
        assert "screen" not in app.typeahead.waiting


async def test_search_note_keys_act_on_the_highlighted_result(palace: Path) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        search = await show(pilot, app, "search")
        assert isinstance(search, SearchScreen)
        await pilot.press(*"stripe webhooks")
        await wait_until(pilot, lambda: len(search.results) >= 2)
        await pilot.press("r")  # typed into the query, not an action
        await wait_until(
            pilot, lambda: search.query_one("#search-query", Input).value == "stripe webhooksr"
        )
        await pilot.pause()  # idle: an action the key started would be on show
        assert not isinstance(app.screen, PlanDialog)
        await pilot.press("backspace")
        await wait_until(pilot, lambda: len(search.results) >= 2)
        await pilot.press("down", "down")
        rel = search.results[1].path
        await pilot.press("t")
        await wait_until(pilot, lambda: isinstance(app.screen, AskDialog))
        await pilot.press(*"replaced by the handler note", "enter")
        await apply_plan(pilot)
        assert git_log(palace)[0].startswith("retire")
        head = yaml.safe_load((palace / rel).read_text().split("---\n", 2)[1])
        assert head["status"] == "retired"
        assert head["retired"]["reason"] == "replaced by the handler note"


async def test_search_keeps_its_filters_and_highlight_after_an_action(palace: Path) -> None:
    """r on a result commits; the palace reloads and the query runs again: the type filter
    the reviewer chose and the highlighted result are still there (the filter was cleared and
    the highlight lost, so the next key acted on nothing)."""
    app = make_app(palace, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        search = await show(pilot, app, "search")
        assert isinstance(search, SearchScreen)
        search.query_one("#search-type", Select).value = "feedback"
        search.query_one("#search-query", Input).focus()
        await pilot.press(*"stripe webhooks")
        await wait_until(pilot, lambda: len(search.results) >= 2)
        assert {hit.type for hit in search.results} == {"feedback"}
        await pilot.press("down", "down")
        rel = search.results[1].path
        await pilot.press("r")
        await apply_plan(pilot)
        assert git_log(palace)[0].startswith("review")
        await wait_until(pilot, lambda: search.selected() is not None)
        assert search.query_one("#search-type", Select).value == "feedback"
        assert {hit.type for hit in search.results} == {"feedback"}
        note = search.selected()
        assert note is not None and note.rel == rel
