"""The remaining actions through the UI (supersede, merge, edit, re-verify, full audit) and a
keyboard-only session that clears an inbox; each asserts on files, INDEX.md and git log."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml
from textual.pilot import Pilot
from textual.widgets import DataTable, OptionList, ProgressBar, TextArea
from uihelpers import commit_files, git_log, make_app, messages_of, settle, wait_until

from curator.ui.app import CuratorApp
from curator.ui.screens.audit import AuditScreen
from curator.ui.screens.inbox import InboxScreen
from curator.ui.widgets.dialogs import AskDialog, EditDialog, NotePicker
from curator.ui.widgets.plan_dialog import PlanDialog
from curator.ui.widgets.promote_form import PromoteForm

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

FLAGS_NOTE = "notes/project/feature-flags-live-in-feature-flags-yaml.md"


def header(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    return dict(yaml.safe_load(text.split("---\n", 2)[1]))


async def confirm(pilot: Pilot[None], app: CuratorApp) -> None:
    """Apply the plan shown with `y` and wait for exactly one new commit."""
    await wait_until(pilot, lambda: isinstance(app.screen, PlanDialog))
    before = len(git_log(app.root))
    await pilot.press("y")
    await wait_until(pilot, lambda: len(git_log(app.root)) == before + 1)
    await settle(pilot)


async def select_draft(pilot: Pilot[None], app: CuratorApp, name_part: str) -> str:
    screen = app.screen
    assert isinstance(screen, InboxScreen)
    index = next(i for i, d in enumerate(screen.drafts) if name_part in d.rel)
    screen.query_one("#inbox-drafts", DataTable).move_cursor(row=index)
    await settle(pilot)
    return screen.drafts[index].rel


async def test_inbox_supersede_promotes_draft_over_candidate(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        rel = await select_draft(pilot, app, "always-run-tests-before-finishing")
        screen = app.screen
        assert isinstance(screen, InboxScreen)
        candidate = screen.chosen()
        assert candidate is not None
        old = candidate.path
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, PromoteForm))
        await pilot.press("enter")
        await confirm(pilot, app)
        assert not (sample_palace / rel).exists()
        assert git_log(sample_palace)[0].startswith("promote")
        old_header = header(sample_palace / old)
        assert old_header["status"] == "superseded"
        new_rel = next(
            p
            for p in (sample_palace / "notes").rglob("*.md")
            if header(p).get("supersedes") == [Path(old).stem]
        )
        assert old_header["superseded_by"] == new_rel.stem
        index = (sample_palace / "INDEX.md").read_text()
        superseded = index.split("## Superseded", 1)[1]
        assert old in superseded and new_rel.relative_to(sample_palace).as_posix() in index
        assert len(git_log(sample_palace)) == 2


async def test_inbox_merge_into_candidate(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        rel = await select_draft(pilot, app, "stripe-retries-webhooks")
        screen = app.screen
        assert isinstance(screen, InboxScreen)
        await pilot.press("right_square_bracket", "left_square_bracket")
        candidate = screen.chosen()
        assert candidate is not None
        await pilot.press("m")  # the merged text opens for editing first
        await wait_until(pilot, lambda: isinstance(app.screen, EditDialog))
        before = date.today().isoformat()
        await pilot.press("ctrl+s")
        await confirm(pilot, app)
        after = date.today().isoformat()
        assert not (sample_palace / rel).exists()
        assert git_log(sample_palace)[0].startswith("merge")
        merged = (sample_palace / candidate.path).read_text()
        assert "## Merged from draft:" in merged
        # the planner's date is the clock's, not the app's display date; the merge may run
        # across midnight, so either side of it is the clock's
        assert str(header(sample_palace / candidate.path)["reviewed"]) in {before, after}
        assert list((sample_palace / ".curator" / "merged").glob("*.md"))
        index = (sample_palace / "INDEX.md").read_text()
        assert candidate.path in index and rel not in index


async def test_inbox_edit_in_the_app_editor(sample_palace: Path) -> None:
    """The app edits in a TextArea dialog (no $EDITOR); ctrl+s plans the edit."""
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        rel = await select_draft(pilot, app, "celery-visibility-timeout")
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EditDialog))
        area = app.screen.query_one(TextArea)
        assert app.screen.focused is area
        await pilot.press("pagedown", "pagedown", "pagedown", "end", "enter")
        await pilot.press(*"Checked by the reviewer.", "ctrl+s")
        await confirm(pilot, app)
        assert (sample_palace / rel).read_text().rstrip().endswith("Checked by the reviewer.")
        assert git_log(sample_palace)[0].startswith("edit")


async def test_audit_supersede_with_named_note(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AuditScreen)
        old = screen.selected()
        assert old is not None
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, NotePicker))
        picker = app.screen
        await pilot.press(*"stripe-tax-handles-vat")
        # the list filtered to the note named, and final (the near-duplicates looked up)
        options = picker.query_one("#picker-list", OptionList)
        wanted = "notes/project/stripe-tax-handles-vat.md"
        await wait_until(
            pilot,
            lambda: (
                picker.near_done
                and options.highlighted is not None
                and options.get_option_at_index(options.highlighted).id == wanted
            ),
        )
        await pilot.press("enter")
        await confirm(pilot, app)
        assert git_log(sample_palace)[0].startswith("supersede")
        assert header(sample_palace / old.rel)["superseded_by"] == "stripe-tax-handles-vat"
        new = header(sample_palace / "notes/project/stripe-tax-handles-vat.md")
        assert old.slug in new["supersedes"]
        superseded = (sample_palace / "INDEX.md").read_text().split("## Superseded", 1)[1]
        assert old.rel in superseded
        assert old.rel not in [n.rel for n in screen.rows]


async def test_audit_reverify_failing_note_marks_it_stale(sample_palace: Path) -> None:
    # Half a year on, the feature-flags note is due for review and shows on the audit screen.
    app = CuratorApp(sample_palace, today=date(2027, 6, 1), watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AuditScreen)
        rels = [n.rel for n in screen.rows]
        for _ in range(rels.index(FLAGS_NOTE)):
            await pilot.press("down")
        selected = screen.selected()
        assert selected is not None and selected.rel == FLAGS_NOTE
        assert "stale" not in header(sample_palace / FLAGS_NOTE)
        await pilot.press("v")
        await confirm(pilot, app)
        said = messages_of(app)
        assert any(m.startswith(f"{selected.name}: ") for m in said), said  # names the note
        stale = header(sample_palace / FLAGS_NOTE)["stale"]
        assert "config/feature_flags.yaml" in stale["reason"]
        assert str(stale["since"]) == "2027-06-01"
        assert git_log(sample_palace)[0].startswith("audit")
        changed = git_log(sample_palace, "%H")[0]
        files = commit_files(sample_palace, changed)
        assert FLAGS_NOTE in files and set(files) <= {FLAGS_NOTE, "INDEX.md"}


async def test_audit_run_all_with_progress(sample_palace: Path) -> None:
    app = make_app(sample_palace, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AuditScreen)
        bar = screen.query_one(ProgressBar)
        shown: list[bool] = []
        original = screen._progress_start

        def spy(total: int) -> None:
            original(total)
            shown.append(bar.display)

        screen._progress_start = spy  # type: ignore[method-assign]
        await pilot.press("A")
        await confirm(pilot, app)
        assert shown == [True] and not bar.display
        assert bar.total and bar.progress == bar.total
        assert git_log(sample_palace)[0].startswith("audit")
        assert "stale" in header(sample_palace / FLAGS_NOTE)
        assert FLAGS_NOTE in [n.rel for n in screen.rows]


def _fewer(screen: InboxScreen, before: int) -> Callable[[], bool]:
    return lambda: len(screen.drafts) == before - 1


DRAFT = """---
name: Draft number {n:02d} about {topic}
description: What the agent noticed about {topic}, number {n:02d}.
type: project
status: draft
created: 2026-11-{day:02d}T10:{n:02d}:00Z
source: {{session: sess-{n:02d}}}
---
> DRAFT

