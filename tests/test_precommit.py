"""The repository's .pre-commit-hooks.yaml, installed with pre-commit into a palace's repository.

The hooks file is committed into a scratch hooks repository (as a tag of curator would hold
it), a palace's repository names it in .pre-commit-config.yaml, `pre-commit install` writes
the git hook, and real `git commit`s run curator's check: refused on a broken link, accepted
once it is fixed. All offline: the hooks use the `curator` on PATH (language: system).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from palacehelpers import MakePalace, git, note_text

from curator.model.index_md import render_index
from curator.model.palace import Palace

REPO = Path(__file__).parent.parent
HOOKS = REPO / ".pre-commit-hooks.yaml"
BIN = Path(sys.executable).parent
PRE_COMMIT = BIN / "pre-commit"

pytestmark = pytest.mark.skipif(not PRE_COMMIT.exists(), reason="pre-commit is not installed")


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")
    return env


def _hooks_repo(tmp_path: Path) -> tuple[Path, str]:
    repo = tmp_path / "curator-hooks"
    repo.mkdir()
    shutil.copy(HOOKS, repo / ".pre-commit-hooks.yaml")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "hooks")
    return repo, git(repo, "rev-parse", "HEAD").stdout.strip()


def _commit(root: Path, env: dict[str, str], message: str) -> subprocess.CompletedProcess[str]:
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
    return subprocess.run(
        ["git", "commit", "-q", "-m", message],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # git hands the hook's output to stderr
        text=True,
    )


def test_hooks_file_declares_both_ids() -> None:
    hooks = yaml.safe_load(HOOKS.read_text())
    assert [h["id"] for h in hooks] == ["curator-check", "curator-index"]
    assert all(h["pass_filenames"] is False and h["entry"].startswith("curator ") for h in hooks)


def test_installed_hooks_refuse_a_broken_palace_and_pass_a_good_one(
    make_palace: MakePalace, tmp_path: Path
) -> None:
    root = make_palace(
        {
            "notes/project/a.md": note_text("A", body="See [[b]].\n"),
            "notes/project/b.md": note_text("B", body="See [[a]].\n"),
        }
    )
    (root / "INDEX.md").write_text(render_index(Palace.open(root, cache=False), None))
    (root / ".gitignore").write_text("inbox/\n.curator/\n")
    hooks, rev = _hooks_repo(tmp_path)
    ids = [{"id": "curator-check"}, {"id": "curator-index"}]
    config = {"repos": [{"repo": str(hooks), "rev": rev, "hooks": ids}]}
    (root / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    env = _env(tmp_path)
    installed = subprocess.run(
        [str(PRE_COMMIT), "install"], cwd=root, env=env, capture_output=True, text=True
    )
    assert installed.returncode == 0, installed.stderr
    assert (root / ".git" / "hooks" / "pre-commit").exists()

    good = _commit(root, env, "good palace")
    assert good.returncode == 0, good.stdout

    (root / "notes/project/a.md").write_text(note_text("A", body="See [[missing-note]].\n"))
    broken = _commit(root, env, "broken link")
    assert broken.returncode != 0
    assert "curator check" in broken.stdout and "missing-note" in broken.stdout
    assert "Failed" in broken.stdout

    (root / "notes/project/a.md").write_text(note_text("A", body="See [[b]].\n"))
    (root / "notes/project/c.md").write_text(note_text("C", body="See [[a]].\n"))
    stale_index = _commit(root, env, "a note INDEX.md does not list")
    assert stale_index.returncode != 0
    assert "INDEX.md is out of date" in stale_index.stdout

    (root / "notes/project/b.md").write_text(note_text("B", body="See [[a]] and [[c]].\n"))
    (root / "INDEX.md").write_text(render_index(Palace.open(root, cache=False), None))
    fixed = _commit(root, env, "index regenerated")
    assert fixed.returncode == 0, fixed.stdout
    log = git(root, "log", "--format=%s").stdout.split("\n")
    assert log[:2] == ["index regenerated", "good palace"]
