"""Merge right after a promote, while the index sync that follows the commit is still running.

The sync holds the search session's lock for as long as it runs (the first build at 10k notes
takes tens of seconds; a sync embedding new drafts, seconds). Meanwhile the palace reloads
(the reviewer's ctrl+r here, the file watcher as agents capture in daily use) and each reload
looks up the selected draft's candidates. The merge must not wait for any of that: its editor
opens from the palace already loaded, and its plan and commit go through while the sync runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, TextArea
from uihelpers import git_log, make_app, messages_of, settle, wait_until

from curator.model.note import DRAFT_BANNER
from curator.ui.app import CuratorApp
from curator.ui.screens.inbox import InboxScreen
from curator.ui.widgets.dialogs import EditDialog
from curator.ui.widgets.plan_dialog import PlanDialog
from curator.ui.widgets.promote_form import PromoteForm

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

PROMOTED = "make-lint-runs-mypy"  # listed just above the draft merged
MERGED = "stripe-retries-webhooks"


@contextmanager
def sync_running(app: CuratorApp) -> Iterator[None]:
    """Hold the app's search session as a long index sync holds it (the real lock)."""
    lock = app.session.index.lock
    lock.acquire()
    try:
        yield
    finally:
        lock.release()


def reloads_to_fill_the_pool() -> int:
    """More palace reloads than asyncio's default thread pool has threads: each reload once
    started a candidate lookup that waited on the session, and so filled it."""
    import os

    return min(32, (os.cpu_count() or 1) + 4) + 2


async def reload(pilot: Pilot[None], app: CuratorApp) -> None:
    """ctrl+r, and wait for the palace it loads (its candidate lookup may still wait)."""
    before = app.palace
    await pilot.press("ctrl+r")
    await wait_until(pilot, lambda: app.palace is not before)


def inbox_row(app: CuratorApp, part: str) -> tuple[InboxScreen, int]:
    """The inbox, and the row of the draft whose path holds `part`."""
    screen = app.screen
    assert isinstance(screen, InboxScreen)
    return screen, next(i for i, d in enumerate(screen.drafts) if part in d.rel)


async def marked_above(pilot: Pilot[None], app: CuratorApp) -> InboxScreen:
    """Mark the draft PROMOTED (the cursor moves to MERGED below it) and wait for MERGED's
    candidates."""
    screen, above = inbox_row(app, PROMOTED)
    assert MERGED in screen.drafts[above + 1].rel
    screen.query_one("#inbox-drafts", DataTable).move_cursor(row=above)
    await settle(pilot)
    await pilot.press("space")
    await settle(pilot)
    assert screen.selected is not None and MERGED in screen.selected
    assert screen.chosen() is not None
    return screen


async def test_merge_right_after_promote_while_the_index_syncs(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await marked_above(pilot, app)
        candidate = screen.chosen()
        assert candidate is not None
        draft_rel = screen.selected
        assert draft_rel is not None
        await pilot.press("p")  # promotes the marked draft
        await wait_until(pilot, lambda: isinstance(app.screen, PromoteForm))
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, PlanDialog))
        with sync_running(app):
            await pilot.press("y")
            await wait_until(pilot, lambda: git_log(sample_palace)[0].startswith("promote"))
            await wait_until(pilot, lambda: isinstance(app.screen, InboxScreen))
            await wait_until(pilot, lambda: not any(PROMOTED in d.rel for d in screen.drafts))
            for _ in range(reloads_to_fill_the_pool()):
                await reload(pilot, app)
            assert app.indexing  # the sync after the promote has not finished
            assert screen.selected == draft_rel and screen.chosen() == candidate

            await pilot.press("m")
            await wait_until(pilot, lambda: isinstance(app.screen, EditDialog), timeout=3)
            text = app.screen.query_one(TextArea).text
            assert "## Merged from draft:" in text and DRAFT_BANNER not in text
            note_body = (sample_palace / candidate.path).read_text().split("---\n", 2)[2]
            assert text.startswith(note_body.rstrip("\n"))  # the note first, then the draft
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: isinstance(app.screen, PlanDialog))
            dialog = app.screen
            await wait_until(pilot, lambda: dialog.plan is not None)
            await pilot.press("y")
            await wait_until(pilot, lambda: git_log(sample_palace)[0].startswith("merge"), 5)
            assert app.indexing  # all of it while the sync was still running
        await settle(pilot)
        assert not (sample_palace / draft_rel).exists()
        merged = (sample_palace / candidate.path).read_text()
        assert merged.count("## Merged from draft:") == 1 and DRAFT_BANNER not in merged
        assert [s.split(":", 1)[0] for s in git_log(sample_palace)[:2]] == ["merge", "promote"]


