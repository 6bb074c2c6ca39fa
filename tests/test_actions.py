"""Curation actions in-process: planners are pure; one commit per action with only its paths and
INDEX.md; trailers that history parses; undo; refusals. Real git repos in tmp_path, no mocks.
"""

from __future__ import annotations

import contextlib
import subprocess
from datetime import date
from pathlib import Path

import pytest
from palacehelpers import RunCli, git, note_text

from curator.model.palace import Palace
from curator.writer.actions.common import ActionError
from curator.writer.actions.edit import plan_edit
from curator.writer.actions.index import plan_index
from curator.writer.actions.merge import plan_merge, plan_merge_draft
from curator.writer.actions.promote import plan_promote, validate_promote
from curator.writer.actions.reject import plan_reject
from curator.writer.actions.retire import plan_retire
from curator.writer.actions.review import plan_mark_reviewed
from curator.writer.actions.supersede import plan_supersede
from curator.writer.actions.undo import undo
from curator.writer.apply import DirtyFileError
from curator.writer.history import UndoError, history
from curator.writer.plan import Plan
from curator.writer.session import commit

STRIPE = "inbox/2026-11-24-stripe-retries-webhooks-three-days.md"
LINT = "inbox/2026-11-25-make-lint-runs-mypy-on-billing.md"
SECRET = "inbox/2026-11-26-rotate-stripe-restricted-key.md"
VAT = "inbox/2026-11-27-invoice-pdf-shows-customer-vat-id.md"
DEPLOY = "notes/project/deploy-on-version-tags.md"
FLAGS = "notes/project/feature-flags-live-in-feature-flags-yaml.md"
HANDLER = "notes/project/stripe-webhook-handler.md"
TODAY = date(2026, 11, 30)


def committed(root: Path, rev: str = "HEAD") -> set[str]:
    out = git(root, "-c", "core.quotepath=off", "show", "--name-only", "--format=", rev).stdout
    return {line for line in out.splitlines() if line}


def state(root: Path) -> tuple[dict[str, bytes], str, str]:
    files = {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
        and ".git" not in p.relative_to(root).parts
        and "cache" not in p.relative_to(root).parts
    }
    status = git(root, "status", "--porcelain", "--ignored", "--untracked-files=all").stdout
    status = "\n".join(line for line in status.splitlines() if "/cache/" not in line)
    return files, status, git(root, "rev-parse", "HEAD").stdout


def index_is_current(run_cli: RunCli, root: Path) -> None:
    code, stdout, stderr = run_cli("--palace", root, "index", "--check")
    assert code == 0, stdout + stderr


def plan_undo_action(palace: Palace, sha: str | None = None) -> Plan:
    return undo(palace.root, sha, palace=palace)


def do(root: Path, plan_fn, *args, **kw):  # type: ignore[no-untyped-def]
    """Plan against a freshly opened palace (proving the plan writes nothing), then commit."""
    palace = Palace.open(root)
    before = state(root)
    plan = plan_fn(palace, *args, **kw)
    plan.diff()
    assert state(root) == before, f"planning {plan.action} changed the tree or git status"
    return plan, commit(root, plan)


@pytest.fixture
def palace(sample_palace: Path) -> Path:
    """sample_palace with a current INDEX.md committed."""
    with contextlib.suppress(ActionError):  # already current: nothing to commit
        commit(sample_palace, plan_index(Palace.open(sample_palace)))
    return sample_palace


# --------------------------------------------------------------------------- planning is pure


def test_every_planner_writes_nothing(palace: Path) -> None:
    p = Palace.open(palace)
    before = state(palace)
    new_deploy = (palace / DEPLOY).read_bytes().replace(b"To release:", b"To ship:")
    plans = [
        plan_promote(p, STRIPE, confidence=0.8),
        plan_reject(p, LINT, "duplicate"),
        plan_edit(p, DEPLOY, new_deploy),
        plan_supersede(p, DEPLOY, "notes/project/deploy-freeze-until-vat-filing.md", relink=True),
        plan_merge(p, [FLAGS, DEPLOY], "Deploys and flags"),
        plan_merge_draft(p, VAT, HANDLER),
        plan_retire(p, DEPLOY, "gone"),
        plan_mark_reviewed(p, DEPLOY),
    ]
    for plan in plans:
        plan.diff()
    assert state(palace) == before


# --------------------------------------------------------------------------- promote


