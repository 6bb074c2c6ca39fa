"""A bulk plan shows how far it has gone (n of N) while it is made, and Escape stops it: the
planning ends before its next draft, nothing is written and nothing committed. Real app
(Pilot), real palace and git repo, the real reject planner; the test holds the planning at
one draft (an event) so that the keys land while it runs, without timing."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from palacehelpers import git, note_text
from textual.widgets import Label
from uihelpers import git_log, make_app, messages_of, settle, wait_until

from curator.model.palace import Palace
from curator.ui import services
from curator.ui.widgets.plan_dialog import PlanDialog
from curator.writer.actions.bulk import plan_bulk

pytestmark = pytest.mark.anyio

COUNT = 6
RELS = [f"inbox/2026-11-{10 + i:02d}-d{i}.md" for i in range(COUNT)]


@pytest.fixture
def palace(make_palace: Any) -> Path:
    return make_palace(
        {
            rel: note_text(f"Draft {i}", extra=f"status: draft\ncreated: 2026-11-{10 + i:02d}\n")
            for i, rel in enumerate(RELS)
        }
    )


def test_plan_bulk_reports_each_step_and_stops_when_told(palace: Path) -> None:
    loaded = Palace.open(palace)
    steps: list[tuple[int, int]] = []
    plan = plan_bulk(
        loaded,
        "reject",
        RELS,
        lambda p, r: services.plan_reject(p, r, "noise"),
        "noise",
        progress=lambda done, total: steps.append((done, total)),
    )
    assert steps == [(n, COUNT) for n in range(COUNT + 1)]
    assert set(RELS) <= set(plan.paths())

    planning = services.Planning()
    planned: list[str] = []

    def build(p: Palace, rel: str) -> services.Plan:
        planned.append(rel)
        if len(planned) == 2:
            planning.cancel()
        return services.plan_reject(p, rel, "noise")

    with pytest.raises(services.Cancelled):
        plan_bulk(loaded, "reject", RELS, build, "noise", progress=planning.step)
    assert planned == RELS[:2]  # stopped before the third
    assert git(palace, "status", "--porcelain").stdout == ""


async def test_bulk_planning_shows_progress_and_escape_cancels_it(palace: Path) -> None:
    held = threading.Event()  # the planner has reached the third draft
    release = threading.Event()
    planned: list[str] = []

    def build(p: Palace, rel: str) -> services.Plan:
        planned.append(rel)
        if len(planned) == 3:
            held.set()
            release.wait(30)
        return services.plan_reject(p, rel, "noise")

    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        before = git_log(palace)
        plan, planning = services.bulk_plan("reject", RELS, build, "noise")
        worker = app.run_plan(plan, planning)
        await wait_until(pilot, lambda: isinstance(app.screen, PlanDialog) and held.is_set())
        dialog = app.screen
        subject = dialog.query_one("#plan-subject", Label)
        await wait_until(pilot, lambda: f"3 of {COUNT}" in str(subject.render()))
        assert "Escape cancels" in str(subject.render())

        await pilot.press("escape")
        assert not isinstance(app.screen, PlanDialog)  # the dialog closes at once
        assert planning.cancelled
        release.set()
        await worker.wait()
        await settle(pilot)

        assert planned == RELS[:3]  # no draft planned after the cancel
        assert worker.result is None
        assert git_log(palace) == before  # nothing committed
        assert git(palace, "status", "--porcelain").stdout == ""  # nor written
        messages = messages_of(app)
        assert "Cancelled: nothing changed" in messages
        assert not any("error" in m.severity for m in app.message_log.messages)
        assert all((palace / rel).exists() for rel in RELS)


async def test_bulk_reject_by_keys_still_commits_once(palace: Path) -> None:
    """The inbox's bulk reject through the same planning: marks, x, reason, y, one commit."""
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        before = len(git_log(palace))
        await pilot.press("*")  # every draft of the session
        await pilot.press("x")
        await pilot.press(*"noise", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PlanDialog))
        dialog = app.screen
        assert isinstance(dialog, PlanDialog)
        await wait_until(pilot, lambda: dialog.plan is not None)
        await pilot.press("y")
        await wait_until(pilot, lambda: len(git_log(palace)) == before + 1)
        await settle(pilot)
        assert not any((palace / rel).exists() for rel in RELS)


def test_plan_bulk_renders_the_index_once_with_the_same_plan(palace: Path) -> None:
    """Each draft's own index is not rendered (INDEX_DEFERRED): the plan is the one made with
    every draft's index rendered and dropped."""
    from curator.writer.actions.common import INDEX_DEFERRED

    loaded = Palace.open(palace)

    def rendered_each(p: Palace, rel: str) -> services.Plan:
        token = INDEX_DEFERRED.set(False)
        try:
            return services.plan_reject(p, rel, "noise")
        finally:
            INDEX_DEFERRED.reset(token)

    once = plan_bulk(loaded, "reject", RELS, lambda p, r: services.plan_reject(p, r, "noise"), "x")
    each = plan_bulk(loaded, "reject", RELS, rendered_each, "x")
    assert once.changes == each.changes and once.message == each.message
    assert "INDEX.md" in once.paths()
    assert not INDEX_DEFERRED.get()
