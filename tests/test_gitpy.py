"""GitPython in the writer (issue 32): discovery in-process agrees with git's own, the remote's
fetch and push hand git's progress on, and capture and the hooks never import GitPython."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from palacehelpers import RunCli, git, git_init_commit
from synchelpers import make_team, promote_new

from curator.writer import gitpy
from curator.writer.git import NotARepositoryError, discover_cli, discover_with_head
from curator.writer.sync import sync


def _cli(root: Path) -> tuple[str, str, str, str | None]:
    repo, head = discover_cli(root)
    return str(repo.top), str(repo.git_dir), repo.prefix, head


def test_gitpython_discovery_agrees_with_git_rev_parse(tmp_path: Path) -> None:
    """Palace at the top, in a folder (a name with a newline, spaces, non-ASCII), through a
    symlink, on an unborn branch, with packed refs, and in a linked worktree."""
    top = tmp_path / "repo"
    odd = top / "a b\nc" / "pålace"
    odd.mkdir(parents=True)
    (odd / "x.md").write_text("x\n")
    git(top, "init", "-q", "-b", "main")
    unborn = [top, odd]
    for root in unborn:
        assert gitpy.work_tree(root) == _cli(root), root
        assert gitpy.work_tree(root)[3] is None  # type: ignore[index]
    git_init_commit(top)
    link = tmp_path / "link"
    link.symlink_to(odd, target_is_directory=True)
    worktree = tmp_path / "wt"
    git(top, "worktree", "add", "-q", "-b", "side", str(worktree))
    for root in (top, odd, link, worktree, worktree / "a b\nc"):
        assert gitpy.work_tree(root) == _cli(root), root
    git(top, "pack-refs", "--all")
    assert gitpy.work_tree(top) == _cli(top)
    assert gitpy.work_tree(top)[3] == git(top, "rev-parse", "HEAD").stdout.strip()  # type: ignore[index]
    # not a work tree, or a git dir: git answers (and words the error)
    assert gitpy.work_tree(tmp_path) is None
    assert gitpy.work_tree(top / ".git") is None
    assert discover_with_head(odd)[0].prefix == "a b\nc/pålace/"


def test_git_answers_where_its_environment_steers_discovery(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ceiling (or GIT_DIR ...) that git obeys and GitPython does not: git decides, so a
    palace folder under a ceiling is not taken for part of the repository above it."""
    git(tmp_path, "init", "-q")
    inner = tmp_path / "under" / "palace"
    inner.mkdir(parents=True)
    assert gitpy.work_tree(inner) is not None
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path / "under"))
    assert gitpy.work_tree(inner) is None
    with pytest.raises(NotARepositoryError):
        discover_with_head(inner)


def test_sync_reports_git_progress_of_fetch_and_push(tmp_path: Path) -> None:
    """A real bare remote: the push of one clone and the fetch of the other each report
    git's stages with counts (what the app's bar and the CLI's stderr line show)."""
    _remote, (a, b) = make_team(tmp_path, clones=2)
    promote_new(a, "Alpha fact")
    pushed: list[gitpy.Transfer] = []
    assert sync(a, on_transfer=pushed.append).pushed
    fetched: list[gitpy.Transfer] = []
    assert sync(b, on_transfer=fetched.append).plan.incoming
    assert {t.direction for t in pushed} == {"push"}  # a fetched nothing: git said nothing
    assert any(t.stage == "writing objects" and t.total for t in pushed), pushed
    # the remote's stages (a small local fetch ends before git shows its own receiving)
    counted = [t for t in fetched if t.stage == "counting objects"]
    assert counted and counted[-1].fraction == 1.0, fetched
    assert counted[-1].line() == f"fetch: counting objects {counted[-1].total}/{counted[-1].total}"