def test_promote_moves_the_draft_into_notes_and_commits_note_and_index(
    palace: Path, run_cli: RunCli
) -> None:
    _, applied = do(
        palace, plan_promote, STRIPE, confidence=0.8, reason="Seen in prod.", today=TODAY
    )
    dest = "notes/reference/stripe-keeps-retrying-a-failed-webhook-for-three-days.md"
    assert committed(palace, applied.sha) == {dest, "INDEX.md"}
    text = (palace / dest).read_text()
    assert "DRAFT" not in text and "status:" not in text
    assert "reviewed: 2026-11-30" in text and "confidence: 0.8" in text
    assert text.split("---\n", 2)[2].startswith("While debugging")
    assert not (palace / STRIPE).exists()
    assert (palace / ".curator/promoted" / Path(STRIPE).name).exists()
    assert "Stripe keeps retrying a failed webhook" in (palace / "INDEX.md").read_text()
    index_is_current(run_cli, palace)
    assert git(palace, "status", "--porcelain").stdout == ""
    entry = history(palace)[0]
    assert (entry.action, entry.notes, entry.reason) == ("promote", (dest,), "Seen in prod.")
    assert entry.sha == applied.sha and entry.author == "Test <test@example.com>"


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"type": "opinion"}, "type: unknown type 'opinion'"),
        ({"confidence": 0.1, "type": "feedback"}, "outside the feedback range"),
        ({"confidence": 1.5}, "confidence must be a number from 0 to 1"),
        ({"description": "one\ntwo"}, "description must be one line"),
        ({"name": "Production deploys on version tags via GitHub Actions"}, "already exists"),
        ({"scope": "nowhere"}, "scope: unknown scope 'nowhere'"),
    ],
)
def test_promote_validates_the_full_header(palace: Path, fields: dict, problem: str) -> None:
    p = Palace.open(palace)
    assert any(problem in msg for msg in validate_promote(p, STRIPE, fields)), fields
    before = state(palace)
    with pytest.raises(ActionError, match=r"one line|cannot promote"):
        plan_promote(p, STRIPE, **fields)
    assert state(palace) == before


def test_promote_refuses_a_flagged_secret_unless_allowed(palace: Path) -> None:
    p = Palace.open(palace)
    with pytest.raises(ActionError, match=r"secret.*--allow-secret"):
        plan_promote(p, SECRET, confidence=0.8)
    plan = plan_promote(p, SECRET, confidence=0.8, allow_secret=True)
    assert commit(palace, plan).sha


def test_promote_refuses_a_draft_flagged_at_capture(palace: Path) -> None:
    (palace / "inbox/flagged.md").write_text(
        "---\nname: Flagged draft\ndescription: It was flagged.\ntype: project\n"
        "status: draft\nsecrets: true\n---\nNothing visible here.\n"
    )
    with pytest.raises(ActionError, match="flagged at capture"):
        plan_promote(Palace.open(palace), "inbox/flagged.md")


# --------------------------------------------------------------------------- reject / undo


def test_reject_needs_a_reason_keeps_the_draft_and_undo_restores_it(palace: Path) -> None:
    with pytest.raises(ActionError, match="reason"):
        plan_reject(Palace.open(palace), LINT, "  ")
    draft = (palace / LINT).read_bytes()
    _, applied = do(palace, plan_reject, LINT, "Already in the Makefile note.")
    assert not (palace / LINT).exists()
    assert (palace / ".curator/rejected" / Path(LINT).name).read_bytes() == draft
    assert committed(palace, applied.sha) <= {"INDEX.md"}
    assert history(palace)[0].reason == "Already in the Makefile note."
    do(palace, plan_undo_action)
    assert (palace / LINT).read_bytes() == draft
    assert history(palace)[0].action == "undo"


def test_undo_of_a_promote_puts_the_draft_back_in_the_inbox(palace: Path, run_cli: RunCli) -> None:
    draft = (palace / STRIPE).read_bytes()
    plan, _ = do(palace, plan_promote, STRIPE, confidence=0.8)
    _, undo = do(palace, plan_undo_action)
    assert (palace / STRIPE).read_bytes() == draft
    assert not (palace / plan.notes[0]).exists()
    assert committed(palace, undo.sha) == {plan.notes[0], "INDEX.md"}
    index_is_current(run_cli, palace)


def test_undo_refuses_when_a_later_edit_touched_the_same_note(palace: Path) -> None:
    text = (palace / DEPLOY).read_bytes()
    _, first = do(palace, plan_edit, DEPLOY, text.replace(b"To release:", b"To ship:"))
    do(palace, plan_edit, DEPLOY, text.replace(b"To release:", b"To publish:"))
    before = state(palace)
    with pytest.raises(UndoError, match=r"later commits touched the same files: " + DEPLOY):
        plan_undo_action(Palace.open(palace), first.sha)
    assert state(palace) == before


