"""The app's second review (issue 36): each bug a reviewer hit, by its exact keys. Real app
(Pilot), real palace and git repository."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from palacehelpers import note_text
from textual.widgets import OptionList
from uihelpers import make_app, settle, show_screen, wait_until

from curator.ui.screens.rooms import RoomsScreen
from curator.ui.widgets.note_view import NoteView

pytestmark = [pytest.mark.slow, pytest.mark.anyio]


@pytest.fixture
def palace(make_palace: Any) -> Path:
    return make_palace(
        {
            "notes/project/hub.md": note_text("Hub", body="See [[spoke]] and [[fan]].\n"),
            "notes/project/spoke.md": note_text("Spoke", body="Plain.\n"),
            "notes/project/fan.md": note_text("Fan", body="I like [[hub]].\n"),
            "notes/feedback/rule.md": note_text("A rule", type="feedback", body="Rule.\n"),
        }
    )


async def test_j_and_k_move_in_the_room_list_and_the_links(palace: Path) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await show_screen(pilot, "2", RoomsScreen)
        rooms = screen.query_one("#rooms-list", OptionList)
        rooms.focus()
        await settle(pilot)
        start = rooms.highlighted
        assert start is not None
        await pilot.press("j")
        await wait_until(pilot, lambda: rooms.highlighted == start + 1)
        await pilot.press("k")
        await wait_until(pilot, lambda: rooms.highlighted == start)
        # the note's links move the same way
        screen.open_note("notes/project/hub.md")
        links = screen.query_one("#note-links", OptionList)
        await wait_until(pilot, lambda: links.option_count >= 2)
        links.focus()
        links.highlighted = 0
        await settle(pilot)
        await pilot.press("j")
        await wait_until(pilot, lambda: links.highlighted == 1)
        await pilot.press("k")
        await wait_until(pilot, lambda: links.highlighted == 0)


RETIRED = "notes/project/old-tracker.md"
LEGACY = "notes/project/older-tracker.md"


@pytest.fixture
def retired_palace(make_palace: Any) -> Path:
    """One note retired by today's retire (`status: retired`), one retired the way retire
    wrote it before (`status: superseded` with a reason and no successor), one superseded."""
    return make_palace(
        {
            RETIRED: note_text(
                "Old tracker zeta",
                extra="status: retired\nretired: {reason: tracker moved to Linear, since: "
                "2026-11-02}\n",
            ),
            LEGACY: note_text(
                "Older tracker zeta",
                extra="status: superseded\nretired: {reason: nobody reads it, since: 2026-10-01}\n",
            ),
            "notes/project/replaced.md": note_text(
                "Replaced zeta", extra="status: superseded\nsuperseded_by: current\n"
            ),
            "notes/project/current.md": note_text("Current zeta", extra="supersedes: [replaced]\n"),
        }
    )


async def test_retired_notes_say_retired_with_their_reason(retired_palace: Path) -> None:
    from uihelpers import shown_in

    from curator.ui.widgets.note_view import NoteView

    app = make_app(retired_palace, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await show_screen(pilot, "2", RoomsScreen)
        for rel, reason in ((RETIRED, "tracker moved to Linear"), (LEGACY, "nobody reads it")):
            screen.open_note(rel)
            await wait_until(
                pilot,
                lambda rel=rel: (
                    screen.query_one(NoteView).note is not None
                    and screen.query_one(NoteView).note.rel == rel
                ),
            )
            await settle(pilot)
            head = shown_in(app, "#note-head")
            assert "status: retired" in head and "superseded" not in head, head
            assert "retired since" in head and reason in head, head
        flags = {n.rel: app.palace.flags(n, app.today) for n in app.palace.notes}
        assert flags[RETIRED] == ["retired"] and flags[LEGACY] == ["retired"]
        assert flags["notes/project/replaced.md"] == ["superseded"]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_search_status_filter_fits_and_offers_retired(
    retired_palace: Path, size: tuple[int, int]
) -> None:
    from textual.widgets import Input, Select
    from uihelpers import shown_in

    from curator.ui.screens.search import SearchScreen

    app = make_app(retired_palace, watch=False)
    async with app.run_test(size=size) as pilot:
        search = await show_screen(pilot, "4", SearchScreen)
        await wait_until(pilot, lambda: app.session.index.ready, timeout=120)
        status = search.query_one("#search-status", Select)
        search.query_one("#search-query", Input).value = "zeta"
        for value, want in (
            ("retired", {RETIRED, LEGACY}),
            ("superseded", {"notes/project/replaced.md"}),
            ("active", {"notes/project/current.md"}),
        ):
            status.value = value
            await wait_until(
                pilot, lambda want=want: {h.path for h in search.results} == want, timeout=60
            )
            await settle(pilot)
            # the chosen value reads whole on one line inside its box
            assert value in shown_in(app, "#search-status")
            label = status.query_one("SelectCurrent #label")
            assert label.region.height == 1 and status.region.right <= size[0]


async def test_remapped_keys_are_listed_checked_and_keep_their_place(
    palace: Path, tmp_path: Path
) -> None:
    """`?` names each key's id; an id that names no key is reported; after mapping promote to
    `P`, Promote keeps its place first in the footer at 80 columns."""
    from test_keys_help import _footer_keys, _help_lines, _help_shown

    keys = tmp_path / "keys.toml"
    keys.write_text('"inbox.promote" = "P"\n"inbox.nonsense" = "z"\n')
    said: list[str] = []
    app = make_app(palace, watch=False, keymap_file=keys)
    app.notify = lambda message, *a, **k: said.append(str(message))  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert any("'inbox.nonsense' is not a key id" in s and str(keys) in s for s in said), said
        assert _footer_keys(app).split()[:2] == ["P", "Promote"], _footer_keys(app)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: _help_shown(app))
        lines = _help_lines(app)
        promote = next(line for line in lines if "inbox.promote" in line)
        assert promote.startswith("Promote into the palace"), promote  # the name said once
        # the help finds a key by what it does, its key or its id
        await pilot.press("slash", *"merge")
        await wait_until(pilot, lambda: len(_help_lines(app)) == 2)
        assert "inbox.merge" in _help_lines(app)[1]
        await pilot.press("escape")  # clears the filter, back in the list
        await wait_until(pilot, lambda: len(_help_lines(app)) > 5)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.screen.query("HelpPanel"))


def test_every_key_id_the_docs_name_exists() -> None:
    """The examples in curator/ui/keys.py and README.md name ids the app has."""
    import re
    import tomllib

    import curator.ui.keys as keys_module
    from curator.ui.keys import binding_ids

    known = binding_ids()
    doc = keys_module.__doc__ or ""
    example = "\n".join(line for line in doc.splitlines() if line.startswith('"'))
    named = set(tomllib.loads(example))
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    named |= set(re.findall(r'`"([a-z_]+\.[a-z_.]+)" = ', readme))
    assert named and named <= known, named - known


BROKEN = "notes/project/broken.md"
UNTYPED_NOTE = "notes/loose.md"
SEVEN = "notes/project/seven.md"


async def test_rooms_shows_broken_notes_as_broken_not_as_data(make_palace: Any) -> None:
    """An unreadable header is flagged invalid with no confidence; a note with no type has no
    confidence to be low; `confidence: 7` is no confidence (not 7.00, not a full bar)."""
    from uihelpers import shown_in

    from curator.ui.widgets.note_view import NoteView
    from curator.ui.widgets.table import Table

    root = make_palace(
        {
            BROKEN: "---\nname: [unclosed\ntype: project\n---\nBody.\n",
            UNTYPED_NOTE: "---\nname: Loose\ndescription: No type.\n---\nBody.\n",
            SEVEN: note_text("Seven", extra="confidence: 7\n"),
            "notes/project/fine.md": note_text("Fine", extra="confidence: 0.9\n"),
        },
        commit=True,
    )
    app = make_app(root, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await show_screen(pilot, "2", RoomsScreen)
        table = screen.query_one("#rooms-notes", Table)

        def row(rel: str) -> tuple[str, str]:
            conf, flags, _name = (str(c) for c in table.get_row(rel)[1:4])
            return conf.strip(), flags

        screen.show_room("project")
        await wait_until(pilot, lambda: SEVEN in table.rows)
        assert row("notes/project/fine.md") == ("0.90", "")
        conf, flags = row(SEVEN)
        assert conf == "–" and "invalid" in flags and "low-confidence" not in flags
        view = screen.query_one(NoteView)
        for rel, unwanted in ((SEVEN, "1.00"), (BROKEN, "0.00")):
            screen.open_note(rel)
            await wait_until(pilot, lambda r=rel: view.note is not None and view.note.rel == r)
            await settle(pilot)
            conf, flags = row(rel)  # the note's own room is on show
            assert conf == "–" and "invalid" in flags, (rel, conf, flags)
            head = shown_in(app, "#note-head")
            assert "invalid" in head and unwanted not in head, head
            if rel == SEVEN:
                assert "confidence unknown (7 is not within 0..1)" in head, head
        palace = app.palace
        assert palace is not None
        untyped = palace.by_rel[UNTYPED_NOTE]
        assert "low-confidence" not in palace.flags(untyped, app.today)
        assert palace.known_confidence(untyped) is None


async def test_palette_open_note_opens_a_picker_with_its_field_focused(palace: Path) -> None:
    """ctrl+p, `open`, Enter, then the note's name typed at once: the keys name the note in a
    picker (none reaches a list's note actions), Enter opens it in Rooms."""
    from test_palette_race import highlighted
    from textual.command import CommandPalette
    from textual.widgets import Input

    from curator.ui.widgets.dialogs import NotePicker
    from curator.ui.widgets.note_view import NoteView

    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        before = app.palace
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"open note")
        await wait_until(pilot, lambda: highlighted(app.screen) == "Open note…")
        await pilot.press("enter", *"spoke")  # typed straight on
        await wait_until(pilot, lambda: isinstance(app.screen, NotePicker))
        field = app.screen.query_one("#picker-query", Input)
        await wait_until(pilot, lambda: field.value == "spoke")
        assert app.focused is field
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, RoomsScreen))
        view = app.screen.query_one(NoteView)
        await wait_until(
            pilot, lambda: view.note is not None and view.note.rel == "notes/project/spoke.md"
        )
        assert app.palace is before  # nothing was committed on the way


