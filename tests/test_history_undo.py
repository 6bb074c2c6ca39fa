"""History read back from Curator-* trailers; undo of writes, rejects and undos; refusals."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from palacehelpers import reject_plan

from curator.writer.actions.undo import plan_undo
from curator.writer.apply import apply_plan
from curator.writer.history import UndoError, history
from curator.writer.plan import Delete, Move, Plan, Write


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def palace(tmp_path: Path) -> Path:
    root = tmp_path / "palace"
    files = {
        ".gitignore": "inbox/\n.curator/\n",
        "notes/a.md": "alpha\n",
        "notes/b.md": "beta\n",
        "INDEX.md": "- a\n- b\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    (root / "inbox").mkdir()
    (root / "inbox/d.md").write_text("draft d\n")
    return root


def promote(root: Path) -> str:
    plan = Plan(
        "promote",
        ("notes/d.md",),
        "Checked with the user.",
        "D is a rule",
        (
            Move.from_disk(root, "inbox/d.md", "notes/d.md", b"rule d\n"),
            Write.from_disk(root, "INDEX.md", b"- a\n- b\n- d\n"),
        ),
        root=root,
    )
    return apply_plan(root, plan).sha


def edit_a(root: Path, text: bytes, index: bytes | None = None) -> str:
    changes: list[Write] = [Write.from_disk(root, "notes/a.md", text)]
    if index is not None:
        changes.append(Write.from_disk(root, "INDEX.md", index))
    plan = Plan("supersede", ("notes/a.md",), "newer facts", "A changed", tuple(changes), root=root)
    return apply_plan(root, plan).sha


def reject(root: Path) -> str:
    return apply_plan(root, reject_plan(root, "duplicate of a")).sha


def test_history_lists_curator_actions_newest_first(palace: Path) -> None:
    assert history(palace) == []
    sha1 = promote(palace)
    (palace / "unrelated.txt").write_text("x\n")
    git(palace, "add", "unrelated.txt")
    git(palace, "commit", "-q", "-m", "a person's own commit")
    sha2 = edit_a(palace, b"alpha 2\n")
    entries = history(palace)
    assert [e.sha for e in entries] == [sha2, sha1]
    e = entries[1]
    assert (e.action, e.notes, e.reason, e.subject) == (
        "promote",
        ("notes/d.md",),
        "Checked with the user.",
        "promote: D is a rule",
    )
    assert e.author == "Test <test@example.com>"
    assert e.date.tzinfo is not None
    assert e.undoes is None and e.restores == ()
    assert [x.sha for x in history(palace, limit=1)] == [sha2]


def test_undo_of_a_write_restores_the_files(palace: Path) -> None:
    before = {p: (palace / p).read_bytes() for p in ("notes/a.md",)}
    sha = promote(palace)
    plan = plan_undo(palace)  # the last action by default
    diff = plan.diff()
    assert "--- a/notes/d.md\n+++ /dev/null\n" in diff
    undo = apply_plan(palace, plan)
    assert not (palace / "notes/d.md").exists()
    assert {p: (palace / p).read_bytes() for p in before} == before
    assert b"curator:generated" in (palace / "INDEX.md").read_bytes()  # derived: rendered again
    last = history(palace, limit=1)[0]
    assert last.action == "undo" and last.undoes == sha and last.sha == undo.sha
    assert last.notes == ("notes/d.md",)
    assert last.subject == "undo: promote: D is a rule"
    body = git(palace, "log", "-1", "--format=%B")
    assert "Curator-Action: undo\n" in body and f"Curator-Undo: {sha}\n" in body
    # This promote moved its draft without a Curator-Restore trailer, so only git's files come
    # back; a promote planner that wants undo to bring the draft back keeps a copy under
    # .curator/ and says so in a Curator-Restore trailer (see test_undo_of_a_reject...).
    assert git(palace, "status", "--porcelain") == ""


def test_undo_of_a_reject_restores_the_draft(palace: Path) -> None:
    sha = reject(palace)
    assert not (palace / "inbox/d.md").exists()
    applied = apply_plan(palace, plan_undo(palace, sha[:8]))
    assert (palace / "inbox/d.md").read_text() == "draft d\n"
    assert not (palace / ".curator/rejected/d.md").exists()
    entry = history(palace, limit=1)[0]
    assert entry.sha == applied.sha and entry.undoes == sha
    assert entry.restores == ((".curator/rejected/d.md", "inbox/d.md"),)
    # undoing the undo rejects the draft again
    apply_plan(palace, plan_undo(palace))
    assert not (palace / "inbox/d.md").exists()
    assert (palace / ".curator/rejected/d.md").read_text() == "draft d\n"


def test_undo_refuses_when_a_later_commit_touched_the_same_file(palace: Path) -> None:
    first = edit_a(palace, b"alpha 2\n")
    second = edit_a(palace, b"alpha 3\n")
    with pytest.raises(UndoError) as info:
        plan_undo(palace, first)
    msg = str(info.value)
    assert "notes/a.md" in msg and second[:7] in msg and "supersede: A changed" in msg
    # the latest one can still be undone, then the first
    apply_plan(palace, plan_undo(palace, second))
    assert (palace / "notes/a.md").read_text() == "alpha 2\n"
    with pytest.raises(UndoError, match=r"notes/a\.md"):
        plan_undo(palace, first)  # the undo commit itself touched notes/a.md later


def test_undo_of_an_undo(palace: Path) -> None:
    edit_a(palace, b"alpha 2\n")
    apply_plan(palace, plan_undo(palace))
    assert (palace / "notes/a.md").read_text() == "alpha\n"
    apply_plan(palace, plan_undo(palace))
    assert (palace / "notes/a.md").read_text() == "alpha 2\n"
    assert [e.action for e in history(palace)] == ["undo", "undo", "supersede"]


def test_undo_regenerates_derived_index_instead_of_blocking(palace: Path) -> None:
    first = edit_a(palace, b"alpha 2\n", index=b"- a (2)\n- b\n")
    plan = Plan(
        "retire",
        ("notes/b.md",),
        "obsolete",
        "B",
        (
            Delete.from_disk(palace, "notes/b.md"),
            Write.from_disk(palace, "INDEX.md", b"- a (2)\n"),
        ),
        root=palace,
    )
    apply_plan(palace, plan)  # a later action changed INDEX.md too: it does not block
    applied = apply_plan(palace, plan_undo(palace, first))
    assert (palace / "notes/a.md").read_text() == "alpha\n"
    index = (palace / "INDEX.md").read_text()
    generated = index.split("curator:generated", 1)[1]  # rendered for the palace, not reverted
    assert "notes/a.md" in generated and "notes/b.md" not in generated
    assert set(git(palace, "show", "--name-only", "--format=", applied.sha).split()) == {
        "notes/a.md",
        "INDEX.md",
    }


def test_undo_refusals(palace: Path) -> None:
    with pytest.raises(UndoError, match="no curator action"):
        plan_undo(palace)
    head = git(palace, "rev-parse", "HEAD").strip()
    with pytest.raises(UndoError, match="not a curator action"):
        plan_undo(palace, head)
    for bad in ("--all", "HEAD", "main~1", "zz12"):
        with pytest.raises(UndoError, match="not a commit id"):
            plan_undo(palace, bad)
    with pytest.raises(UndoError, match="no commit"):
        plan_undo(palace, "deadbeef")
    sha = reject(palace)
    (palace / "inbox/d.md").write_text("a new draft with the same name\n")
    with pytest.raises(UndoError, match=r"inbox/d\.md exists"):
        plan_undo(palace, sha)
