"""A kill at every point of a promote: the palace is then either exactly as before or exactly
as after, once `curator recover` has run (issue 11: no fault loses an edit).

The child counts the file-system and process events Python reports through its audit hook
(renames, removals, links, folders, opened-for-writing files, started processes) and SIGKILLs
itself at the k-th one, for every k the promote goes through. Real repository, real process,
real kill; nothing in the writer exists for this test. Each child is forked from one interpreter
that has imported the writer (killhelpers.Forker), so a run costs the promote, not a start-up.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from killhelpers import AUDIT_KILL, Forker, forker
from palacehelpers import git

from curator.writer.recovery import recover

STRIPE = "inbox/2026-11-24-stripe-retries-webhooks-three-days.md"

CHILD = """
import sys
from pathlib import Path
from curator.model.palace import Palace
from curator.writer.actions.promote import plan_promote
from curator.writer.session import commit

root, kill_at = Path(sys.argv[1]), int(sys.argv[2])
palace = Palace.open(root)
plan = plan_promote(palace, {draft!r}, confidence=0.8)
{hook}
sys.addaudithook(audit)
commit(root, plan, palace=palace)
print(seen)
"""


def content(root: Path) -> dict[str, bytes]:
    """The palace as a reader sees it, with the drafts curator parks under .curator/."""
    out: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if not path.is_file() or rel.parts[0] == ".git":
            continue
        if rel.parts[0] == ".curator" and rel.parts[1:2] not in (("promoted",), ("rejected",)):
            continue
        out[rel.as_posix()] = path.read_bytes()
    return out


PRELOAD = ("curator.model.palace", "curator.writer.actions.promote", "curator.writer.session")


def test_a_kill_anywhere_in_a_promote_leaves_before_or_after(
    sample_palace: Path, tmp_path: Path
) -> None:
    with forker(CHILD.format(draft=STRIPE, hook=AUDIT_KILL), PRELOAD, tmp_path) as child:
        _walk(sample_palace, tmp_path, child)


def _walk(sample_palace: Path, tmp_path: Path, child: Forker) -> None:
    template = tmp_path / "template"
    shutil.copytree(sample_palace, template, symlinks=True)
    before = content(template)
    head = git(template, "rev-parse", "HEAD").stdout.strip()

    finished = tmp_path / "finished"
    shutil.copytree(template, finished, symlinks=True)
    proc = child.run(str(finished), "0")  # never killed: counts the events, gives the after state
    assert proc.returncode == 0, proc.stderr
    events = int(proc.stdout.split()[-1])
    after = content(finished)
    after_tree = git(finished, "rev-parse", "HEAD^{tree}").stdout.strip()
    subject = git(finished, "log", "-1", "--format=%s").stdout.strip()
    assert after != before and events > 10

    outcomes: dict[str, int] = {"before": 0, "after": 0}
    for k in range(1, events + 1):
        root = tmp_path / f"kill-{k}"
        shutil.copytree(template, root, symlinks=True)
        proc = child.run(str(root), str(k))
        assert proc.returncode == -9, (k, proc.stderr)
        recover(root)
        now = content(root)
        if now == before:
            assert git(root, "rev-parse", "HEAD").stdout.strip() == head, k
            outcomes["before"] += 1
        else:
            assert now == after, f"killed at event {k} of {events}: neither before nor after"
            assert git(root, "rev-parse", "HEAD^{tree}").stdout.strip() == after_tree, k
            assert git(root, "log", "-1", "--format=%s").stdout.strip() == subject, k
            outcomes["after"] += 1
        assert git(root, "status", "--porcelain").stdout == "", k
        assert not list((root / ".curator/journal").glob("*.json")), k
        tmp = root / ".curator/tmp"
        assert not tmp.is_dir() or not any(tmp.iterdir()), k
        shutil.rmtree(root)
    assert outcomes["before"] and outcomes["after"], outcomes  # both halves were reached