async def test_review_of_a_stale_note_clears_its_flag_in_one_commit(make_palace: Any) -> None:
    """`r` on a stale note in Audit: reviewed today, the stale flag gone, one commit that says
    so; the note leaves Audit's stale list."""
    from uihelpers import apply_plan, git_log

    from curator.ui.screens.audit import AuditScreen

    rel = "notes/project/flags.md"
    root = make_palace(
        {
            rel: note_text(
                "Flags live in flags.yaml",
                extra="stale: {reason: 'flags.yaml is gone', since: 2026-11-20}\n",
            )
        },
        commit=True,
    )
    app = make_app(root, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await show_screen(pilot, "3", AuditScreen)
        await pilot.press("r")
        await apply_plan(pilot)
        await wait_until(pilot, lambda: git_log(root)[0].startswith("review"))
        await wait_until(pilot, lambda: app.palace.by_rel[rel].stale is None)
        note = app.palace.by_rel[rel]
        assert note.stale is None and "stale" not in app.palace.flags(note, app.today)
        assert note.reviewed
    body = "\n".join(git_log(root, "%B"))
    assert "Stale flag cleared (it said: flags.yaml is gone)" in body
    assert "stale" not in (root / rel).read_text()


async def test_tag_is_history_as_a_tag_and_an_edit_says_why(make_palace: Any) -> None:
    """g commits a `tag` action (not "edit … Edited by hand."); an edit in the built-in
    editor takes a one-line reason that history keeps."""
    from uihelpers import apply_plan, git_log

    from curator.ui.widgets.dialogs import AskDialog, EditDialog

    root = make_palace(
        {
            "inbox/2026-12-01-a-draft.md": note_text("A draft", extra="status: draft\n"),
            "notes/project/a-note.md": note_text("A note", body="Old text.\n"),
        },
        commit=True,
    )
    app = make_app(root, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await wait_until(pilot, lambda: isinstance(app.screen, AskDialog))
        await pilot.press(*"billing", "enter")
        await apply_plan(pilot)
        await wait_until(pilot, lambda: git_log(root)[0].startswith("tag"))
        assert "Tagged 'billing'." in "\n".join(git_log(root, "%B"))

        screen = await show_screen(pilot, "2", RoomsScreen)
        screen.open_note("notes/project/a-note.md")
        await wait_until(pilot, lambda: screen.selected() is not None)
        screen.query_one("#rooms-notes").focus()
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EditDialog))
        await pilot.press("ctrl+end", *"New line.", "tab", *"the old text was wrong", "ctrl+s")
        await apply_plan(pilot)
        await wait_until(pilot, lambda: git_log(root)[0].startswith("edit"))
    assert "the old text was wrong" in "\n".join(git_log(root, "%B"))