The agent noticed something about {topic} ({n:02d}).
"""

TOPICS = ("billing", "deploys", "celery", "postgres", "stripe")
# promote and reject alternate, each twice (a decision after one of either kind); each
# decision is a commit and an index update
DRAFTS = 4


async def test_keyboard_only_clears_the_inbox(make_palace: Any) -> None:
    files = {
        f"inbox/2026-11-{10 + n:02d}-draft-{n:02d}.md": DRAFT.format(
            n=n, day=10 + n, topic=TOPICS[n % len(TOPICS)]
        )
        for n in range(DRAFTS)
    }
    files["notes/project/existing.md"] = (
        "---\nname: Existing note\ndescription: Already here.\ntype: project\n---\nBody.\n"
    )
    root = make_palace(files)  # the default palace.toml: its index is built once a run
    start = len(git_log(root))
    app = make_app(root, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InboxScreen) and len(screen.drafts) == DRAFTS
        for n in range(DRAFTS):
            before = len(screen.drafts)
            if n % 2 == 0:
                await pilot.press("p")
                await wait_until(pilot, lambda: isinstance(app.screen, PromoteForm))
                await pilot.press("enter")
            else:
                await pilot.press("x")
                await wait_until(pilot, lambda: isinstance(app.screen, AskDialog))
                await pilot.press(*"not useful", "enter")
            await wait_until(pilot, lambda: isinstance(app.screen, PlanDialog))
            await pilot.press("y")
            await wait_until(pilot, _fewer(screen, before))
        assert screen.drafts == []
    assert not list((root / "inbox").glob("*.md"))
    log = git_log(root)
    assert len(log) == start + DRAFTS
    assert sum(s.startswith("promote") for s in log) == DRAFTS // 2
    assert sum(s.startswith("reject") for s in log) == DRAFTS // 2
    index = (root / "INDEX.md").read_text()
    assert index.count("Draft number") == DRAFTS // 2