def test_merged_text_is_what_the_plan_writes(sample_palace: Path) -> None:
    """The text the editor opens with (made from two notes, no plan) is the body the merge
    plan writes, for every draft that merges into every note of the sample palace."""
    from curator.errors import CuratorError
    from curator.model.note import parse_note
    from curator.model.palace import Palace
    from curator.ui import services

    palace = Palace.open(sample_palace, cache=False)
    checked = 0
    for draft in palace.drafts:
        for note in palace.notes[:12]:
            try:
                plan = services.plan_merge_draft(palace, draft.rel, note.rel)
            except CuratorError:
                with pytest.raises(CuratorError):  # refused alike, before the editor opens
                    services.merged_body(palace, draft.rel, note.rel)
                continue
            written = plan.effects(palace.root)[note.rel]
            assert written is not None
            body = parse_note(note.rel, written, "note").body
            assert services.merged_body(palace, draft.rel, note.rel) == body
            checked += 1
    assert checked >= 12


async def test_merge_before_the_candidates_are_listed_says_so(sample_palace: Path) -> None:
    """m while the lookup still waits for the index: a warning saying so, no editor; once the
    candidate is listed, m merges into it."""
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen, row = inbox_row(app, MERGED)
        with sync_running(app):
            screen.query_one("#inbox-drafts", DataTable).move_cursor(row=row)
            await wait_until(pilot, lambda: screen.selected == screen.drafts[row].rel)
            assert screen.chosen() is None
            await pilot.press("m")
            still = "Still looking for candidates"
            await wait_until(pilot, lambda: any(m.startswith(still) for m in messages_of(app)))
            assert isinstance(app.screen, InboxScreen)
        await settle(pilot)
        assert screen.chosen() is not None
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(app.screen, EditDialog), timeout=3)


async def test_merge_into_the_note_just_promoted(sample_palace: Path) -> None:
    """Two drafts saying the same thing (drafts are not committed: inbox/ is git-ignored): the
    first is promoted, the second then lists the new note as its candidate (the index followed
    the commit) and m merges into that note."""
    text = (
        "---\nname: {name}\ndescription: Why the ledger export job retries at night.\n"
        "type: reference\nstatus: draft\ncreated: {created}\nsource: {{session: s-{n}}}\n---\n"
        f"{DRAFT_BANNER}\n\nThe ledger export job retries three times at night because the "
        "warehouse rotates its credentials at 02:00 and the first attempt often fails.{extra}\n"
    )
    first = "inbox/2026-11-30-ledger-export-retries.md"
    second = "inbox/2026-11-30-ledger-export-retries-again.md"
    (sample_palace / first).write_text(
        text.format(
            name="Ledger export retries at night", created="2026-11-30T12:00:00Z", n=1, extra=""
        ),
        encoding="utf-8",
    )
    (sample_palace / second).write_text(
        text.format(
            name="Ledger export retries nightly",
            created="2026-11-30T11:00:00Z",
            n=2,
            extra=" Seen again on the 30th.",
        ),
        encoding="utf-8",
    )
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InboxScreen)
        assert screen.listed is not None and screen.listed[:2] == [first, second]
        screen.query_one("#inbox-drafts", DataTable).move_cursor(row=0)
        await settle(pilot)
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, PromoteForm))
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, PlanDialog))
        await pilot.press("y")
        await wait_until(pilot, lambda: git_log(sample_palace)[0].startswith("promote"))
        await wait_until(
            pilot,
            lambda: (
                screen.selected == second
                and (chosen := screen.chosen()) is not None
                and chosen.name == "Ledger export retries at night"
            ),
        )
        into = screen.chosen()
        assert into is not None and into.path.startswith("notes/")
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(app.screen, EditDialog), timeout=3)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, PlanDialog))
        await pilot.press("y")
        await wait_until(pilot, lambda: git_log(sample_palace)[0].startswith("merge"))
        await settle(pilot)
        merged = (sample_palace / into.path).read_text(encoding="utf-8")
        assert "## Merged from draft: Ledger export retries nightly" in merged
        assert "Seen again on the 30th." in merged and DRAFT_BANNER not in merged
        assert not (sample_palace / first).exists() and not (sample_palace / second).exists()


async def test_merge_goes_into_the_candidate_shown(sample_palace: Path) -> None:
    """] shows the second candidate: the editor opens on that note's text and the merge
    writes into it, not into the first."""
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen, row = inbox_row(app, MERGED)
        screen.query_one("#inbox-drafts", DataTable).move_cursor(row=row)
        await settle(pilot)
        assert len(screen.candidates) >= 2
        first, second = screen.candidates[0], screen.candidates[1]
        await pilot.press("right_square_bracket")
        assert screen.chosen() == second
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(app.screen, EditDialog), timeout=3)
        body = (sample_palace / second.path).read_text().split("---\n", 2)[2]
        assert app.screen.query_one(TextArea).text.startswith(body.rstrip("\n"))
        before = (sample_palace / first.path).read_bytes()
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, PlanDialog))
        await pilot.press("y")
        await wait_until(pilot, lambda: git_log(sample_palace)[0].startswith("merge"))
        assert "## Merged from draft:" in (sample_palace / second.path).read_text()
        assert (sample_palace / first.path).read_bytes() == before
