"""A sync killed at every step: the next curator command finishes it or nothing had changed,
and the sync after that ends with the clone equal to the remote (issue 22).

As in test_writer_crashpoints (killhelpers.AUDIT_KILL): the child counts the file-system and
process events Python reports through its audit hook and SIGKILLs itself at the k-th one (each
git command is one). Real repositories, real kills; each child forked from one interpreter that
has imported the sync (killhelpers.Forker).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from killhelpers import AUDIT_KILL, Forker, forker
from palacehelpers import git
from synchelpers import clean, head, make_team, promote_new, remote_head, tree

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
    # replay's plumbing, the branch move, checkout, rm, push), every file it installs or
    # removes
    firsts = {
        label: k
        for k, label in reversed(list(enumerate(labels, 1)))
        if label.startswith(("git ", "os.rename", "os.remove"))
    }
    assert {"git fetch", "git commit-tree", "git update-ref", "git checkout", "git push"} <= set(
        firsts
    )
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
        assert index_is_current(Palace.open(clone))[0], k
        shutil.rmtree(tmp_path / f"k{k}")
