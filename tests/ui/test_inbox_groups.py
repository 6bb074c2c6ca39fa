"""The inbox's groups (issue 36, "an inbox a fleet of agents can fill"): `G` lists the drafts
grouped by the near-duplicate rule with the note each group is like; `p`, `m` and `f` decide a
whole group in one plan and one commit, and undo gives every byte back."""

from __future__ import annotations

from pathlib import Path

import pytest
from palacehelpers import note_text
from textual.widgets import DataTable, Static
from uihelpers import apply_plan, git_log, make_app, show_screen, shown_in, wait_until

from curator.ui.screens.history import HistoryScreen
from curator.ui.screens.inbox import InboxScreen
from curator.ui.widgets.footer import footer_keys
from curator.ui.widgets.plan_dialog import PlanDialog

#: three subjects, each told four ways; the first is already a note
SUBJECTS = {
    "pool": (
        "Postgres connection pool holds twenty connections per worker",
        "pgbouncer pool size twenty per gunicorn worker keeps postgres under its limit",
    ),
    "stripe": (
        "Stripe retries failed webhooks for three days with backoff",
        "live mode webhook events returning non 2xx are retried exponentially up to three days",
    ),
    "deploy": (
        "Deploys freeze on Fridays after noon by release policy",
        "release managers block production deploys friday afternoon except hotfixes approved",
    ),
}
EXTRA = ("Seen again today.", "Confirmed in the logs.", "As noted before.", "Still true.")


def draft(name: str, body: str, day: int) -> str:
    return (
        f"---\nname: {name}\ndescription: {body}\ntype: project\nstatus: draft\n"
        f"created: 2026-11-{day:02d}T09:00:00Z\n---\n"
        f"> DRAFT — unreviewed, NOT a rule until a reviewer promotes it.\n\n{body}\n"
    )


def inbox() -> dict[str, str]:
    files = {
        ".gitignore": "inbox/\n.curator/\n",  # as `curator init` writes it: drafts stay out
        "notes/project/postgres-pool.md": note_text(
            SUBJECTS["pool"][0], description=SUBJECTS["pool"][1], body=SUBJECTS["pool"][1] + "\n"
        ),
    }
    day = 1
    for key, (name, body) in SUBJECTS.items():
        for i, extra in enumerate(EXTRA):
            named = name if i % 2 else f"{name} ({extra})"
            files[f"inbox/{key}-{i}.md"] = draft(named, f"{body}. {extra}", day)
            day += 1
    files["inbox/broken.md"] = "---\nname: [unclosed\n---\nNot in the index: a group of one.\n"
    return files


def tree(root: Path) -> dict[str, bytes]:
    """Every file of the palace but git's own, curator's lock and its derived state (the
    index, INDEX.md: rendered again for the palace after an undo)."""
    out = {}
    skip = (".git/", ".curator/writer.lock", ".curator/index", ".curator/cache", "INDEX.md")
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not rel.startswith(skip):
            out[rel] = path.read_bytes()
    return out


@pytest.mark.anyio
async def test_groups_decided_with_one_key_each(make_palace) -> None:
    root = make_palace(inbox())
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, InboxScreen)
        await wait_until(pilot, lambda: len(screen.marks.shown) == 13)
        await pilot.press("G")
        await wait_until(pilot, lambda: not screen.grouping and len(screen.groups) == 4)
        groups = {g.drafts[0].split("/")[1].split("-")[0]: g for g in screen.groups}
        sizes = {k: len(g.drafts) for k, g in groups.items()}
        assert sizes == {"pool": 4, "stripe": 4, "deploy": 4, "broken.md": 1}
        assert groups["pool"].into == "notes/project/postgres-pool.md"
        assert not groups["stripe"].into and not groups["deploy"].into
        assert "4 groups of 13" in str(screen.marks.border_title)
        # the footer words the keys for what they do to a group
        words = {key[3]: key[1] for key in footer_keys(app, screen)}
        assert (words["promote"], words["merge"], words["fold"]) == (
            "Keep best",
            "Merge all",
            "Fold all",
        )
        assert words["toggle_groups"] == "Rows" and words["reject"] == "Reject all"
        await wait_until(pilot, lambda: "p Keep best" in shown_in(app, "KeyFooter"))
        before = tree(root)
        commits = len(git_log(root))

        # f on the pool group: all four folded into the note; the plan shows every file
        screen.marks.move_cursor(row=screen.marks.shown.index(groups["pool"].drafts[0]))
        await pilot.press("f")
        await wait_until(
            pilot, lambda: isinstance(app.screen, PlanDialog) and app.screen.plan is not None
        )
        plan = app.screen.plan
        touched = {p for ch in plan.changes for p in ch.touched()}
        assert set(groups["pool"].drafts) <= touched and "notes/project/postgres-pool.md" in touched
        files = str(app.screen.query_one("#plan-files", Static).render())
        assert all(path in files for path in plan.paths())
        await apply_plan(pilot)
        assert not any((root / rel).exists() for rel in groups["pool"].drafts)
        await wait_until(pilot, lambda: len(screen.groups) == 3 and len(screen.marks.shown) == 3)

        # p on the stripe group: the best promoted, three rejected: one commit
        screen.marks.move_cursor(row=screen.marks.shown.index(groups["stripe"].drafts[0]))
        await pilot.press("p")
        await apply_plan(pilot)
        assert len(list((root / "notes").rglob("*stripe*"))) == 1
        assert len(list((root / ".curator" / "rejected").glob("stripe-*"))) == 3

        # m on the deploy group: one new note holding all four
        await wait_until(pilot, lambda: len(screen.marks.shown) == 2)
        screen.marks.move_cursor(row=screen.marks.shown.index(groups["deploy"].drafts[0]))
        await pilot.press("m")
        await apply_plan(pilot)
        merged = [p for p in (root / "notes").rglob("*.md") if "deploy" in p.name]
        assert len(merged) == 1 and merged[0].read_text().count("Merged from draft") == 3
        await wait_until(pilot, lambda: screen.marks.shown == ["inbox/broken.md"])
        assert len(git_log(root)) == commits + 3

        # undo each group's commit from History: the palace is byte for byte as before
        history = await show_screen(pilot, "5", HistoryScreen)
        table = history.query_one(DataTable)
        await wait_until(pilot, lambda: table.row_count >= 3)
        rows = table.row_count
        for i in range(3):  # newest first: each undo adds a row above the next to undo
            await wait_until(pilot, lambda n=rows + i: table.row_count >= n)
            table.move_cursor(row=2 * i)
            await pilot.press("u")
            await apply_plan(pilot)
        assert tree(root) == before

        # rows again (G): f folds the selected draft into the candidate shown, as it is
        await show_screen(pilot, "1", InboxScreen)
        await pilot.press("G")
        await wait_until(pilot, lambda: len(screen.marks.shown) == 13)
        await wait_until(pilot, lambda: "p Promote" in shown_in(app, "KeyFooter"))
        pool = groups["pool"].drafts[0]
        screen.marks.move_cursor(row=screen.marks.shown.index(pool))
        await wait_until(pilot, lambda: screen.selected == pool and bool(screen.candidates))
        assert screen.candidates[0].path == "notes/project/postgres-pool.md"
        await pilot.press("f")
        await apply_plan(pilot)
        assert not (root / pool).exists()
        assert "Merged from draft" in (root / "notes/project/postgres-pool.md").read_text()
