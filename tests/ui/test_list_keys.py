"""Lists as lazygit users expect them (issue 21): j/k move, `/` filters the list in place by
name, path or tag (Enter keeps the filter, Escape clears it), `o` cycles the sort column and
direction and the header says which, Audit shows only stale, due or expired rows with `f`;
a 937-note room and a 1,500-row audit list every row and reach the last one. Real app (Pilot),
real palaces; rows are counted, never timed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from palacehelpers import note_text
from uihelpers import make_app, settle, show_screen, wait_until

from curator.ui.screens.audit import AuditScreen
from curator.ui.screens.rooms import RoomsScreen
from curator.ui.widgets.list_filter import ListFilter
from curator.ui.widgets.table import Table

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

DUE = "created: 2025-01-01\nreviewed: 2025-06-01\n"  # long past review: due


def names(table: Table) -> list[str]:
    return [table.get_cell(key, "name").plain for key in table.rows]


def header(table: Table) -> list[str]:
    return [column.label.plain for column in table.columns.values()]


async def test_j_and_k_move_the_cursor_in_every_list(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for key, selector in (("1", "#inbox-drafts"), ("2", "#rooms-notes")):
            await pilot.press(key)
            await settle(pilot)
            table = app.screen.query_one(selector, Table)
            table.focus()
            table.move_cursor(row=0)
            await pilot.press("j", "j")
            assert table.cursor_row == 2, selector
            await pilot.press("k")
            assert table.cursor_row == 1, selector


async def test_slash_filters_the_inbox_in_place_and_escape_clears_it(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#inbox-drafts", Table)
        line = app.screen.query_one(ListFilter)
        assert table.row_count == 8 and not line.display
        await pilot.press("slash")
        await wait_until(pilot, lambda: app.focused is line)
        await pilot.press(*"stripe")
        await wait_until(pilot, lambda: table.row_count == 2)
        assert all("Stripe" in name for name in names(table))
        assert table.border_title == "Inbox (2 of 8)"
        await pilot.press("enter")  # back to the list, the filter kept
        await wait_until(pilot, lambda: app.focused is table)
        assert table.row_count == 2 and line.display and "/stripe" in str(table.border_subtitle)
        await pilot.press("escape")  # on the list: the filter goes
        await wait_until(pilot, lambda: table.row_count == 8)
        assert not line.display and table.border_title == "Inbox (8)"
        await pilot.press("slash", *"render-autoscaling")  # by path (the draft has no name)
        await wait_until(pilot, lambda: table.row_count == 1)
        await pilot.press("escape")  # in the filter line: cleared, back to the list
        await wait_until(pilot, lambda: table.row_count == 8 and app.focused is table)


async def test_slash_finds_a_rooms_note_by_tag(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await show_screen(pilot, "2", RoomsScreen)
        table = screen.query_one("#rooms-notes", Table)
        table.focus()
        assert table.row_count == 4  # who you work for
        await pilot.press("slash", *"schedule")
        await wait_until(pilot, lambda: table.row_count == 1)
        assert names(table) == ["Maya works Lisbon hours and protects Friday afternoons"]
        assert "(1 of 4)" in str(table.border_title)
        await pilot.press("enter")
        await pilot.press("enter")  # Enter on the note found: into its links, as unfiltered
        await wait_until(pilot, lambda: app.focused is screen.query_one("#note-links"))


async def test_o_cycles_the_sort_and_the_header_says_which(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#inbox-drafts", Table)
        newest_first = names(table)
        ages = lambda: [table.get_cell(k, "age").plain for k in table.rows]  # noqa: E731
        await pilot.press("o")
        assert header(table)[1] == "Age ▲"
        days = [int(a[:-1]) for a in ages() if a.endswith("d")]
        assert days == sorted(days) and ages()[-1] == "?"  # no date: last
        await pilot.press("o")
        assert header(table)[1] == "Age ▼" and ages()[0] == "?"
        await pilot.press("o", "o")  # Source ▲, Source ▼
        assert header(table)[2] == "Source ▼" and header(table)[1] == "Age"
        await pilot.press("o")
        assert header(table)[3] == "Draft ▲"
        assert names(table) == sorted(newest_first, key=str.casefold)
        await pilot.press("o", "o")  # Draft ▼, then the inbox's own order again
        assert names(table) == newest_first and "▲" not in "".join(header(table))


@pytest.fixture
def audit_palace(make_palace: Any) -> Path:
    files = {f"notes/project/due-{n}.md": note_text(f"Due note {n}", extra=DUE) for n in range(3)}
    files["notes/project/stale.md"] = note_text(
        "Stale note",
        extra="created: 2026-11-01\nreviewed: 2026-11-01\n"
        "stale: {reason: the file it names is gone, since: 2026-11-20}\n",
    )
    files["notes/project/expired.md"] = note_text(
        "Expired note", extra="created: 2026-11-01\nreviewed: 2026-11-01\nexpires: 2026-11-10\n"
    )
    return make_palace(files)


async def test_f_shows_only_stale_due_or_expired_rows(audit_palace: Path) -> None:
    app = make_app(audit_palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await show_screen(pilot, "3", AuditScreen)
        table = screen.query_one("#audit-table", Table)
        assert table.row_count == 5
        shown = []
        for _ in range(4):
            await pilot.press("f")
            shown.append((table.kind, sorted(names(table))))
        assert shown == [
            ("stale", ["Stale note"]),
            ("due", ["Due note 0", "Due note 1", "Due note 2"]),
            ("expired", ["Expired note"]),
            (None, sorted(["Stale note", "Expired note", *(f"Due note {n}" for n in range(3))])),
        ]
        await pilot.press("f", "f")  # due only, then a filter on top of it
        assert "only due" in str(table.border_title)
        await pilot.press("slash", "1")
        await wait_until(pilot, lambda: names(table) == ["Due note 1"])


ROOM = 937
OTHERS = 1500 - ROOM


@pytest.fixture
def big_palace(make_palace: Any) -> Path:
    files = {
        f"notes/project/p-{n:04d}.md": note_text(f"Project note {n:04d}", extra=DUE)
        for n in range(ROOM)
    }
    files |= {
        f"notes/reference/r-{n:04d}.md": note_text(
            f"Reference note {n:04d}", type="reference", extra=DUE
        )
        for n in range(OTHERS)
    }
    return make_palace(files)


async def test_a_937_note_room_and_a_1500_row_audit_are_navigable(big_palace: Path) -> None:
    app = make_app(big_palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await show_screen(pilot, "2", RoomsScreen)
        screen.show_room("project")
        table = screen.query_one("#rooms-notes", Table)
        table.focus()
        assert table.row_count == ROOM and f"({ROOM})" in str(table.border_title)
        await pilot.press("end")
        assert table.cursor_row == ROOM - 1
        assert screen.selected() is not None and screen.selected().name == "Project note 0936"
        await pilot.press("k", "home", "j")
        assert table.cursor_row == 1
        await pilot.press("slash", *"0936")
        await wait_until(pilot, lambda: names(table) == ["Project note 0936"])
        await pilot.press("enter")  # back on the list: the screen keys work again

        screen = await show_screen(pilot, "3", AuditScreen)
        table = screen.query_one("#audit-table", Table)
        table.focus()
        assert table.row_count == 1500 and "(1500)" in str(table.border_title)
        await pilot.press("end")
        assert table.cursor_row == 1499
        await pilot.press("o", "o", "o", "o", "o", "o", "o")  # Note ▲: by name
        assert header(table)[-1] == "Note ▲"
        await pilot.press("home")
        assert screen.selected() is not None and screen.selected().name == "Project note 0000"
        await pilot.press("end")
        assert screen.selected() is not None and screen.selected().name == "Reference note 0562"
        await pilot.press("slash", *"project")  # by path: every project note, none other
        await wait_until(pilot, lambda: table.row_count == ROOM)
        await pilot.press("escape")
        await wait_until(pilot, lambda: table.row_count == 1500)
