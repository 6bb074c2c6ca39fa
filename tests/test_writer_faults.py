"""The writer under faults and odd git states (issue 11): an action that cannot finish leaves
the tree exactly as before with a one-line error; git operations in progress, a detached HEAD
and git's lock files are refused with what to do; a kill is recovered, git's index included.

Everything is real: git repositories in states git itself made, `curator` as a subprocess,
a file-size limit that makes the kernel refuse writes, another user for read-only folders.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from palacehelpers import git

from curator.errors import EXIT_REFUSED, WriterError
from curator.model.palace import Palace
from curator.writer.actions.promote import plan_promote
from curator.writer.actions.reject import plan_reject
from curator.writer.actions.retire import plan_retire
from curator.writer.apply import apply_plan
from curator.writer.git import IndexLockError
from curator.writer.gitsteps import GitStateError
from curator.writer.recovery import recover

REPO_ROOT = Path(__file__).resolve().parent.parent
STRIPE = "inbox/2026-11-24-stripe-retries-webhooks-three-days.md"
LINT = "inbox/2026-11-25-make-lint-runs-mypy-on-billing.md"
DEPLOY = "notes/project/deploy-on-version-tags.md"


def tree(root: Path) -> dict[str, bytes]:
    """Every file of the palace with its bytes (machine state under .curator/ aside)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.relative_to(root).parts[0] not in (".git", ".curator")
    }


def state(root: Path) -> tuple[dict[str, bytes], str, str]:
    status = git(root, "status", "--porcelain", "--untracked-files=all").stdout
    return tree(root), status, git(root, "rev-parse", "HEAD").stdout


def curator(
    root: Path, *args: str, preexec=None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:  # type: ignore[no-untyped-def]
    full = dict(os.environ)
    full["PYTHONPATH"] = str(REPO_ROOT)
    full["PYTHONDONTWRITEBYTECODE"] = "1"
    full.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "curator", "--palace", str(root), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=full,
        preexec_fn=preexec,
    )


def one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == EXIT_REFUSED, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


# --------------------------------------------------------------------------- git states


def _conflicting_branch(root: Path) -> None:
    """Branch `other` and main both change the same line of DEPLOY."""
    path = root / DEPLOY
    base = path.read_text(encoding="utf-8")
    git(root, "switch", "-q", "-c", "other")
    path.write_text(base + "other side\n", encoding="utf-8")
    git(root, "commit", "-q", "--no-verify", "-am", "other")
    git(root, "switch", "-q", "-")
    path.write_text(base + "main side\n", encoding="utf-8")
    git(root, "commit", "-q", "--no-verify", "-am", "main")


def _start(root: Path, operation: str) -> None:
    """Leave `operation` in progress, as git itself does after a conflict."""
    if operation == "bisect":
        git(root, "bisect", "start")
        return
    _conflicting_branch(root)
    argv = {
        "merge": ["merge", "other"],
        "rebase": ["rebase", "other"],
        "cherry-pick": ["cherry-pick", "other"],
        "revert": ["revert", "--no-edit", "HEAD"],
    }[operation]
    if operation == "revert":  # revert an older commit under a newer change of the same line
        (root / DEPLOY).write_text("rewritten\n", encoding="utf-8")
        git(root, "commit", "-q", "--no-verify", "-am", "rewrite")
        argv = ["revert", "--no-edit", "HEAD~1"]
    proc = subprocess.run(["git", *argv], cwd=root, capture_output=True, text=True)
    assert proc.returncode != 0, f"{operation} was meant to stop on a conflict"


@pytest.mark.parametrize("operation", ["rebase", "merge", "cherry-pick", "revert", "bisect"])
def test_an_operation_in_progress_is_refused_with_what_to_do(
    sample_palace: Path, operation: str
) -> None:
    _start(sample_palace, operation)
    before = state(sample_palace)
    proc = curator(sample_palace, "promote", STRIPE, "--confidence", "0.8", "--yes")
    line = one_line_error(proc)
    assert operation in line and "in progress" in line
    assert "--abort" in line or "git bisect reset" in line
    assert state(sample_palace) == before


def test_a_detached_head_is_refused(sample_palace: Path) -> None:
    git(sample_palace, "checkout", "-q", "--detach")
    before = state(sample_palace)
    with pytest.raises(GitStateError, match=r"detached.*git switch"):
        apply_plan(sample_palace, plan_promote(Palace.open(sample_palace), STRIPE, confidence=0.8))
    assert state(sample_palace) == before


def test_stale_git_locks_are_named_in_one_message(sample_palace: Path) -> None:
    locks = [sample_palace / ".git/index.lock", sample_palace / ".git/HEAD.lock"]
    for lock in locks:
        lock.write_text("")
    before = state(sample_palace)
    line = one_line_error(curator(sample_palace, "promote", STRIPE, "--yes"))
    for lock in locks:
        assert str(lock) in line
    assert f"rm {locks[0]} {locks[1]}" in line
    assert all(lock.exists() for lock in locks)  # never removed for the user
    assert state(sample_palace) == before
    with pytest.raises(IndexLockError) as info:  # the same for a caller in-process
        apply_plan(sample_palace, plan_promote(Palace.open(sample_palace), STRIPE, confidence=0.8))
    assert info.value.locks == tuple(locks)


