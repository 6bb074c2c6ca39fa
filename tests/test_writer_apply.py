"""The one writer: Plan values, atomic files, commits of only the plan's paths, lock, recovery.

Real git repositories in tmp_path, real files, real subprocesses; no mocks.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from palacehelpers import IDENTITY_VARS, reject_plan

from curator.writer.apply import (
    ChangedSincePlanError,
    CommitFailedError,
    DirtyFileError,
    LockTimeoutError,
    WriterLock,
    apply_plan,
    atomic_write,
    recover,
)
from curator.writer.git import IndexLockError
from curator.writer.plan import (
    Delete,
    Move,
    Plan,
    PlanError,
    Write,
    build_message,
    content_hash,
    decode_restore,
    encode_restore,
)

REPO_ROOT = Path(__file__).resolve().parent.parent


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


def committed_files(root: Path, rev: str = "HEAD") -> set[str]:
    out = git(
        root, "-c", "core.quotepath=off", "show", "--name-only", "--format=", "--no-renames", rev
    )
    return {line for line in out.splitlines() if line}


def make_repo(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    files = {".gitignore": "inbox/\n.curator/\n", **files}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "-m", "initial")
    return root


@pytest.fixture
def palace(tmp_path: Path) -> Path:
    return make_small_palace(tmp_path / "palace")


def make_small_palace(where: Path) -> Path:
    """Two notes, INDEX.md and one git-ignored draft, committed."""
    root = make_repo(
        where,
        {
            "notes/a.md": "---\nname: A\n---\nalpha\n",
            "notes/b.md": "---\nname: B\n---\nbeta\n",
            "INDEX.md": "# Index\n- a\n- b\n",
        },
    )
    (root / "inbox").mkdir()
    (root / "inbox" / "d.md").write_text("draft\n")
    return root


def promote_plan(
    root: Path, dst: str = "notes/d.md", index: bytes = b"# Index\n- a\n- b\n- d\n"
) -> Plan:
    """The draft inbox/d.md promoted to `dst`, INDEX.md rewritten to `index`."""
    return Plan(
        action="promote",
        notes=(dst,),
        reason="It was right.",
        summary="Deploy needs the staging flag",
        changes=(
            Move.from_disk(root, "inbox/d.md", dst, b"---\nname: D\n---\ndelta\n"),
            Write.from_disk(root, "INDEX.md", index),
        ),
        root=root,
    )


def tree_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if ".git" not in p.relative_to(root).parts]


# --------------------------------------------------------------------------- Plan


def test_plan_rejects_paths_escaping_the_palace(tmp_path: Path) -> None:
    for bad in (
        "../x.md",
        "/etc/passwd",
        "notes/../../x.md",
        "",
        ".git/config",
        ".curator/writer.lock",
        ".curator/journal/x.json",
    ):
        with pytest.raises(PlanError):
            Write(bad, b"x", None)
    with pytest.raises(PlanError, match="more than one change"):
        Plan("retire", (), "r", "s", (Write("a.md", b"1", None), Delete("a.md", "h")))
    with pytest.raises(PlanError):
        Plan("Bad Action", (), "r", "s", ())
    assert Write("./notes//a.md", b"", None).path == "notes/a.md"


def test_plan_paths_message_and_diff(palace: Path) -> None:
    plan = Plan(
        "merge",
        ("notes/a.md", "notes/b\nInjected: x"),
        "line one\nline\x1b[2J two",
        "Merge A\tB",
        (
            Write.from_disk(palace, "notes/a.md", b"---\nname: A\n---\nalpha and beta\n"),
            Delete.from_disk(palace, "notes/b.md"),
            Write.from_disk(palace, "notes/new.md", b"new\n"),
            Move.from_disk(palace, "inbox/d.md", "notes/d.md"),
        ),
        trailers=(("Curator-Restore", encode_restore("inbox/x=y.md", ".curator/rejected/x.md")),),
        root=palace,
    )
    assert plan.paths() == ("notes/a.md", "notes/b.md", "notes/new.md", "inbox/d.md", "notes/d.md")
    msg = plan.message
    assert msg.startswith("merge: Merge A B\n\nline one\nline two\n\n")
    trailer_lines = msg.rstrip("\n").split("\n\n")[-1].splitlines()
    assert trailer_lines == [
        "Curator-Action: merge",
        "Curator-Note: notes/a.md",
        "Curator-Note: notes/b Injected: x",
        "Curator-Reason: line one line two",
        "Curator-Restore: inbox/x%3Dy.md=.curator/rejected/x.md",
        # the text the move took out of the inbox (issue 31: taken by text, not by name)
        f"Curator-Took: {content_hash((palace / 'inbox/d.md').read_bytes())}=inbox/d.md",
    ]
    assert decode_restore(trailer_lines[-2].split(": ", 1)[1]) == (
        "inbox/x=y.md",
        ".curator/rejected/x.md",
    )
    before = {p: (palace / p).read_bytes() for p in ("notes/a.md", "notes/b.md", "inbox/d.md")}
    diff = plan.diff()
    assert "diff --git a/notes/a.md b/notes/a.md\n--- a/notes/a.md\n+++ b/notes/a.md\n" in diff
    assert "-alpha\n+alpha and beta\n" in diff
    assert "deleted file mode 100644\n--- a/notes/b.md\n+++ /dev/null\n" in diff
    assert "new file mode 100644\n--- /dev/null\n+++ b/notes/new.md\n" in diff
    assert "rename from inbox/d.md\nrename to notes/d.md\n" in diff
    # diff is pure: nothing written
    assert {p: (palace / p).read_bytes() for p in before} == before
    assert not (palace / "notes/new.md").exists()


def test_build_message_without_reason_or_summary() -> None:
    msg = build_message("retire", "", "", ["notes/x.md"])
    assert msg == "retire: notes/x.md\n\nCurator-Action: retire\nCurator-Note: notes/x.md\n"


# --------------------------------------------------------------------------- apply


def test_apply_commits_atomically_and_leaves_no_temp_files(palace: Path) -> None:
    calls: list[str] = []
    applied = apply_plan(palace, promote_plan(palace), on_commit=calls.append)
    assert calls == [applied.sha]
    assert git(palace, "rev-parse", "HEAD").strip() == applied.sha
    assert (palace / "notes/d.md").read_text() == "---\nname: D\n---\ndelta\n"
    assert not (palace / "inbox/d.md").exists()
    assert committed_files(palace) == {"notes/d.md", "INDEX.md"}
    body = git(palace, "log", "-1", "--format=%B")
    assert body.startswith("promote: Deploy needs the staging flag\n\nIt was right.\n")
    assert "Curator-Action: promote\nCurator-Note: notes/d.md\n" in body
    assert not [p for p in tree_files(palace) if p.name.startswith(".curator-tmp-")]
    assert list((palace / ".curator/journal").iterdir()) == []
    assert git(palace, "status", "--porcelain") == ""


def test_atomic_write_failure_leaves_no_temp_file(tmp_path: Path) -> None:
    (tmp_path / "target").mkdir()
    with pytest.raises(OSError):
        atomic_write(tmp_path / "target", b"x")  # cannot replace a folder by a file
    assert [p.name for p in tmp_path.iterdir()] == ["target"]


def test_only_plan_paths_are_committed(palace: Path) -> None:
    (palace / "other.txt").write_text("user's staged file\n")
    git(palace, "add", "other.txt")
    (palace / "notes/b.md").write_text("user's unstaged edit\n")
    applied = apply_plan(palace, promote_plan(palace))
    assert committed_files(palace, applied.sha) == {"notes/d.md", "INDEX.md"}
    status = git(palace, "status", "--porcelain").splitlines()
    assert sorted(status) == ["  M notes/b.md"[1:], "A  other.txt"]
    assert (palace / "notes/b.md").read_text() == "user's unstaged edit\n"
    assert git(palace, "show", ":other.txt") == "user's staged file\n"


def test_a_refused_action_leaves_no_temp_file_or_folder(palace: Path) -> None:
    (palace / "INDEX.md").write_text("hand edit\n")
    plan = promote_plan(palace, dst="notes/deep/new/d.md")
    with pytest.raises(DirtyFileError):
        apply_plan(palace, plan)
    assert not (palace / "notes/deep").exists()
    assert [p for p in tree_files(palace) if p.name.startswith(".curator-tmp-")] == []
    assert (palace / "inbox/d.md").read_text() == "draft\n"


def test_temp_files_of_a_writer_killed_before_its_journal_are_swept(palace: Path) -> None:
    (palace / ".curator/tmp").mkdir(parents=True)
    litter = [palace / ".curator/tmp/.curator-tmp-0123456789abcdef"]
    litter.append(palace / ".curator/journal/20260101T000000Z-1-abcdef")  # backups, no json
    litter[1].mkdir(parents=True)
    for path in litter[:1]:
        path.write_text("half of something\n")
    assert git(palace, "status", "--porcelain") == ""  # where git ignores them
    apply_plan(palace, promote_plan(palace))
    assert not any(path.exists() for path in litter)
    assert git(palace, "status", "--porcelain") == ""


def test_refuses_a_touched_file_with_uncommitted_changes(palace: Path) -> None:
    (palace / "INDEX.md").write_text("hand edit\n")
    plan = promote_plan(palace)  # made against the edited file: only git can tell
    with pytest.raises(DirtyFileError, match=r"INDEX\.md") as info:
        apply_plan(palace, plan)
    assert info.value.path == "INDEX.md"
    assert (palace / "inbox/d.md").exists() and not (palace / "notes/d.md").exists()
    git(palace, "add", "INDEX.md")  # staged counts too
    with pytest.raises(DirtyFileError, match=r"INDEX\.md"):
        apply_plan(palace, promote_plan(palace))


def test_refuses_a_file_changed_since_planning(palace: Path) -> None:
    plan = promote_plan(palace)
    (palace / "inbox/d.md").write_text("edited after planning\n")
    with pytest.raises(ChangedSincePlanError, match=r"inbox/d\.md"):
        apply_plan(palace, plan)
    plan = promote_plan(palace)
    (palace / "notes/d.md").write_text("appeared\n")
    with pytest.raises(ChangedSincePlanError, match=r"notes/d\.md.*expected no file"):
        apply_plan(palace, plan)


def test_failed_commit_puts_files_back(palace: Path) -> None:
    hook = palace / ".git/hooks/pre-commit"
    hook.write_text("#!/bin/sh\necho no commits today >&2\nexit 1\n")
    hook.chmod(0o755)
    head = git(palace, "rev-parse", "HEAD")
    with pytest.raises(CommitFailedError, match="no commits today"):
        apply_plan(palace, promote_plan(palace))
    assert git(palace, "rev-parse", "HEAD") == head
    assert (palace / "inbox/d.md").read_text() == "draft\n"
    assert not (palace / "notes/d.md").exists()
    assert git(palace, "status", "--porcelain") == ""


def test_lock_serializes_writers_across_processes(palace: Path) -> None:
    script = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(REPO_ROOT)!r})
        from curator.writer.apply import WriterLock
        root = __import__("pathlib").Path(sys.argv[1])
        with WriterLock(root):
            print("locked", flush=True)
            sys.stdin.readline()  # held until the test was refused it, then while it waits
            time.sleep(float(sys.argv[2]))
            (root.parent / "released").write_text("")  # the last thing done under the lock
    """)
    holder = subprocess.Popen(
        [sys.executable, "-c", script, str(palace), "0.5"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(LockTimeoutError, match=f"pid {holder.pid}"):
            WriterLock(palace, timeout=0.2).acquire()
        assert holder.stdin is not None
        holder.stdin.write("release\n")
        holder.stdin.flush()
        applied = apply_plan(palace, promote_plan(palace), lock_timeout=10)  # waits its turn
        assert (palace.parent / "released").exists()  # it got the lock only after the holder
        assert holder.wait(5) == 0
        assert applied.sha
    finally:
        holder.kill()
        holder.wait()


def test_stale_index_lock_is_reported_not_deleted(palace: Path) -> None:
    lock = palace / ".git/index.lock"
    lock.write_text("")
    with pytest.raises(IndexLockError) as info:
        apply_plan(palace, promote_plan(palace))
    assert str(lock) in str(info.value) and f"rm {lock}" in str(info.value)
    assert lock.exists()
    assert (palace / "inbox/d.md").exists()


def test_default_identity_without_git_config(
    palace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty_home = tmp_path / "empty-home"
    empty_home.mkdir()
    monkeypatch.setenv("HOME", str(empty_home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for var in IDENTITY_VARS:
        monkeypatch.delenv(var, raising=False)
    applied = apply_plan(palace, promote_plan(palace))
    assert git(palace, "log", "-1", "--format=%an <%ae>|%cn <%ce>", applied.sha).strip() == (
        "curator <curator@localhost>|curator <curator@localhost>"
    )


def test_default_identity_is_not_used_when_configured(palace: Path) -> None:
    git(palace, "config", "user.name", "Ada")
    git(palace, "config", "user.email", "ada@example.com")
    applied = apply_plan(palace, promote_plan(palace))
    assert git(palace, "log", "-1", "--format=%an <%ae>", applied.sha).strip() == (
        "Ada <ada@example.com>"
    )


def test_palace_in_a_subfolder_of_a_bigger_repo(tmp_path: Path) -> None:
    top = make_repo(
        tmp_path / "big",
        {
            "src/code.py": "print(1)\n",
            "docs/memory/notes/a.md": "alpha\n",
            "docs/memory/INDEX.md": "- a\n",
            "docs/memory/.gitignore": "inbox/\n.curator/\n",
        },
    )
    palace = top / "docs/memory"
    (top / "src/code.py").write_text("print(2)\n")
    git(top, "add", "src/code.py")
    plan = Plan(
        "promote",
        ("notes/n.md",),
        "r",
        "New",
        (
            Write.from_disk(palace, "notes/n.md", b"new\n"),
            Write.from_disk(palace, "INDEX.md", b"- a\n- n\n"),
        ),
        root=palace,
    )
    applied = apply_plan(palace, plan)
    assert committed_files(top, applied.sha) == {"docs/memory/notes/n.md", "docs/memory/INDEX.md"}
    assert git(top, "status", "--porcelain").splitlines() == ["M  src/code.py"]
    assert not (top / ".curator").exists() and (palace / ".curator/writer.lock").exists()


def test_note_paths_that_look_like_options_or_patterns(palace: Path) -> None:
    names = ["-rf.md", "--output=x.md", "notes/[ab].md", "notes/*.md", ":(top)q.md", "notes/é ü.md"]
    plan = Plan(
        "promote",
        tuple(names),
        "-F /etc/passwd",
        "--amend",
        tuple(Write.from_disk(palace, n, f"{n}\n".encode()) for n in names),
        root=palace,
    )
    applied = apply_plan(palace, plan)
    assert committed_files(palace, applied.sha) == set(names)
    assert git(palace, "log", "-1", "--format=%s").strip() == "promote: --amend"
    assert git(palace, "status", "--porcelain") == ""
    # a pattern-looking name touched only itself
    assert git(palace, "show", "HEAD:notes/a.md") == "---\nname: A\n---\nalpha\n"


def test_reject_of_an_ignored_draft_makes_an_empty_commit(palace: Path) -> None:
    (palace / "staged.txt").write_text("s\n")
    git(palace, "add", "staged.txt")
    applied = apply_plan(palace, reject_plan(palace, "duplicate"))
    assert committed_files(palace, applied.sha) == set()
    assert (palace / ".curator/rejected/d.md").read_text() == "draft\n"
    assert git(palace, "status", "--porcelain").splitlines() == ["A  staged.txt"]


# --------------------------------------------------------------------------- crash safety

# The child is killed at a real moment of its work, found by Python's audit events (no hook
# in the writer): the Nth rename into the palace, the `git commit` process, the journal's
# removal.
KILL_SCRIPT = """
import os, signal, sys
from pathlib import Path
sys.path.insert(0, {repo!r})
from curator.writer.apply import apply_plan
from curator.writer.plan import Move, Plan, Write

root = Path(sys.argv[1])
stage = sys.argv[2]
plan = Plan("promote", ("notes/d.md",), "r", "Deploy", (
    Write.from_disk(root, "notes/a.md", b"alpha v2\\n"),
    Move.from_disk(root, "inbox/d.md", "notes/d.md", b"delta\\n"),
    Write.from_disk(root, "INDEX.md", b"index v2\\n"),
), root=root)
renames = []

def audit(event, args):
    if event == "os.rename" and "/.curator/" not in str(args[1]):
        renames.append(args[1])
        if (stage, len(renames)) in (("journaled", 1), ("file-done", 2)):
            os.kill(os.getpid(), signal.SIGKILL)
    elif event == "subprocess.Popen" and stage == "files-done" and "commit" in args[1]:
        os.kill(os.getpid(), signal.SIGKILL)
    elif event == "os.remove" and stage == "committed" and str(args[0]).endswith(".json"):
        os.kill(os.getpid(), signal.SIGKILL)

sys.addaudithook(audit)
apply_plan(root, plan)
"""


def run_killed(palace: Path, stage: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", KILL_SCRIPT.format(repo=str(REPO_ROOT)), str(palace), stage],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == -9, proc.stderr
    assert list((palace / ".curator/journal").glob("*.json")), "the journal must survive the kill"


def snapshot(palace: Path) -> dict[str, bytes | None]:
    return {
        p: (palace / p).read_bytes() if (palace / p).exists() else None
        for p in ("notes/a.md", "inbox/d.md", "notes/d.md", "INDEX.md")
    }


def test_sigkill_in_the_middle_of_the_writes_rolls_back(palace: Path) -> None:
    before, head = snapshot(palace), git(palace, "rev-parse", "HEAD")
    run_killed(palace, "file-done")  # dies after the first of four file operations
    assert snapshot(palace) != before  # half done on disk...
    report = recover(palace)
    assert report is not None and report.outcome == "rolled-back"
    assert "rolled back" in report.sentence and "promote" in report.sentence
    assert snapshot(palace) == before  # ...and now exactly as before
    assert git(palace, "rev-parse", "HEAD") == head
    assert git(palace, "status", "--porcelain") == ""
    assert list((palace / ".curator/journal").iterdir()) == []
    assert recover(palace) is None


def test_sigkill_after_the_writes_completes_the_commit(palace: Path) -> None:
    run_killed(palace, "files-done")
    assert git(palace, "log", "-1", "--format=%s").strip() == "initial"
    applied = apply_plan(
        palace,
        Plan(
            "retire",
            ("notes/b.md",),
            "old",
            "B",
            (Delete.from_disk(palace, "notes/b.md"),),
            root=palace,
        ),
    )
    report = applied.recovered  # the next writer finished the interrupted action first
    assert report is not None and report.outcome == "completed", report
    assert "completed" in report.sentence
    assert report.sha is not None
    assert committed_files(palace, report.sha) == {"notes/a.md", "notes/d.md", "INDEX.md"}
    assert git(palace, "log", "--format=%s", "-3").splitlines() == [
        "retire: B",
        "promote: Deploy",
        "initial",
    ]
    assert (palace / "notes/d.md").read_bytes() == b"delta\n"
    assert not (palace / "inbox/d.md").exists()
    assert git(palace, "status", "--porcelain") == ""


def test_sigkill_after_the_commit_only_cleans_the_journal(palace: Path) -> None:
    run_killed(palace, "committed")
    head = git(palace, "rev-parse", "HEAD").strip()
    report = recover(palace)
    assert report is not None and report.outcome == "already-committed"
    assert report.sha == head and git(palace, "rev-parse", "HEAD").strip() == head
    assert list((palace / ".curator/journal").iterdir()) == []


def test_journal_reserves_pre_images_as_links_before_any_file_changes(palace: Path) -> None:
    """What a rollback needs is reserved before the action starts, without copying (a full
    disk cannot stop a rollback): each pre-image is a hard link to the file as it was."""
    before = snapshot(palace)
    run_killed(palace, "journaled")
    assert snapshot(palace) == before
    (journal,) = (palace / ".curator/journal").glob("*.json")
    entries = {e["path"]: e for e in json.loads(journal.read_text())["entries"]}
    assert entries["notes/d.md"]["backup"] is None  # no file there before
    for rel in ("notes/a.md", "INDEX.md", "inbox/d.md"):
        backup = journal.with_suffix("") / entries[rel]["backup"]
        assert backup.stat().st_ino == (palace / rel).stat().st_ino
    assert git(palace, "status", "--porcelain") == ""  # nothing of the action where git looks


def test_rollback_from_git_applies_its_filters(palace: Path) -> None:
    (palace / ".gitattributes").write_text("*.md text eol=crlf\n")
    git(palace, "add", ".gitattributes")
    git(palace, "commit", "-q", "--no-verify", "-m", "crlf")
    (palace / "notes/a.md").unlink()
    git(palace, "checkout", "--", "notes/a.md")  # checked out again, as CRLF
    crlf = (palace / "notes/a.md").read_bytes()
    assert b"\r\n" in crlf
    run_killed(palace, "file-done")
    assert (palace / "notes/a.md").read_bytes() == b"alpha v2\n"
    report = recover(palace)
    assert report is not None and report.outcome == "rolled-back"
    assert (palace / "notes/a.md").read_bytes() == crlf


def test_recovery_never_overwrites_a_hand_edit(palace: Path) -> None:
    run_killed(palace, "file-done")
    (palace / "notes/a.md").write_text("edited by hand after the crash\n")
    from curator.writer.apply import RecoveryError

    with pytest.raises(RecoveryError, match=r"notes/a\.md"):
        recover(palace)
    assert (palace / "notes/a.md").read_text() == "edited by hand after the crash\n"
    assert content_hash(b"x")  # keeps the import honest


def test_writer_lock_file_names_holder(palace: Path) -> None:
    with WriterLock(palace):
        assert (palace / ".curator/writer.lock").read_text().strip() == str(os.getpid())


def _has_object(root: Path, data: bytes) -> bool:
    sha = (
        subprocess.run(
            ["git", "hash-object", "--stdin"], cwd=root, input=data, capture_output=True, check=True
        )
        .stdout.decode()
        .strip()
    )
    return subprocess.run(["git", "cat-file", "-e", sha], cwd=root).returncode == 0


def test_a_large_tracked_file_is_committed_and_an_ignored_one_never_becomes_an_object(
    palace: Path,
) -> None:
    big_index = b"".join(
        b"- [Note %d](notes/n%d.md) - a line of the index\n" % (i, i) for i in range(8000)
    )
    (palace / "inbox/big.md").write_bytes(b"draft\n")
    secret_draft = b"token: not-for-git\n" * 20000  # > 256 KiB, in the git-ignored inbox
    plan = Plan(
        "edit",
        ("INDEX.md",),
        "r",
        "big",
        (
            Write.from_disk(palace, "INDEX.md", big_index),
            Write.from_disk(palace, "inbox/big.md", secret_draft),
        ),
        root=palace,
    )
    applied = apply_plan(palace, plan)
    shown = subprocess.run(
        ["git", "show", f"{applied.sha}:INDEX.md"], cwd=palace, capture_output=True, check=True
    ).stdout
    assert shown == big_index
    assert (palace / "inbox/big.md").read_bytes() == secret_draft
    assert not _has_object(palace, secret_draft)
    assert git(palace, "status", "--porcelain") == ""
    subprocess.run(["git", "fsck", "--no-progress"], cwd=palace, check=True, capture_output=True)
