"""A sync killed at every step: the next curator command finishes it or nothing had changed,
and the sync after that ends with the clone equal to the remote (issue 22).

As in test_writer_crashpoints (killhelpers.AUDIT_KILL): the child counts the file-system and
process events Python reports through its audit hook and SIGKILLs itself at the k-th one (each
git command is one). Real repositories, real kills; each child forked from one interpreter that
has imported the sync (killhelpers.Forker).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from killhelpers import AUDIT_KILL, Forker, forker
from palacehelpers import git
from synchelpers import clean, head, make_team, promote_new, remote_head, tree

from curator.errors import WriterError
from curator.model.index_md import index_is_current
from curator.model.palace import Palace
from curator.writer.recovery import recover
from curator.writer.sync import sync
from curator.writer.syncmove import SYNC_JOURNAL_REL

CHILD = """
import json, sys
from pathlib import Path
from curator.writer.sync import sync

root, kill_at = Path(sys.argv[1]), int(sys.argv[2])
{hook}
sys.addaudithook(audit)
sync(root)
print(json.dumps(labels))
"""


@pytest.fixture
def template(tmp_path: Path) -> Path:
    """A remote with one of a's actions b has not pulled, and one of b's the remote lacks."""
    base = tmp_path / "template"
    base.mkdir()
    _remote, (a, b) = make_team(base, clones=2)
    promote_new(a, "Alpha fact")
    sync(a)
    promote_new(b, "Beta fact")
    return base


def _copy(template: Path, dest: Path) -> tuple[Path, Path]:
    shutil.copytree(template, dest, symlinks=True)
    remote, b = dest / "remote.git", dest / "clone1"
    git(b, "remote", "set-url", "origin", str(remote))
    return remote, b


@pytest.fixture
def child(tmp_path: Path) -> Iterator[Forker]:
    with forker(CHILD.format(hook=AUDIT_KILL), ("curator.writer.sync",), tmp_path) as runner:
        yield runner


def _child(b: Path, kill_at: int, child: Forker) -> subprocess.CompletedProcess[str]:
    return child.run(str(b), str(kill_at))


def test_a_sync_killed_at_every_step_is_finished_or_never_happened(
    template: Path, tmp_path: Path, child: Forker
) -> None:
    _remote, b = _copy(template, tmp_path / "full")
    full = _child(b, 0, child)
    assert full.returncode == 0, full.stderr
    labels = json.loads(full.stdout)
    # the first event of each kind of step: every git command the sync runs (fetch, the
    # replay's plumbing, the branch move, push), every file it installs or
    # removes
    firsts = {
        label: k
        for k, label in reversed(list(enumerate(labels, 1)))
        if label.startswith(("git ", "os.rename", "os.remove"))
    }
    assert {"git fetch", "git commit-tree", "git update-ref", "git push"} <= set(firsts)
    assert any(label.startswith("os.rename") for label in firsts)  # the move's renames
    want = tree(b)
    for k in sorted(firsts.values()):
        remote, clone = _copy(template, tmp_path / f"k{k}")
        before = head(clone)
        killed = _child(clone, k, child)
        assert killed.returncode == -9, (k, killed.stderr)
        recover(clone)  # what the next curator command does first
        assert not (clone / SYNC_JOURNAL_REL).exists(), k
        assert clean(clone), k
        now = head(clone)
        assert now == before or tree(clone) == want, k  # as before, or the move finished
        sync(clone)
        assert head(clone) == remote_head(remote), k
        assert tree(clone) == want, k
        assert index_is_current(Palace.open(clone)), k
        shutil.rmtree(tmp_path / f"k{k}")


def _state(clone: Path) -> tuple[str, str, str, dict[str, bytes]]:
    """HEAD, git's index, git status and every file of the work tree (git's own left out)."""
    files = {
        p.relative_to(clone).as_posix(): p.read_bytes()
        for p in clone.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(clone).parts[:1]
        and ".curator" not in p.relative_to(clone).parts[:1]
    }  # fmt: skip
    status = git(clone, "status", "--porcelain").stdout
    return head(clone), git(clone, "ls-files", "-s").stdout, status, files


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MiB tmpfs (root only): a file system that fills up for real."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    if (
        os.geteuid() != 0
        or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mnt)], capture_output=True
        ).returncode
    ):
        pytest.skip("needs root to mount a small tmpfs")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=True)


def test_a_sync_on_a_full_disk_completes_or_changes_nothing(
    tmp_path: Path, small_disk: Path
) -> None:
    """Issue 31: some free-space sizes made sync exit 2 with HEAD moved and the index staging
    the reverse of the pull. Each size of free space the pull needs, and around it."""
    base = tmp_path / "team"
    base.mkdir()
    _remote, (a, b) = make_team(base, clones=2)
    sync(b)
    promote_new(a, "Big fact", body="".join(f"Line {i} of a long note.\n" for i in range(6000)))
    promote_new(a, "Second fact", body="".join(f"Other {i}.\n" for i in range(3000)))
    sync(a)
    promote_new(b, "Beta fact")
    outcomes = []
    for room in range(100_000, 340_000, 40_000):
        clone = small_disk / "b"
        shutil.copytree(b, clone, symlinks=True)
        before = _state(clone)
        filler = small_disk / "filler"
        with open(filler, "wb") as out, contextlib.suppress(OSError):
            out.write(b"\0" * max(0, shutil.disk_usage(small_disk).free - room))
        try:
            sync(clone)
            outcomes.append("synced")
            assert clean(clone) and git(clone, "status", "--porcelain").stdout == "", room
        except (WriterError, OSError):
            outcomes.append("refused")
            assert _state(clone) == before, room  # HEAD, index and tree as they were
        shutil.rmtree(clone)
        filler.unlink()
    assert "refused" in outcomes  # the sizes reach a full disk