PROBE = """
import contextlib, io, json, sys
from curator.cli import main
root = sys.argv[1]
codes = []
sys.stdin = io.StringIO("A body worth keeping.\\n")
with contextlib.redirect_stdout(io.StringIO()):
    codes.append(main(["--palace", root, "capture", "--type", "project", "--name", "Fact"]))
    sys.stdin = io.StringIO("{}")
    codes.append(main(["--palace", root, "hook", "generic", "SessionStart"]))
    codes.append(main(["--palace", root, "history"]))
print(json.dumps({"codes": codes, "gitpython": sorted(m for m in sys.modules
                                                        if m.split(".")[0] == "git")}))
"""


def test_capture_hook_and_history_do_not_import_gitpython(tmp_path: Path) -> None:
    from curator.writer.init import init_palace

    root = tmp_path / "palace"
    init_palace(root, name="p")
    env = {**os.environ, "CURATOR_PALACE": "", "CURATOR_HOOK_WARM": "0"}  # no server left behind
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(root)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found["codes"][0] == 0 and found["codes"][1] == 0, (found, proc.stderr)
    assert found["gitpython"] == []


def test_a_refused_push_is_git_words(tmp_path: Path) -> None:
    """A push the remote refuses (not a fast-forward) is TransferError with git's reason."""
    remote, (a, b) = make_team(tmp_path, clones=2)
    promote_new(a, "Alpha fact")
    sync(a)
    git(b, "commit", "-q", "--allow-empty", "-m", "b's own")
    with pytest.raises(gitpy.TransferError) as caught:
        gitpy.push(b, "origin", "HEAD:refs/heads/main")
    assert any("rejected" in line or "fetch first" in line for line in caught.value.said)
    assert git(remote, "rev-parse", "main").stdout == git(a, "rev-parse", "HEAD").stdout


def test_cli_sync_shows_progress_on_a_terminal_only(tmp_path: Path, run_cli: RunCli) -> None:
    """`curator sync --yes` with stderr on a terminal: git's progress on one line rewritten
    in place, cleared at the end; with stderr a pipe (a script's), none."""
    import pty

    _remote, (a, b) = make_team(tmp_path, clones=2)
    promote_new(a, "Alpha fact")
    promote_new(b, "Beta fact")
    code, _out, err = run_cli("--palace", a, "sync", "--yes")  # stderr not a terminal
    assert code == 0 and err == "", err
    master, slave = pty.openpty()
    argv = [sys.executable, "-m", "curator", "--palace", str(b), "sync", "--yes"]
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=slave, timeout=120)
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the terminal's other end closed: all read
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    assert proc.returncode == 0, shown
    assert b"\r\x1b[Kfetch: counting objects" in shown and b"\r\x1b[Kpush: writing objects" in shown
    assert shown.endswith(b"\r\x1b[K")  # cleared: the summary on stdout starts a clean line


def test_a_folder_named_like_a_variable_is_that_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A palace in a folder called `$CURATOR_TWIN` is that folder, not the one the variable
    names: GitPython expands variables in a path unless told not to, and the repository it
    found then (a twin beside it) was the one fetched from and pushed."""
    monkeypatch.setenv("CURATOR_TWIN", "twin")
    palace, twin = tmp_path / "$CURATOR_TWIN", tmp_path / "twin"
    for root, remote in ((palace, "ours.git"), (twin, "theirs.git")):
        root.mkdir()
        (root / "x.md").write_text(f"{root.name}\n")
        git(root, "init", "-q", "-b", "main")
        git_init_commit(root)
        git(tmp_path, "init", "-q", "--bare", remote)
        git(root, "remote", "add", "origin", str(tmp_path / remote))
    assert gitpy.work_tree(palace) == _cli(palace)
    gitpy.push(palace, "origin", "HEAD:refs/heads/main")
    ours = git(tmp_path / "ours.git", "rev-parse", "main").stdout.strip()
    assert ours == git(palace, "rev-parse", "HEAD").stdout.strip()
    assert git(tmp_path / "theirs.git", "branch").stdout == ""
