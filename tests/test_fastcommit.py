"""The plumbing commit path: same result as `git commit --only`, and porcelain when it must.

Real git repositories in tmp_path; every check reads what git itself reports.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from test_writer_apply import git, make_small_palace, promote_plan

from curator.writer.apply import apply_plan
from curator.writer.fastcommit import cleanup_whitespace, commit_paths, staged_check, store_blob
from curator.writer.git import GitError, IndexLockError, discover_with_head


def _palace(tmp_path: Path, name: str = "palace") -> Path:
    return make_small_palace(tmp_path / name)


def _hook(root: Path, name: str, script: str) -> None:
    hook = root / ".git" / "hooks" / name
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text("#!/bin/sh\n" + script + "\n")
    hook.chmod(0o755)


def test_plumbing_commit_matches_git_commit_only(tmp_path: Path) -> None:
    fast, slow = _palace(tmp_path, "fast"), _palace(tmp_path, "slow")
    _hook(slow, "pre-commit", "exit 0")  # a hook: the porcelain path
    shas = {}
    for root in (fast, slow):
        shas[root] = apply_plan(root, promote_plan(root)).sha
        assert git(root, "status", "--porcelain") == ""
        assert git(root, "rev-parse", "HEAD").strip() == shas[root]
    assert git(fast, "rev-parse", "HEAD^{tree}") == git(slow, "rev-parse", "HEAD^{tree}")
    assert git(fast, "log", "-1", "--format=%B") == git(slow, "log", "-1", "--format=%B")
    assert git(fast, "ls-files", "-s") == git(slow, "ls-files", "-s")
    reflogs = [git(r, "reflog", "-1", "--format=%gs").strip() for r in (fast, slow)]
    assert reflogs[0] == reflogs[1] == "commit: promote: Deploy needs the staging flag"
    assert not (fast / ".git" / "index.lock").exists()


def test_returns_a_sha_and_leaves_a_clean_index(tmp_path: Path) -> None:
    root = _palace(tmp_path)
    (root / "notes/c.md").write_text("---\nname: C\n---\ngamma\n")
    (root / "notes/b.md").unlink()
    repo, head = discover_with_head(root)
    sha = commit_paths(repo, head, ["notes/c.md", "notes/b.md"], "add c, drop b  \n\n\n")
    assert sha is not None and git(root, "rev-parse", "HEAD").strip() == sha
    assert git(root, "log", "-1", "--format=%B") == "add c, drop b\n\n"
    assert git(root, "status", "--porcelain") == ""
    assert git(root, "ls-files").split() == [".gitignore", "INDEX.md", "notes/a.md", "notes/c.md"]


def test_a_pre_commit_hook_still_runs(tmp_path: Path) -> None:
    root = _palace(tmp_path)
    _hook(root, "pre-commit", 'echo ran > "$(git rev-parse --git-dir)/hook-ran"')
    repo, head = discover_with_head(root)
    assert commit_paths(repo, head, ["INDEX.md"], "m") is None  # porcelain's job
    apply_plan(root, promote_plan(root))
    assert (root / ".git" / "hook-ran").read_text() == "ran\n"


def test_hooks_path_from_config_is_honoured(tmp_path: Path) -> None:
    root = _palace(tmp_path)
    hooks = tmp_path / "shared-hooks"
    hooks.mkdir()
    (hooks / "commit-msg").write_text("#!/bin/sh\nexit 0\n")
    (hooks / "commit-msg").chmod(0o755)
    git(root, "config", "core.hooksPath", str(hooks))
    repo, head = discover_with_head(root)
    assert commit_paths(repo, head, ["INDEX.md"], "m") is None


@pytest.mark.parametrize("state", ["MERGE_HEAD", "rebase-merge"])
def test_an_operation_in_progress_means_porcelain(tmp_path: Path, state: str) -> None:
    root = _palace(tmp_path)
    head_sha = git(root, "rev-parse", "HEAD").strip()
    marker = root / ".git" / state
    if state == "rebase-merge":
        marker.mkdir()
    else:
        marker.write_text(head_sha + "\n")
    repo, head = discover_with_head(root)
    assert commit_paths(repo, head, ["INDEX.md"], "m") is None
    assert git(root, "rev-parse", "HEAD").strip() == head_sha


def test_staged_changes_of_the_user_mean_porcelain(tmp_path: Path) -> None:
    root = _palace(tmp_path)
    (root / "other.txt").write_text("staged by the user\n")
    git(root, "add", "other.txt")
    repo, head = discover_with_head(root)
    (root / "INDEX.md").write_text("# Index\n")
    assert commit_paths(repo, head, ["INDEX.md"], "m") is None
    assert not (root / ".git" / "index.lock").exists()
    assert git(root, "status", "--porcelain").splitlines() == [" M INDEX.md", "A  other.txt"]


def test_a_held_index_lock_is_refused_and_kept(tmp_path: Path) -> None:
    root = _palace(tmp_path)
    lock = root / ".git" / "index.lock"
    lock.write_text("someone else's\n")
    repo, head = discover_with_head(root)
    with pytest.raises(IndexLockError):
        commit_paths(repo, head, ["INDEX.md"], "m")
    assert lock.read_text() == "someone else's\n"


def test_head_moved_since_read_fails_and_changes_nothing(tmp_path: Path) -> None:
    root = _palace(tmp_path)
    repo, stale = discover_with_head(root)
    git(root, "commit", "-q", "--allow-empty", "-m", "someone else")
    moved = git(root, "rev-parse", "HEAD").strip()
    index_before = (root / ".git" / "index").read_bytes()
    (root / "INDEX.md").write_text("# Index\n- a\n")
    with pytest.raises(GitError, match="update-ref"):
        commit_paths(repo, stale, ["INDEX.md"], "m")
    assert git(root, "rev-parse", "HEAD").strip() == moved
    assert (root / ".git" / "index").read_bytes() == index_before
    assert not (root / ".git" / "index.lock").exists()


@pytest.mark.parametrize(
    "message",
    [
        "subject\n\nbody\n",
        "  \n\nsubject  \n\n\n\nbody\t\n\n\nCurator-Action: promote\n\n",
        "one line",
        "a\r\nb\r\n",
        "",
    ],
)
def test_cleanup_whitespace_is_gits(message: str) -> None:
    want = subprocess.run(
        ["git", "stripspace"], input=message, capture_output=True, text=True, check=True
    ).stdout
    assert cleanup_whitespace(message) == want


def test_a_config_change_is_seen_on_the_next_commit(tmp_path: Path) -> None:
    root = _palace(tmp_path)
    repo, head = discover_with_head(root)
    (root / "INDEX.md").write_text("# Index\n- a\n")
    assert commit_paths(repo, head, ["INDEX.md"], "first") is not None
    git(root, "config", "commit.gpgsign", "true")  # signing is porcelain's job
    repo, head = discover_with_head(root)
    (root / "INDEX.md").write_text("# Index\n")
    assert commit_paths(repo, head, ["INDEX.md"], "second") is None


def _packs(root: Path) -> list[str]:
    return sorted(p.name for p in (root / ".git/objects/pack").glob("*.pack"))


def test_housekeeping_runs_when_git_gc_would(tmp_path: Path) -> None:
    root = _palace(tmp_path)
    git(root, "config", "gc.autoPackLimit", "1")
    git(root, "config", "gc.autoDetach", "false")  # run in the foreground, for the test
    for name in ("x", "y"):
        (root / f"{name}.txt").write_text(name)
        git(root, "add", f"{name}.txt")
        git(root, "commit", "-q", "--no-verify", "-m", name)
        git(root, "repack", "-q")  # one more pack each time
    assert len(_packs(root)) == 2
    repo, head = discover_with_head(root)
    (root / "INDEX.md").write_text("# Index\n- a\n")
    assert commit_paths(repo, head, ["INDEX.md"], "m") is not None
    assert len(_packs(root)) == 1  # git gc --auto consolidated them


def test_an_early_staged_check_is_not_trusted_once_the_index_changed(tmp_path: Path) -> None:
    root = _palace(tmp_path)
    repo, head = discover_with_head(root)
    early = staged_check(repo, head)
    assert early is not None and not early.any_staged
    (root / "other.txt").write_text("staged after the early check\n")
    git(root, "add", "other.txt")
    (root / "INDEX.md").write_text("# Index\n")
    assert commit_paths(repo, head, ["INDEX.md"], "m", early) is None  # asked again: staged
    assert git(root, "status", "--porcelain").splitlines() == [" M INDEX.md", "A  other.txt"]
    git(root, "reset", "-q", "--", "other.txt")
    fresh = staged_check(repo, head)
    assert fresh is not None and not fresh.any_staged
    assert commit_paths(repo, head, ["INDEX.md"], "m", fresh) is not None


def test_a_stored_blob_is_the_object_git_would_write(tmp_path: Path) -> None:
    root = _palace(tmp_path)
    repo, _ = discover_with_head(root)
    data = b"".join(b"- [Note %d](notes/n%d.md)\n" % (i, i) for i in range(20000))
    assert store_blob(repo, data)
    sha = (
        subprocess.run(
            ["git", "hash-object", "--stdin"], cwd=root, input=data, capture_output=True, check=True
        )
        .stdout.decode()
        .strip()
    )
    shown = subprocess.run(["git", "cat-file", "blob", sha], cwd=root, capture_output=True)
    assert shown.returncode == 0 and shown.stdout == data
    assert store_blob(repo, data)  # already there: nothing to do
    assert not list((root / ".git/objects" / sha[:2]).glob("tmp_obj_*"))
    subprocess.run(["git", "fsck", "--no-progress"], cwd=root, check=True, capture_output=True)


def test_sha256_repositories_leave_blobs_to_git(tmp_path: Path) -> None:
    root = tmp_path / "sha256"
    root.mkdir()
    made = subprocess.run(
        ["git", "init", "-q", "--object-format=sha256"], cwd=root, capture_output=True
    )
    if made.returncode != 0:
        pytest.skip("this git cannot make SHA-256 repositories")
    (root / "a.md").write_text("a\n")
    git(root, "add", "a.md")
    git(root, "commit", "-q", "--no-verify", "-m", "a")
    repo, _ = discover_with_head(root)
    assert not store_blob(repo, b"x" * 300_000)


def test_a_filtered_file_is_committed_as_git_filters_it(tmp_path: Path) -> None:
    """With eol=crlf the blob git stores differs from the file's bytes: the blob stored ahead is
    unused and the commit still holds git's own (LF) blob."""
    root = _palace(tmp_path)
    (root / ".gitattributes").write_text("INDEX.md text eol=crlf\n")
    git(root, "add", ".gitattributes")
    git(root, "commit", "-q", "--no-verify", "-m", "attributes")
    text = "".join(f"- [Note {i}](notes/n{i}.md)\n" for i in range(20000))
    plan = promote_plan(root, index=text.replace("\n", "\r\n").encode())
    applied = apply_plan(root, plan, public=("INDEX.md",))
    committed = subprocess.run(
        ["git", "cat-file", "blob", f"{applied.sha}:INDEX.md"], cwd=root, capture_output=True
    ).stdout
    assert committed == text.encode()  # normalized to LF in the repository
    assert git(root, "status", "--porcelain") == ""
