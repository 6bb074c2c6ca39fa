"""Each tool's folder opened where it is: it loads, checks without false findings, searches,
and is never rewritten by reading it. Real copies of the fixtures, real git, real LanceDB."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from layouthelpers import FIXTURES
from palacehelpers import RunCli, git_init_commit

from curator.model.check import run_checks
from curator.model.palace import Palace

TOOLS = {
    "obsidian": ("obsidian/vault", 7, set()),
    "claude-code": ("claude-code/memory", 4, {("reference_linear.md", "link.dangling")}),
    "basic-memory": ("basic-memory/project", 3, {("Coffee Brewing Methods.md", "link.forward")}),
}
QUERIES = {
    "obsidian": ("front matter", "Daily/2025-01-01.md"),
    "claude-code": ("mocked tests prod migration", "feedback_testing.md"),
    "basic-memory": ("floral Yirgacheffe", "coffee/origins.md"),
}


def adopt(tmp_path: Path, tool: str) -> Path:
    root = tmp_path / tool
    shutil.copytree(FIXTURES / TOOLS[tool][0], root)
    (root / "palace.toml").write_text(
        f'[palace]\nlayout = "{tool}"\n\n[index]\nembedder = "hash"\ndim = 64\n'
    )
    (root / ".gitignore").write_text("inbox/\n.curator/\n")
    git_init_commit(root)
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.parts and ".curator" not in p.parts
    }


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_opens_in_place_and_checks_without_false_findings(tmp_path: Path, tool: str) -> None:
    root = adopt(tmp_path, tool)
    before = snapshot(root)
    palace = Palace.open(root, cache=False)
    assert len(palace.notes) == TOOLS[tool][1]
    assert all(n.ok for n in palace.notes)
    findings = run_checks(palace)
    assert [f for f in findings if f.severity == "error"] == []
    assert {(f.path, f.code) for f in findings} == TOOLS[tool][2]  # the fixture's one on purpose
    assert snapshot(root) == before  # reading changed nothing


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_search_finds_notes_in_their_own_layout(tmp_path: Path, run_cli: RunCli, tool: str) -> None:
    root = adopt(tmp_path, tool)
    query, expected = QUERIES[tool]
    code, out, err = run_cli("--palace", root, "search", query, "--json")
    assert code == 0, err
    assert json.loads(out)["results"][0]["path"] == expected


def test_check_cli_exit_code_follows_the_layout(tmp_path: Path, run_cli: RunCli) -> None:
    root = adopt(tmp_path, "obsidian")
    assert run_cli("--palace", root, "check")[0] == 0
    (root / "Home.md").write_text("[[Nowhere]] and [[Projects/Alpha#No such heading]]\n")
    code, out, _ = run_cli("--palace", root, "check")
    assert code == 0  # unresolved links are normal in Obsidian (a click creates the note)
    assert "warning: link to 'Nowhere'" in out and "link.heading" in out
    (root / "Home.md").write_text("---\nname: [unclosed\n---\nbody\n")
    assert run_cli("--palace", root, "check")[0] == 1  # a header Obsidian cannot read


def test_claude_code_index_limits_are_checked_and_configurable(tmp_path: Path) -> None:
    root = adopt(tmp_path, "claude-code")
    index = (root / "MEMORY.md").read_text()
    (root / "MEMORY.md").write_text(index + "\n" * 200)
    codes = {f.code for f in run_checks(Palace.open(root, cache=False))}
    assert "memory-index.too-long" in codes
    toml = (
        (root / "palace.toml")
        .read_text()
        .replace("[palace]\n", "[palace]\nmemory_index_lines = 400\n")
    )
    (root / "palace.toml").write_text(toml)
    codes = {f.code for f in run_checks(Palace.open(root, cache=False))}
    assert "memory-index.too-long" not in codes
    (root / "user_role.md").unlink()
    found = {(f.path, f.code) for f in run_checks(Palace.open(root, cache=False))}
    assert ("MEMORY.md", "memory-index.dangling") in found


def test_unlisted_memory_is_reported_and_memory_md_links_are_inbound(tmp_path: Path) -> None:
    root = adopt(tmp_path, "claude-code")
    (root / "project_new.md").write_text(
        "---\nname: New\ndescription: not in MEMORY.md yet\ntype: project\n---\nBody.\n"
    )
    found = {(f.path, f.code) for f in run_checks(Palace.open(root, cache=False))}
    assert ("project_new.md", "memory-index.unlisted") in found
    assert not any(code == "note.orphan" for _, code in found)


def test_a_vaults_rooms_are_folders_and_confidence_is_the_layouts_default(tmp_path: Path) -> None:
    root = adopt(tmp_path, "obsidian")
    palace = Palace.open(root, cache=False)
    # no note has a palace type: the rooms are the vault's folders, none is Unfiled
    assert [room.spec.room for room in palace.rooms()] == [
        "obsidian",
        "Archive",
        "Daily",
        "Projects",
    ]
    assert palace.unfiled() == []
    home = palace.by_rel["Home.md"]
    assert palace.confidence(home) == 0.75  # not stated: the layout's default, over the floor
    from curator.model.index_md import render_index

    index = render_index(palace, None)
    assert "## Unfiled" not in index and "## Projects (Projects/) — 3" in index


def test_pack_keeps_notes_that_state_no_confidence(tmp_path: Path, run_cli: RunCli) -> None:
    root = adopt(tmp_path, "obsidian")
    code, out, err = run_cli("--palace", root, "pack", "alpha importer sqlite")
    assert code == 0, err
    assert "source: Projects/Alpha.md" in out  # 0.75, the layout's default, not 0.00


def test_openmemory_export_opens_checks_searches_and_promotes(
    tmp_path: Path, run_cli: RunCli
) -> None:
    from test_interop import openmemory_zip

    from curator.writer.actions.promote import plan_promote
    from curator.writer.session import commit

    root = tmp_path / "om"
    assert run_cli("init", root)[0] == 0
    toml = (root / "palace.toml").read_text().replace('embedder = "wordllama"', 'embedder = "hash"')
    (root / "palace.toml").write_text(toml)
    archive = openmemory_zip(tmp_path)
    code, _, err = run_cli("--palace", root, "import", "openmemory", archive, "--type", "project")
    assert code == 0, err
    palace = Palace.open(root, cache=False)
    assert len(palace.drafts) == 4 and not palace.notes
    assert [f for f in run_checks(palace) if f.severity == "error"] == []  # drafts: warnings
    code, out, _ = run_cli("--palace", root, "search", "dark mode editor", "--drafts", "--json")
    assert code == 0
    dark = json.loads(out)["results"][0]
    assert dark["kind"] == "draft" and dark["name"].startswith("Prefers dark mode")
    plan = plan_promote(palace, dark["path"], description="Dark mode everywhere", confidence=0.9)
    commit(root, plan, palace=palace)
    promoted = Palace.open(root, cache=False).by_rel[plan.notes[0]]
    assert promoted.rel.startswith("notes/user/") and promoted.header["source"]["store"] == (
        "openmemory"
    )
    assert promoted.header["created"] == "2025-03-04T10:15:00Z"


def test_changing_the_layout_never_reuses_notes_read_the_other_way(tmp_path: Path) -> None:
    import gc
    import os

    root = adopt(tmp_path, "claude-code")
    first = Palace.open(root)
    assert first.by_rel["feedback_testing.md"].header["type"] == "feedback"  # metadata.type
    later = os.stat(root / "user_role.md").st_mtime_ns + 5_000_000_000
    os.utime(root / "user_role.md", ns=(later, later))
    second = Palace.open(root)  # reuses the live notes, writes the disk cache
    assert second.by_rel["feedback_testing.md"].header["type"] == "feedback"
    del first, second
    gc.collect()
    toml = (root / "palace.toml").read_text().replace('"claude-code"', '"folder"')
    (root / "palace.toml").write_text(toml)
    plain = Palace.open(root)
    assert "type" not in plain.by_rel["feedback_testing.md"].header  # the folder layout's view


def test_a_live_palace_read_another_way_is_not_reused(tmp_path: Path) -> None:
    root = adopt(tmp_path, "claude-code")
    alive = Palace.open(root)  # kept alive, as the app keeps its palace
    assert alive.by_rel["feedback_testing.md"].header["type"] == "feedback"
    toml = (root / "palace.toml").read_text().replace('"claude-code"', '"folder"')
    (root / "palace.toml").write_text(toml)
    assert "type" not in Palace.open(root).by_rel["feedback_testing.md"].header
