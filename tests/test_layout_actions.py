"""Curation in another tool's layout: promote writes a memory its tool reads (format, file
name, its index), supersede/retire write fields it can hold, and nothing else changes."""

from __future__ import annotations

from pathlib import Path

import frontmatter
import pytest
from layouthelpers import FIXTURES, adopt_copy
from palacehelpers import RunCli, git

from curator.model.check import run_checks
from curator.model.layouts.claude_code import parse_index
from curator.model.palace import Palace
from curator.writer.actions.promote import plan_promote
from curator.writer.actions.retire import plan_retire
from curator.writer.actions.supersede import plan_supersede
from curator.writer.capture import capture
from curator.writer.session import commit

TOOLS = {
    "claude-code": "claude-code/memory",
    "obsidian": "obsidian/vault",
    "basic-memory": "basic-memory/project",
}
BODY = "Deploys go out on Tuesdays after the 10:00 standup.\n\nSee [[Meeting]] for the agenda.\n"


def adopt(tmp_path: Path, tool: str) -> Path:
    return adopt_copy(FIXTURES / TOOLS[tool], tmp_path / tool, tool)


def promote(root: Path) -> str:
    draft = capture(root, type="project", name="Deploy day", body=BODY, description="Tuesdays")
    palace = Palace.open(root, cache=False)
    plan = plan_promote(palace, draft.path, confidence=0.8)
    commit(root, plan, palace=palace)
    return next(rel for rel in plan.notes)


def changed(root: Path) -> list[str]:
    return sorted(git(root, "show", "--name-only", "--format=", "HEAD").stdout.splitlines())


def test_claude_code_promote_writes_its_format_and_memory_md(tmp_path: Path) -> None:
    root = adopt(tmp_path, "claude-code")
    rel = promote(root)
    assert rel == "project_deploy_day.md"  # Claude Code's own naming, flat folder
    post = frontmatter.load(root / rel)
    assert (post["name"], post["description"], post["type"]) == (
        "Deploy day",
        "Tuesdays",
        "project",
    )
    assert set(post.metadata) == {"name", "description", "type", "curator"}  # ours nested
    assert post["curator"]["confidence"] == 0.8 and "created" in post["curator"]
    assert "DRAFT" not in post.content and "Deploys go out on Tuesdays" in post.content
    entries = {e.href: e for e in parse_index((root / "MEMORY.md").read_text())}
    assert entries[rel].title == "Deploy day" and entries[rel].hook == "Tuesdays"
    assert len(entries) == 5  # the four it had, in their order, plus the new one
    assert [e.href for e in parse_index((root / "MEMORY.md").read_text())][:4] == [
        "user_role.md",
        "feedback_testing.md",
        "project_release_freeze.md",
        "reference_linear.md",
    ]
    assert "INDEX.md" not in changed(root)  # the tool's index, not curator's
    palace = Palace.open(root, cache=False)
    assert [f for f in run_checks(palace) if f.severity == "error"] == []


def test_claude_code_supersede_and_retire_nest_what_it_has_no_field_for(tmp_path: Path) -> None:
    root = adopt(tmp_path, "claude-code")
    rel = promote(root)
    palace = Palace.open(root, cache=False)
    commit(root, plan_supersede(palace, "project_release_freeze.md", rel))
    old = frontmatter.load(root / "project_release_freeze.md")
    assert old["type"] == "project" and "status" not in old.metadata  # Claude Code's fields
    assert old["curator"] == {"status": "superseded", "superseded_by": "project_deploy_day"}
    listed = {e.href for e in parse_index((root / "MEMORY.md").read_text())}
    assert "project_release_freeze.md" not in listed  # superseded: Claude Code stops loading it
    palace = Palace.open(root, cache=False)
    assert palace.by_rel["project_release_freeze.md"].superseded
    assert palace.successor(palace.by_rel["project_release_freeze.md"]).rel == rel
    commit(root, plan_retire(palace, "reference_linear.md", "tracker moved"))
    retired = frontmatter.load(root / "reference_linear.md")
    assert retired["curator"]["status"] == "retired"
    assert retired["curator"]["retired"]["reason"] == "tracker moved"
    findings = run_checks(Palace.open(root, cache=False))
    assert [f for f in findings if f.severity == "error"] == []
    assert not [f for f in findings if f.code == "memory-index.unlisted"]