async def test_a_draft_with_a_broken_header_says_so_and_offers_edit(make_palace: Any) -> None:
    """No "looking for candidates…" forever, no promote form that can never be submitted: the
    header's problem, and `p` offers the editor."""
    from uihelpers import shown_in

    from curator.ui.widgets.dialogs import ConfirmDialog, EditDialog
    from curator.ui.widgets.promote_form import PromoteForm

    root = make_palace(
        {"inbox/2026-12-01-broken.md": "---\nname: [unclosed\ntype: project\n---\nBody.\n"},
        commit=True,
    )
    app = make_app(root, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await wait_until(pilot, lambda: "does not parse" in shown_in(app, "#inbox-candidates"))
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        assert not app.screen_stack or not any(isinstance(s, PromoteForm) for s in app.screen_stack)
        await pilot.press("y")
        await wait_until(pilot, lambda: isinstance(app.screen, EditDialog))


async def test_narrow_columns_show_their_sort_arrow_and_a_header_click_sorts(
    make_palace: Any,
) -> None:
    from textual.widgets._data_table import ColumnKey

    from curator.ui.widgets.table import Table

    root = make_palace(
        {
            f"notes/project/n{i}.md": note_text(f"Note {i}", extra=f"confidence: 0.{9 - i}\n")
            for i in range(4)
        },
        commit=True,
    )
    app = make_app(root, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await show_screen(pilot, "2", RoomsScreen)
        table = screen.query_one("#rooms-notes", Table)
        await wait_until(pilot, lambda: len(table.shown) == 4)
        table.focus()
        await pilot.press("o")  # the first sortable column: Conf., ascending
        conf = table.columns[ColumnKey("conf")]
        await wait_until(pilot, lambda: "▲" in str(conf.label))
        assert len(str(conf.label)) <= 4  # within the column's width: the arrow is not cut
        assert table.shown[0] == "notes/project/n3.md"  # 0.6, the least
        # a click on the Note column's header sorts by it
        x = 1 + sum(
            c.get_render_width(table)
            for k, c in table.columns.items()
            if list(table.columns).index(k) < list(table.columns).index(ColumnKey("name"))
        )
        await pilot.click("#rooms-notes", offset=(x + 2, 1))
        name = table.columns[ColumnKey("name")]
        await wait_until(pilot, lambda: "▲" in str(name.label))
        assert table.sort_by == "name" and table.shown[0] == "notes/project/n0.md"
        await pilot.click("#rooms-notes", offset=(x + 2, 1))
        await wait_until(pilot, lambda: "▼" in str(name.label))
        assert table.shown[0] == "notes/project/n3.md"


async def test_the_draft_pane_masks_secrets_until_revealed(make_palace: Any) -> None:
    from uihelpers import shown_in

    key = "sk_live_" + "51HaBcDeFgHiJkLmNoPqRsTuV"
    root = make_palace(
        {
            "inbox/2026-12-01-key.md": note_text(
                "Stripe key", extra="status: draft\n", body=f"Use {key} for billing.\n"
            )
        },
        commit=True,
    )
    app = make_app(root, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await wait_until(pilot, lambda: "Use ••••••••" in shown_in(app, "#diff-left"))
        assert key not in shown_in(app, "#diff-left")
        assert key[8:] not in shown_in(app, "#inbox-warnings")  # the warning's preview too
        from textual.widgets import Static

        left = app.screen.query_one("#diff-left", Static)
        await pilot.press("V")
        await wait_until(pilot, lambda: key in str(left.content))
        await pilot.press("V")
        await wait_until(pilot, lambda: key not in str(left.content))


def test_the_picker_offers_the_known_near_duplicates_first(palace: Path) -> None:
    """Empty query: every near-duplicate leads; typed: a note named exactly so, then the
    near-duplicates the query finds, in their own order, then the query's ranking."""
    from curator.model.palace import Palace
    from curator.ui.widgets.dialogs import near_first

    a, b, c, d = Palace.open(palace).notes[:4]
    assert near_first([a, b, c], [d, c], "") == [d, c, a, b]
    assert near_first([a, b, c], [d, c], "x") == [c, a, b]  # d is not what was typed
    assert near_first([a, b], [], "x") == [a, b]
    assert near_first([a, b, c], [c], b.name) == [b, c, a]  # a note named so leads


async def test_supersede_picker_in_rooms_leads_with_the_notes_near_duplicates(
    sample_palace: Path,
) -> None:
    """s on a note: before anything is typed, the note's near-duplicates (the one near-duplicate
    rule, as the inbox's candidates) lead the picker, marked; the note itself is not offered."""
    from curator.ui.widgets.dialogs import NotePicker

    rel = "notes/project/stripe-webhook-handler.md"
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await show_screen(pilot, "2", RoomsScreen)
        screen.open_note(rel)
        await wait_until(pilot, lambda: screen.query_one(NoteView).note is not None)
        screen.query_one("#rooms-notes").focus()
        await settle(pilot)
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, NotePicker))
        picker = app.screen
        await wait_until(pilot, lambda: picker.near_done, timeout=60)
        assert picker.near_found
        near = [n.rel for n in picker.near_found]
        options = picker.query_one("#picker-list", OptionList)
        shown = [options.get_option_at_index(i) for i in range(options.option_count)]
        assert [o.id for o in shown[: len(near)]] == near and rel not in near
        assert all("≈ similar" in str(o.prompt) for o in shown[: len(near)])
        assert not any("≈ similar" in str(o.prompt) for o in shown[len(near) :])


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ({"agent": "mcp", "session": "sess-2026-11-28-b5e2"}, "mcp · session …28-b5e2"),
        ({"run": "run-4530", "file": "Makefile"}, "run 4530 · file Makefile"),
        ({"file": "a.py", "session": "s1", "run": "7"}, "session s1 · run 7 · file a.py"),
        ("claude-code", "claude-code"),
        (None, "–"),
        ({"session": "line one\nline two"}, "session …ine two"),
    ],
)
def test_the_source_column_says_who_in_words(source: Any, words: str) -> None:
    """The inbox's Source: the agent, then session, run and file by name, on one line; an id
    keeps its distinctive end."""
    import yaml

    from curator.model.note import parse_note
    from curator.ui.screens.drafts import source_words

    header = {"name": "x", "type": "project"} | ({"source": source} if source else {})
    note = parse_note("inbox/x.md", f"---\n{yaml.safe_dump(header)}---\nx\n".encode(), "draft")
    assert source_words(note) == words