# --------------------------------------------------------------------------- the disk refuses


def _file_size_limit(limit: int):  # type: ignore[no-untyped-def]
    def preexec() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return preexec


def test_a_write_the_disk_refuses_leaves_the_tree_as_before(sample_palace: Path) -> None:
    """The kernel refuses to write INDEX.md (a file-size limit stands in for a full disk): the
    promote fails before any file of the palace changed, with one line."""
    Palace.open(sample_palace)  # the load cache exists: only the action's writes remain
    before = state(sample_palace)
    limit = (sample_palace / "INDEX.md").stat().st_size - 1
    proc = curator(
        sample_palace,
        "promote",
        STRIPE,
        "--confidence",
        "0.8",
        "--yes",
        preexec=_file_size_limit(limit),
    )
    line = one_line_error(proc)
    assert "nothing was changed" in line
    assert state(sample_palace) == before
    assert not list((sample_palace / ".curator/tmp").iterdir())
    assert not list((sample_palace / ".curator/journal").glob("*.json"))


def test_a_refused_write_of_the_state_folder_leaves_git_ignoring_it(tmp_path: Path) -> None:
    """The disk refuses .curator/.gitignore's bytes (a file-size limit stands in for a full
    disk): no empty .gitignore is left, which the next process took for a written one, so
    git listed the caches, index and journal (`git add -A` would commit them)."""
    from curator.model.discovery import ensure_state_dir

    root = tmp_path / "palace"
    root.mkdir()
    git(root, "init", "-q")
    code = f"from curator.model.discovery import ensure_state_dir; ensure_state_dir({str(root)!r})"
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True, text=True, timeout=60, preexec_fn=_file_size_limit(0),
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )  # fmt: skip
    assert proc.returncode != 0 and "File too large" in proc.stderr, proc.stderr
    (ensure_state_dir(root) / "index.msgpack").write_bytes(b"machine state")  # the next process
    listed = git(root, "status", "--porcelain", "--untracked-files=all").stdout
    assert ".curator" not in listed, listed


def _chattr(flag: str, paths: list[Path]) -> bool:
    proc = subprocess.run(["chattr", flag, *map(str, paths)], capture_output=True)
    return proc.returncode == 0


@pytest.mark.parametrize("folder", ["notes", "inbox"])
def test_a_read_only_folder_rolls_back_with_one_line(sample_palace: Path, folder: str) -> None:
    """notes/ (or inbox/) refuses new entries, even to root (the immutable attribute): the
    promote is refused when it installs or moves its files, and everything is put back."""
    Palace.open(sample_palace)
    dirs = [sample_palace / folder, *(p for p in (sample_palace / folder).rglob("*") if p.is_dir())]
    before = state(sample_palace)
    if not _chattr("+i", dirs):
        pytest.skip("this file system has no immutable attribute")
    try:
        proc = curator(sample_palace, "promote", STRIPE, "--confidence", "0.8", "--yes")
    finally:
        _chattr("-i", dirs)
    line = one_line_error(proc)
    assert "not permitted" in line or "denied" in line, line
    assert state(sample_palace) == before
    assert not list((sample_palace / ".curator/journal").glob("*.json"))


# --------------------------------------------------------------------------- kills

KILL = """
import os, signal, sys
from pathlib import Path
sys.path.insert(0, {repo!r})
from curator.model.palace import Palace
from curator.writer.apply import apply_plan
from curator.writer.actions.promote import plan_promote

root, when = Path(sys.argv[1]), sys.argv[2]
plan = plan_promote(Palace.open(root), {draft!r}, confidence=0.8)
temps = []

def audit(event, args):
    path = str(args[0]) if args else ""
    if event == "open" and "/.curator/tmp/" in path:
        temps.append(path)
    elif "/.curator/journal" in path and temps and when == "temps":
        # the temps are written in threads, each whole once they are joined: the journal's
        # first write comes after, so every temp file is there and the journal not yet
        os.kill(os.getpid(), signal.SIGKILL)
    elif event == "os.remove" and str(args[0]).endswith(".json") and when == "committed":
        os.kill(os.getpid(), signal.SIGKILL)

sys.addaudithook(audit)
apply_plan(root, plan)
"""