def test_obsidian_promote_names_the_file_by_its_title(tmp_path: Path) -> None:
    root = adopt(tmp_path, "obsidian")
    rel = promote(root)
    assert rel == "Deploy day.md"  # at the vault root, a file name [[Deploy day]] reaches
    post = frontmatter.load(root / rel)
    assert post["type"] == "project" and post["description"] == "Tuesdays"
    assert changed(root) == [rel]  # no INDEX.md written into the vault, nothing else touched
    palace = Palace.open(root, cache=False)
    assert palace.resolve(rel, palace.by_rel[rel].links[0]) == "Projects/Meeting.md"
    assert [f for f in run_checks(palace) if f.severity == "error"] == []


def test_obsidian_retire_of_a_note_without_front_matter_adds_only_the_fields(
    tmp_path: Path,
) -> None:
    root = adopt(tmp_path, "obsidian")
    before = (root / "Daily/2025-01-01.md").read_bytes()
    palace = Palace.open(root, cache=False)
    commit(root, plan_retire(palace, "Daily/2025-01-01.md", "old daily"))
    after = (root / "Daily/2025-01-01.md").read_bytes()
    assert after.endswith(before)  # the text below the new header, byte for byte
    # curator's own fields go under `curator:`; a top-level status is the vault's property
    assert frontmatter.loads(after.decode())["curator"]["status"] == "retired"


def test_basic_memory_promote_has_title_and_permalink(tmp_path: Path) -> None:
    root = adopt(tmp_path, "basic-memory")
    rel = promote(root)
    assert rel == "Deploy day.md"
    post = frontmatter.load(root / rel)
    assert post["title"] == "Deploy day" and post["permalink"] == "deploy-day"
    assert "name" not in post.metadata  # basic-memory's title is the name
    palace = Palace.open(root, cache=False)
    assert palace.by_rel[rel].name == "Deploy day"
    assert [f for f in run_checks(palace) if f.severity == "error"] == []


def test_memory_md_is_never_rebuilt_empty(tmp_path: Path) -> None:
    root = adopt(tmp_path, "claude-code")
    for path in root.glob("*_*.md"):
        path.unlink()
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "memories gone")
    from curator.errors import CuratorError
    from curator.writer.actions.index import plan_index

    with pytest.raises(CuratorError, match="refusing to empty"):
        plan_index(Palace.open(root, cache=False))
    assert len(parse_index((root / "MEMORY.md").read_text())) == 4


def test_curator_index_keeps_memory_md_and_leaves_vaults_alone(
    tmp_path: Path, run_cli: RunCli
) -> None:
    root = adopt(tmp_path, "claude-code")
    assert run_cli("--palace", root, "index", "--check")[0] == 0  # MEMORY.md is current
    (root / "project_new.md").write_text(
        "---\nname: New thing\ndescription: added by hand\ntype: project\n---\nBody.\n"
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a memory written by hand")
    assert run_cli("--palace", root, "index", "--check")[0] == 1
    code, _, err = run_cli("--palace", root, "index", "--yes")
    assert code == 0, err
    assert "- [New thing](project_new.md) — added by hand" in (root / "MEMORY.md").read_text()
    assert changed(root) == ["MEMORY.md"] and not (root / "INDEX.md").exists()
    assert run_cli("--palace", root, "index", "--check")[0] == 0
    vault = adopt(tmp_path, "obsidian")
    assert run_cli("--palace", vault, "index", "--check")[0] == 0  # no INDEX.md asked for yet


def test_merge_writes_the_new_note_the_layouts_way(tmp_path: Path) -> None:
    from curator.writer.actions.merge import plan_merge

    root = adopt(tmp_path, "claude-code")
    palace = Palace.open(root, cache=False)
    plan = plan_merge(
        palace,
        ["project_release_freeze.md", "reference_linear.md"],
        "Release and tracker",
        type="project",
        description="the freeze and where its bugs go",
    )
    commit(root, plan, palace=palace)
    merged = frontmatter.load(root / "project_release_and_tracker.md")
    assert merged["type"] == "project" and "merged_from" in merged["curator"]
    assert frontmatter.load(root / "reference_linear.md")["curator"]["status"] == "superseded"
    listed = [e.href for e in parse_index((root / "MEMORY.md").read_text())]
    assert "project_release_and_tracker.md" in listed and "reference_linear.md" not in listed
    findings = run_checks(Palace.open(root, cache=False))
    assert [f for f in findings if f.severity == "error"] == []