async def test_the_links_followed_show_as_a_trail_and_backspace_walks_it(palace: Path) -> None:
    """Following links: the note pane's title is the trail (Hub › here); Backspace goes back
    one step along it; a note picked from the list starts a new trail, so Backspace then
    goes to the rooms, as the empty trail says."""
    from rich.text import Text

    from curator.ui.widgets.table import Table

    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await show_screen(pilot, "2", RoomsScreen)
        view = screen.query_one(NoteView)
        title = lambda: Text.from_markup(str(view.border_title or "")).plain  # noqa: E731
        screen.open_note("notes/project/hub.md")
        await wait_until(pilot, lambda: view.note is not None and view.note.name == "Hub")
        assert title() == ""
        view.post_message(NoteView.Navigate("notes/project/spoke.md"))
        await wait_until(pilot, lambda: view.note is not None and view.note.name == "Spoke")
        await wait_until(pilot, lambda: title() == "⌫ Hub › here")
        view.post_message(NoteView.Navigate("notes/project/fan.md"))
        await wait_until(pilot, lambda: title() == "⌫ Hub › Spoke › here")
        screen.query_one("#rooms-notes").focus()
        await pilot.press("backspace")
        await wait_until(pilot, lambda: view.note is not None and view.note.name == "Spoke")
        await wait_until(pilot, lambda: title() == "⌫ Hub › here")
        # another note from the list: a new trail; Backspace then leaves for the rooms
        table = screen.query_one("#rooms-notes", Table)
        table.focus()
        at = table.shown.index("notes/project/spoke.md")
        await pilot.press("down" if at == 0 else "up")
        await wait_until(pilot, lambda: view.note is not None and view.note.name != "Spoke")
        await wait_until(pilot, lambda: title() == "")
        await pilot.press("backspace")
        await wait_until(pilot, lambda: app.focused is screen.query_one("#rooms-list"))
