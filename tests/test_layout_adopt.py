"""`curator init --adopt PATH`: a memory folder becomes a palace where it is."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from layouthelpers import FIXTURES
from palacehelpers import RunCli, git, git_init_commit

TOOLS = {"claude-code": "claude-code/memory", "obsidian": "obsidian/vault",
         "basic-memory": "basic-memory/project"}  # fmt: skip


def files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(root).parts[:1]
        and ".curator" not in p.parts
    }  # fmt: skip


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_adopt_detects_the_layout_and_commits_once_without_touching_notes(
    tmp_path: Path, run_cli: RunCli, tool: str
) -> None:
    root = tmp_path / "memory"
    shutil.copytree(FIXTURES / TOOLS[tool], root)
    before = files(root)
    code, out, err = run_cli("init", "--adopt", root, "--yes", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["layout"] == tool and result["new_repository"] is True
    assert result["unread"] == 0 and result["read"] >= 3
    after = files(root)
    assert {k: v for k, v in after.items() if k in before} == before  # no note rewritten
    assert set(after) - set(before) == {"palace.toml", ".gitignore"}
    assert f'layout = "{tool}"' in (root / "palace.toml").read_text()
    assert {"/inbox/", "/.curator/"} <= set((root / ".gitignore").read_text().splitlines())
    assert git(root, "rev-list", "--count", "HEAD").stdout.strip() == "1"
    assert git(root, "status", "--porcelain").stdout == ""  # everything is in that commit
    assert run_cli("--palace", root, "check")[0] == 0


def test_adopt_in_a_repository_commits_only_the_two_files(tmp_path: Path, run_cli: RunCli) -> None:
    root = tmp_path / "memory"
    shutil.copytree(FIXTURES / "claude-code/memory", root)
    git_init_commit(root)
    code, _, err = run_cli("init", "--adopt", root, "--yes")
    assert code == 0, err
    changed = git(root, "show", "--name-only", "--format=", "HEAD").stdout.splitlines()
    assert sorted(changed) == [".gitignore", "palace.toml"]


def test_dry_run_shows_the_plan_and_writes_nothing(tmp_path: Path, run_cli: RunCli) -> None:
    root = tmp_path / "vault"
    shutil.copytree(FIXTURES / "obsidian/vault", root)
    before = files(root)
    code, out, _ = run_cli("init", "--adopt", root, "--dry-run")
    assert code == 0 and "as an obsidian palace" in out and "write  palace.toml" in out
    assert files(root) == before and not (root / ".git").exists()


def test_dot_folders_are_not_part_of_the_vault(tmp_path: Path, run_cli: RunCli) -> None:
    root = tmp_path / "vault"
    shutil.copytree(FIXTURES / "obsidian/vault", root)
    for folder in (".trash", ".github"):
        (root / folder).mkdir()
        (root / folder / "old.md").write_text("[[Nowhere]]\n")
    code, out, _ = run_cli("init", "--adopt", root, "--dry-run")
    assert code == 0 and "outside it" not in out and "7 markdown file(s)" in out


def test_plain_init_over_loose_markdown_does_not_report_success(
    tmp_path: Path, run_cli: RunCli
) -> None:
    root = tmp_path / "folder"
    root.mkdir()
    (root / "ideas.md").write_text("# ideas\n")
    code, out, err = run_cli("init", root, "--json")
    assert code == 1 and json.loads(out)["ok"] is False and json.loads(out)["unread"] == 1
    assert "1 markdown file(s) outside notes/" in err and "--adopt" in err


def test_adopt_refuses_a_palace_and_asks_without_a_terminal(
    tmp_path: Path, run_cli: RunCli
) -> None:
    root = tmp_path / "memory"
    shutil.copytree(FIXTURES / "claude-code/memory", root)
    code, _, err = run_cli("init", "--adopt", root)  # stdin is not a terminal under pytest
    assert code == 2 and "--yes" in err and not (root / "palace.toml").exists()
    assert run_cli("init", "--adopt", root, "--yes")[0] == 0
    code, _, err = run_cli("init", "--adopt", root, "--yes")
    assert code == 2 and "already" in err
    subprocess.run(["git", "-C", str(root), "status"], check=True, capture_output=True)


def test_adopt_in_a_repository_names_notes_git_does_not_track(
    tmp_path: Path, run_cli: RunCli
) -> None:
    root = tmp_path / "memory"
    shutil.copytree(FIXTURES / "claude-code/memory", root)
    git(root, "init", "-q")
    git(root, "add", "MEMORY.md", "user_role.md")
    git(root, "commit", "-q", "-m", "two of them")
    code, out, err = run_cli("init", "--adopt", root, "--yes", "--json")
    assert code == 0 and json.loads(out)["untracked"] == 3
    assert "3 note(s) are not in git yet" in err


def test_adopt_goes_ahead_past_gits_housekeeping_locks_only(
    tmp_path: Path, run_cli: RunCli
) -> None:
    """git's background auto-gc leaves `.git/gc.log.lock`, and git itself commits through it
    (as through the commit-graph's lock); index.lock or a branch's ref lock still stop adopt."""
    root = tmp_path / "memory"
    shutil.copytree(FIXTURES / "claude-code/memory", root)
    git_init_commit(root)
    (root / ".git/gc.log.lock").write_text("")
    (root / ".git/objects/info").mkdir(parents=True, exist_ok=True)
    (root / ".git/objects/info/commit-graph.lock").write_text("")
    git(root, "commit", "--allow-empty", "-qm", "git commits past them")
    branch = git(root, "symbolic-ref", "--short", "HEAD").stdout.strip()
    blocker = root / ".git/refs/heads" / f"{branch}.lock"
    blocker.write_text("")
    code, _, err = run_cli("init", "--adopt", root, "--yes")
    assert code == 2 and f"{branch}.lock" in err
    blocker.unlink()
    code, _, err = run_cli("init", "--adopt", root, "--yes")
    assert code == 0, err
    assert (root / ".git/gc.log.lock").exists()  # git's own file: left where it is
