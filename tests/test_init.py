"""`curator init`: a new palace as one commit, both taxonomies, never over an existing one."""

from __future__ import annotations

import subprocess
from pathlib import Path

from palacehelpers import RunCli

from curator.model.check import run_checks
from curator.model.palace import Palace


def _log(root: Path) -> list[str]:
    out = subprocess.run(["git", "log", "--format=%s"], cwd=root, capture_output=True, text=True)
    return out.stdout.splitlines()


def test_init_creates_a_clean_palace_in_one_commit(tmp_path: Path, run_cli: RunCli) -> None:
    root = tmp_path / "memory"
    code, out, _ = run_cli("init", root)
    assert code == 0, out
    for rel in ("palace.toml", "INDEX.md", ".gitignore", "notes", "inbox"):
        assert (root / rel).exists(), rel
    assert {"/inbox/", "/.curator/"} <= set((root / ".gitignore").read_text().splitlines())
    assert _log(root) == ["init: memory"]
    tracked = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True).stdout
    assert "palace.toml" in tracked and "INDEX.md" in tracked
    palace = Palace.open(root)
    assert list(palace.config.types) == ["user", "feedback", "project", "reference"]
    assert [f for f in run_checks(palace) if f.severity == "error"] == []
    # the palace is found from inside it, the way git finds .git
    code, out, _ = run_cli("index", "--check", cwd=root / "notes")
    assert code == 0, out


def test_init_five_types(tmp_path: Path, run_cli: RunCli) -> None:
    code, _, _ = run_cli("init", tmp_path / "p", "--taxonomy", "five-types")
    assert code == 0
    config = Palace.open(tmp_path / "p").config
    assert list(config.types) == ["principle", "semantic", "procedural", "episodic", "reflective"]
    assert config.types["procedural"].confidence == (0.6, 0.9)
    assert config.types["episodic"].confidence == (1.0, 1.0)


def test_init_refuses_an_existing_palace(tmp_path: Path, run_cli: RunCli) -> None:
    assert run_cli("init", tmp_path / "p")[0] == 0
    before = (tmp_path / "p" / "palace.toml").read_bytes()
    code, _, err = run_cli("init", tmp_path / "p")
    assert code == 2
    assert "already" in err
    assert (tmp_path / "p" / "palace.toml").read_bytes() == before


def test_init_inside_an_existing_repository_commits_there(tmp_path: Path, run_cli: RunCli) -> None:
    repo = tmp_path / "project"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    (repo / "app.py").write_text("print('hi')\n")
    subprocess.run(["git", "add", "app.py"], cwd=repo, check=True)
    assert run_cli("init", repo / "memory")[0] == 0
    assert not (repo / "memory" / ".git").exists()
    assert _log(repo) == ["init: memory"]
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True
    )
    assert "A  app.py" in status.stdout  # the user's staged file was not swept into the commit
