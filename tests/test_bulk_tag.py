"""The planners the app and the CLI share beyond one action each: bulk (several items, one
commit), tag, the merge with a reviewer's body, edit problems, and a commit's files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from layouthelpers import FIXTURES, adopt_copy
from palacehelpers import git, note_text

from curator.errors import CuratorError
from curator.model.layouts.claude_code import parse_index
from curator.model.palace import INDEX_NAME, Palace
from curator.writer.actions.bulk import plan_bulk
from curator.writer.actions.edit import edit_problems
from curator.writer.actions.merge import plan_merge_draft
from curator.writer.actions.promote import plan_promote
from curator.writer.actions.reject import plan_reject
from curator.writer.actions.tag import plan_tag
from curator.writer.capture import capture
from curator.writer.history import changed_files
from curator.writer.session import commit

DRAFT_EXTRA = "status: draft\ncreated: 2026-11-20\n"


def drafts(make_palace: Any, count: int) -> tuple[Path, list[str]]:
    rels = [f"inbox/2026-11-20-d{i}.md" for i in range(count)]
    root = make_palace(
        {rel: note_text(f"Draft {i}", extra=DRAFT_EXTRA) for i, rel in enumerate(rels)}
    )
    return root, rels


def test_bulk_reject_is_one_commit_with_index_once(make_palace: Any) -> None:
    root, rels = drafts(make_palace, 3)
    palace = Palace.open(root)
    plan = plan_bulk(palace, "reject", rels, lambda p, r: plan_reject(p, r, "noise"), "noise")
    assert plan.summary == "3 drafts" and sorted(plan.notes) == sorted(rels)
    assert [p for ch in plan.changes for p in ch.touched()].count(INDEX_NAME) <= 1
    before = git(root, "rev-list", "--count", "HEAD").stdout
    commit(root, plan, palace=palace)
    assert int(git(root, "rev-list", "--count", "HEAD").stdout) == int(before) + 1
    assert Palace.open(root, cache=False).drafts == []


def test_bulk_of_one_is_that_action(make_palace: Any) -> None:
    root, rels = drafts(make_palace, 1)
    palace = Palace.open(root)
    plan = plan_bulk(palace, "reject", rels, lambda p, r: plan_reject(p, r, "noise"), "noise")
    assert plan == plan_reject(palace, rels[0], "noise")


def test_bulk_promote_in_claude_code_edits_memory_md_once(tmp_path: Path) -> None:
    root = adopt_copy(FIXTURES / "claude-code/memory", tmp_path / "cc", "claude-code")
    made = [
        capture(root, type="project", name=f"Deploy {i}", body="Tuesdays.\n", description="d")
        for i in range(3)
    ]
    palace = Palace.open(root, cache=False)
    rels = [d.path for d in made]
    plan = plan_bulk(palace, "promote", rels, lambda p, r: plan_promote(p, r), "ok")
    memory = [ch for ch in plan.changes if "MEMORY.md" in ch.touched()]
    assert len(memory) == 1
    commit(root, plan, palace=palace)
    hrefs = [e.href for e in parse_index((root / "MEMORY.md").read_text())]
    assert all(rel in hrefs for rel in plan.notes if not rel.startswith("inbox/"))
    assert len(hrefs) == len(set(hrefs))


def test_tag_adds_one_tag_and_refuses_a_repeat(make_palace: Any) -> None:
    root = make_palace({"notes/a.md": note_text("Alpha", extra="tags: [one]\n")})
    palace = Palace.open(root)
    commit(root, plan_tag(palace, "notes/a.md", "two"), palace=palace)
    after = Palace.open(root, cache=False)
    assert after.by_rel["notes/a.md"].header["tags"] == ["one", "two"]
    with pytest.raises(CuratorError, match="already tagged 'two'"):
        plan_tag(after, "notes/a.md", "two")


def test_merge_takes_the_reviewers_body(make_palace: Any) -> None:
    root = make_palace(
        {
            "notes/a.md": note_text("Alpha", body="Old body.\n"),
            "inbox/2026-11-20-d.md": note_text("Draft", extra=DRAFT_EXTRA, body="New.\n"),
        }
    )
    palace = Palace.open(root)
    plan = plan_merge_draft(palace, "inbox/2026-11-20-d.md", "notes/a.md", body="Both, tidied.")
    commit(root, plan, palace=palace)
    note = Palace.open(root, cache=False).by_rel["notes/a.md"]
    assert note.body.strip() == "Both, tidied." and note.text.endswith("Both, tidied.\n")


def test_merge_scans_the_reviewers_edited_body(make_palace: Any) -> None:
    """The draft passed promote's scan; a secret pasted into the edited merge is refused too,
    while one the note already held (kept with --allow-secret) is not reported again."""
    held = "Old key: sk_live_FAKEKEY0EXAMPLE0NOTREAL0\n"
    root = make_palace(
        {
            "notes/a.md": note_text("Alpha", body=held),
            "inbox/2026-11-20-d.md": note_text("Draft", extra=DRAFT_EXTRA, body="New.\n"),
        }
    )
    palace = Palace.open(root)
    pasted = held + "AWS_ACCESS_KEY_ID=AKIAFAKEEXAMPLE00000\n"
    with pytest.raises(CuratorError, match=r"inbox/2026-11-20-d.md into notes/a.md.*aws"):
        plan_merge_draft(palace, "inbox/2026-11-20-d.md", "notes/a.md", body=pasted)
    plan = plan_merge_draft(palace, "inbox/2026-11-20-d.md", "notes/a.md", body=held + "New.")
    commit(root, plan, palace=palace)
    assert "New." in Palace.open(root, cache=False).by_rel["notes/a.md"].body


def test_edit_problems_names_what_would_not_validate(make_palace: Any) -> None:
    root = make_palace({"notes/a.md": note_text("Alpha"), "notes/b.md": note_text("Beta")})
    palace = Palace.open(root)
    good = (root / "notes/a.md").read_bytes().replace(b"Alpha", b"Alpha two")
    assert edit_problems(palace, "notes/a.md", good) == []
    untyped = (root / "notes/a.md").read_bytes().replace(b"type: project", b"type: [x")
    problems = edit_problems(palace, "notes/a.md", untyped)
    assert len(problems) == 1 and "notes/a.md" in problems[0]


def test_changed_files_are_palace_relative(tmp_path: Path) -> None:
    top = tmp_path / "repo"
    (top / "elsewhere").mkdir(parents=True)
    (top / "elsewhere/x.txt").write_text("x\n")
    git(top, "init", "-q")
    root = top / "memory"
    (root / "notes").mkdir(parents=True)
    (root / "notes/a.md").write_text(note_text("Alpha"))
    git(top, "add", "-A")
    git(top, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    sha = git(top, "rev-parse", "HEAD").stdout.strip()
    assert sorted(changed_files(root, sha)) == ["elsewhere/x.txt", "notes/a.md"]
    assert changed_files(root, "0" * 40) == []