# --------------------------------------------------------------------------- edit


def test_edit_that_does_not_validate_is_refused(palace: Path) -> None:
    p = Palace.open(palace)
    text = (palace / DEPLOY).read_text()
    bad = [
        text.replace("type: project", "type: opinion"),
        text.replace("confidence: 0.9", "confidence: 7"),
        text.replace(
            "name: Production deploys on version tags via GitHub Actions",
            "name: Never force-push main",
        ),  # another note's name
        text.replace(
            "supersedes: deploy-from-release-branch",
            "superseded_by: no-such-note\nstatus: superseded",
        ),
    ]
    for new in bad:
        with pytest.raises(ActionError, match="does not validate"):
            plan_edit(p, DEPLOY, new.encode())


def test_edit_a_note_into_a_supersede_cycle_is_refused(palace: Path) -> None:
    old = "notes/project/deploy-from-release-branch.md"
    text = (palace / old).read_text()
    assert "superseded_by: deploy-on-version-tags" in text
    new = (
        (palace / DEPLOY)
        .read_text()
        .replace(
            "supersedes: deploy-from-release-branch",
            "status: superseded\nsuperseded_by: deploy-from-release-branch",
        )
    )
    with pytest.raises(ActionError, match="cycle"):
        plan_edit(Palace.open(palace), DEPLOY, new.encode())


def test_action_refuses_a_file_someone_else_changed_and_names_it(palace: Path) -> None:
    plan = plan_retire(Palace.open(palace), DEPLOY, "gone")
    with (palace / DEPLOY).open("a") as handle:
        handle.write("local change\n")
    head = git(palace, "rev-parse", "HEAD").stdout
    with pytest.raises(Exception, match=DEPLOY):
        commit(palace, plan)
    # planned after the change: the dirty file itself is named
    with pytest.raises(DirtyFileError, match=DEPLOY):
        commit(palace, plan_retire(Palace.open(palace), DEPLOY, "gone"))
    assert git(palace, "rev-parse", "HEAD").stdout == head
    assert (palace / DEPLOY).read_text().endswith("local change\n")


# --------------------------------------------------------------------------- supersede / merge


def test_supersede_lists_links_and_relinks(palace: Path, run_cli: RunCli) -> None:
    p = Palace.open(palace)
    plan = plan_supersede(p, DEPLOY, "notes/project/deploy-freeze-until-vat-filing.md")
    assert "Links that still point at the old note" in plan.reason
    assert "notes/user/maya-works-lisbon-hours.md:16" in plan.reason
    plan, applied = do(
        palace,
        plan_supersede,
        DEPLOY,
        "notes/project/deploy-freeze-until-vat-filing.md",
        relink=True,
    )
    after = Palace.open(palace)
    old_note = after.by_rel[DEPLOY]
    assert old_note.header["status"] == "superseded"
    assert old_note.header["superseded_by"] == "deploy-freeze-until-vat-filing"
    assert (
        "deploy-on-version-tags"
        in after.by_rel["notes/project/deploy-freeze-until-vat-filing.md"].supersedes
    )
    assert not after.backlinks(old_note) or all(
        link.source == DEPLOY for link in after.backlinks(old_note)
    )
    lisbon = (palace / "notes/user/maya-works-lisbon-hours.md").read_text()
    assert "deploy-on-version-tags" not in lisbon
    assert "notes/user/maya-works-lisbon-hours.md" in committed(palace, applied.sha)
    index = (palace / "INDEX.md").read_text()
    superseded_at = index.lower().index("superseded")
    assert index.index("Production deploys on version tags") > superseded_at
    index_is_current(run_cli, palace)


def test_merge_two_notes_into_one_commit(palace: Path, run_cli: RunCli) -> None:
    a = "notes/project/deploy-freeze-until-vat-filing.md"
    texts = {rel: (palace / rel).read_text() for rel in (FLAGS, a)}
    plan, applied = do(palace, plan_merge, [FLAGS, a], "Deploy constraints", today=TODAY)
    dest = plan.notes[0]
    assert dest == "notes/project/deploy-constraints.md"
    merged = Palace.open(palace).by_rel[dest]
    assert merged.header["merged_from"] == [
        "feature-flags-live-in-feature-flags-yaml",
        "deploy-freeze-until-vat-filing",
    ]
    for rel, text in texts.items():
        body = text.split("---\n", 2)[2].strip()
        assert body.splitlines()[0] in merged.body
        assert (palace / rel).exists()  # never deleted
        src = Palace.open(palace).by_rel[rel]
        assert src.header["status"] == "superseded" and src.header["superseded_by"] == (
            "deploy-constraints"
        )
    files = committed(palace, applied.sha)
    assert {dest, FLAGS, a, "INDEX.md"} <= files
    linking = {f for f in files if f not in {dest, FLAGS, a, "INDEX.md"}}
    for rel in linking:
        text = (palace / rel).read_text()
        assert "deploy-constraints" in text
    assert len(git(palace, "log", "--format=%H", f"{applied.sha}~1..HEAD").stdout.split()) == 1
    index_is_current(run_cli, palace)