def run_killed(root: Path, when: str) -> None:
    script = KILL.format(repo=str(REPO_ROOT), draft=STRIPE)
    proc = subprocess.run(
        [sys.executable, "-c", script, str(root), when], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == -9, proc.stderr


def test_a_kill_before_the_journal_leaves_nothing_git_would_pick_up(sample_palace: Path) -> None:
    before = state(sample_palace)
    run_killed(sample_palace, "temps")
    assert list((sample_palace / ".curator/tmp").iterdir()), "a temp file was left"
    ignored = git(sample_palace, "status", "--porcelain", "--untracked-files=all").stdout
    assert ignored == before[1]  # git does not list it: `git add -A` would not commit it
    assert recover(sample_palace) is None  # nothing to finish...
    assert not list((sample_palace / ".curator/tmp").iterdir())  # ...and the leftovers are gone
    assert state(sample_palace) == before


def test_recover_brings_the_index_in_line_with_head(sample_palace: Path) -> None:
    """Killed after the branch moved but before git's index was replaced: `git status` shows
    the action reverted in the index until `curator recover`."""
    run_killed(sample_palace, "committed")
    git(sample_palace, "read-tree", "HEAD~1")  # the index git had not replaced yet
    assert git(sample_palace, "status", "--porcelain").stdout  # the new note looks deleted
    proc = curator(sample_palace, "recover")
    assert proc.returncode == 0, proc.stderr
    assert "already been committed" in proc.stdout
    assert git(sample_palace, "status", "--porcelain").stdout == ""


# --------------------------------------------------------------------------- races


def test_the_loser_of_two_racing_promotes_of_one_draft_gets_one_line(sample_palace: Path) -> None:
    Palace.open(sample_palace)
    argv = [sys.executable, "-m", "curator", "--palace", str(sample_palace)]
    argv += ["promote", STRIPE, "--confidence", "0.8", "--yes"]
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    procs = [
        subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        for _ in range(2)
    ]
    results = [(p.wait(timeout=60), p.stderr.read() if p.stderr else "") for p in procs]
    codes = sorted(code for code, _ in results)
    assert codes == [0, EXIT_REFUSED], results
    loser = next(err for code, err in results if code == EXIT_REFUSED)
    assert "Traceback" not in loser and len(loser.strip().splitlines()) == 1, loser
    assert STRIPE.split("/")[1].split(".")[0][:10] in loser or "no draft" in loser.lower()
    assert git(sample_palace, "status", "--porcelain").stdout == ""


def test_recover_does_not_finish_an_action_into_a_rebase(sample_palace: Path) -> None:
    run_killed(sample_palace, "committed")  # a journal waits to be cleaned up
    journal = list((sample_palace / ".curator/journal").glob("*.json"))
    _start(sample_palace, "rebase")
    line = one_line_error(curator(sample_palace, "recover"))
    assert "rebase" in line and "in progress" in line
    assert list((sample_palace / ".curator/journal").glob("*.json")) == journal


def test_a_palace_whose_state_folder_cannot_be_made_is_one_line(sample_palace: Path) -> None:
    before = state(sample_palace)
    if not _chattr("+i", [sample_palace]):
        pytest.skip("this file system has no immutable attribute")
    try:
        proc = curator(sample_palace, "promote", STRIPE, "--confidence", "0.8", "--yes")
    finally:
        _chattr("-i", [sample_palace])
    line = one_line_error(proc)
    assert "writer lock" in line or "not permitted" in line, line
    assert state(sample_palace) == before


# --------------------------------------------------------------------------- a full disk


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MiB tmpfs of its own (root only): a disk that really fills up."""
    mount = tmp_path / "disk"
    mount.mkdir()
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], capture_output=True
    )
    if proc.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(disk: Path, leave: int) -> Path:
    """A filler file taking every byte of `disk` but `leave`."""
    filler = disk / "filler"
    filler.unlink(missing_ok=True)
    st = os.statvfs(disk)
    size = max(0, st.f_bavail * st.f_frsize - leave)
    with open(filler, "wb") as fh:
        fh.truncate(0)
        with contextlib.suppress(OSError):
            fh.write(b"\0" * size)
    return filler


ACTIONS = {
    "promote": lambda palace: plan_promote(palace, STRIPE, confidence=0.8),
    "retire": lambda palace: plan_retire(palace, DEPLOY, "replaced by the release train"),
    "reject": lambda palace: plan_reject(palace, LINT, "not a rule"),
}


@pytest.mark.parametrize("action", sorted(ACTIONS))
def test_a_full_disk_at_every_step_leaves_git_status_clean(
    sample_palace: Path, small_disk: Path, action: str
) -> None:
    """The disk fills at each step of an action in turn (temps, install, git's objects, its
    index, the commit): every failed promote is one error, and after it the tree, HEAD and
    `git status --porcelain` are exactly as before: git's index is rolled back too."""
    root = small_disk / "palace"
    shutil.copytree(sample_palace, root, symlinks=True)
    Palace.open(root)  # the load cache exists: only the action's writes remain
    before = state(root)
    assert before[1] == ""
    failures = 0
    for leave in range(0, 160 * 1024, 4096):
        _fill(small_disk, leave)
        try:
            apply_plan(root, ACTIONS[action](Palace.open(root)))
        except (WriterError, OSError) as exc:
            failures += 1
            assert "Traceback" not in str(exc)
            assert git(root, "status", "--porcelain").stdout == "", (leave, str(exc))
            assert state(root) == before, (leave, str(exc))
            continue
        break
    else:
        pytest.fail(f"the {action} never fit on the disk")
    assert failures, "the disk never refused a write: the test tested nothing"
    (small_disk / "filler").unlink()