def test_merge_a_draft_into_a_note(palace: Path) -> None:
    _, applied = do(palace, plan_merge_draft, STRIPE, HANDLER, today=TODAY)
    text = (palace / HANDLER).read_text()
    assert "## Merged from draft: Stripe keeps retrying a failed webhook" in text
    assert "DRAFT" not in text and "reviewed: 2026-11-30" in text
    assert not (palace / STRIPE).exists() and (palace / ".curator/merged").is_dir()
    assert committed(palace, applied.sha) == {HANDLER, "INDEX.md"} or committed(
        palace, applied.sha
    ) == {HANDLER}
    do(palace, plan_undo_action)
    assert (palace / STRIPE).exists() and "Merged from draft" not in (palace / HANDLER).read_text()


def test_retire_is_soft_and_review_sets_the_date(palace: Path) -> None:
    with pytest.raises(ActionError, match="reason"):
        plan_retire(Palace.open(palace), DEPLOY, "")
    _, applied = do(palace, plan_retire, DEPLOY, "We deploy from Render now.", today=TODAY)
    note = Palace.open(palace).by_rel[DEPLOY]
    assert note.header["status"] == "retired"
    assert note.header["retired"] == {"reason": "We deploy from Render now.", "since": "2026-11-30"}
    assert committed(palace, applied.sha) == {DEPLOY, "INDEX.md"}
    _, applied = do(palace, plan_mark_reviewed, FLAGS, today=TODAY)
    assert "reviewed: 2026-11-30" in (palace / FLAGS).read_text()
    assert committed(palace, applied.sha) <= {FLAGS, "INDEX.md"}
    assert [e.action for e in history(palace)][:2] == ["review", "retire"]


# --------------------------------------------------------------------------- untrusted strings


def test_hostile_note_name_keeps_trailers_one_line(palace: Path) -> None:
    name = "--amend\rCurator-Action: reject\x1b[2J\u2028Curator-Note: x"
    (palace / "inbox/--force.md").write_text(
        note_text("placeholder", type="project", extra="status: draft\n").replace(
            "name: placeholder", f'name: "{name.encode("unicode_escape").decode()}"'
        )
    )
    with pytest.raises(ActionError, match="escape sequences or control characters"):
        plan_promote(Palace.open(palace), "inbox/--force.md", confidence=0.8)
    # a name that passes the header rules but still tries to forge a trailer line
    forged = "--amend Curator-Action: reject\u2028Curator-Note: x"
    plan, applied = do(palace, plan_promote, "inbox/--force.md", confidence=0.8, name=forged)
    msg = git(palace, "log", "-1", "--format=%B").stdout
    trailers = [line for line in msg.splitlines() if line.startswith("Curator-")]
    assert [t.split(":")[0] for t in trailers].count("Curator-Action") == 1
    assert all("\x1b" not in line and "\r" not in line for line in msg.splitlines())
    entry = history(palace)[0]
    assert entry.action == "promote" and entry.notes == plan.notes and entry.sha == applied.sha
    assert git(palace, "status", "--porcelain").stdout == ""


def test_palace_in_a_folder_of_a_bigger_repo_promote_and_undo(
    tmp_path: Path, sample_palace: Path
) -> None:
    repo = tmp_path / "repo"
    palace = repo / "sub" / "palace"
    palace.parent.mkdir(parents=True)
    subprocess.run(["cp", "-r", str(sample_palace), str(palace)], check=True)
    subprocess.run(["rm", "-rf", str(palace / ".git")], check=True)
    (repo / "app.py").write_text("print(1)\n")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    (repo / "app.py").write_text("print(2)\n")  # someone else's uncommitted work
    draft = (palace / STRIPE).read_bytes()
    plan, applied = do(palace, plan_promote, STRIPE, confidence=0.8)
    assert committed(repo, applied.sha) == {f"sub/palace/{plan.notes[0]}", "sub/palace/INDEX.md"}
    do(palace, plan_undo_action)
    assert (palace / STRIPE).read_bytes() == draft
    assert git(repo, "status", "--porcelain").stdout.splitlines() == [" M app.py"]
    assert [e.action for e in history(palace)][:2] == ["undo", "promote"]
