"""`curator audit`: exit codes, human and JSON output, --last, --changed-since, --dry-run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from palacehelpers import MakePalace, RunCli, git, note_text

TOML = '[palace]\nname = "cli palace"\n\n[scopes.app]\nroot = "project"\n'


def vnote(name: str, verify: str) -> str:
    return note_text(name, extra=f"scope: app\nverify: {verify}\n")


def commits(root: Path) -> int:
    return int(git(root, "rev-list", "--count", "HEAD").stdout.strip())


@pytest.fixture
def root(make_palace: MakePalace) -> Path:
    return make_palace(
        {
            "project/README.md": "hello\n",
            "notes/ok.md": vnote("Ok", "{paths: [README.md]}"),
            "notes/gone.md": vnote("Gone", "{paths: [gone.txt]}"),
            "notes/esc.md": vnote("Esc", r'{paths: ["\e]0;title\abad\e[2J.txt"]}'),
            "notes/policy.md": vnote("Policy", "{command: [sh, -c, 'echo red']}"),
            "inbox/draft.md": vnote("Draft", "{paths: [nothing]}"),
        },
        toml=TOML,
    )


def test_audit_marks_stale_exits_1_and_reruns_quietly(root: Path, run_cli: RunCli) -> None:
    before = commits(root)
    code, out, err = run_cli("--palace", root, "audit", "--yes")
    assert code == 1, (out, err)
    assert "FAIL     notes/gone.md: missing: gone.txt" in out
    assert (
        "SKIPPED  notes/policy.md: skipped by policy: sh is not on the allowlist [refused]" in out
    )
    assert "stale    notes/gone.md" in out
    assert "FAIL     notes/esc.md: missing: bad.txt" in out
    assert "\x1b" not in (root / "notes" / "esc.md").read_text()
    assert "3 of 4 checked" in out and "committed" in out
    assert "\x1b" not in out and "\x1b" not in err
    assert "draft" not in out
    assert commits(root) == before + 1
    code, out, _ = run_cli("--palace", root, "audit", "--yes")
    assert code == 1 and "no changes: nothing to commit" in out
    assert commits(root) == before + 1
    (root / "project" / "gone.txt").write_text("here\n")
    code, out, _ = run_cli("--palace", root, "audit", "--yes")
    assert code == 1, out  # esc.md still fails
    assert "cleared  notes/gone.md" in out
    assert commits(root) == before + 2


def test_json_and_last(root: Path, run_cli: RunCli) -> None:
    code, out, _ = run_cli("--palace", root, "audit", "--yes", "--json")
    data = json.loads(out)
    assert code == 1 and data["exit_code"] == 1
    assert data["counts"]["fail"] == 2 and data["counts"]["skipped"] == 1
    assert data["changes"][1] == {
        "path": "notes/gone.md", "kind": "stale", "reason": "missing: gone.txt",
        "since": data["today"],
    }  # fmt: skip
    policy = next(r for r in data["results"] if r["path"] == "notes/policy.md")
    assert policy["command"]["contained"] == "refused"
    code, last, _ = run_cli("--palace", root, "audit", "--last", "--json")
    assert code == 0 and json.loads(last)["run_id"] == data["run_id"]
    code, text, _ = run_cli("--palace", root, "audit", "--last")
    assert code == 0 and data["run_id"] in text and "missing: gone.txt" in text


def test_last_without_a_report(root: Path, run_cli: RunCli) -> None:
    code, _, err = run_cli("--palace", root, "audit", "--last")
    assert code == 2 and "no audit report yet" in err


def test_nothing_checked_exits_2(make_palace: MakePalace, run_cli: RunCli) -> None:
    root = make_palace({"notes/plain.md": note_text("Plain")}, toml=TOML)
    code, out, _ = run_cli("--palace", root, "audit", "--yes")
    assert code == 2 and "checked nothing" in out and "ok" not in out.split()


def test_only_policy_skips_is_checked_nothing(make_palace: MakePalace, run_cli: RunCli) -> None:
    root = make_palace({"notes/p.md": vnote("P", "{command: [rm, -rf, /]}")}, toml=TOML)
    code, out, _ = run_cli("--palace", root, "audit", "--yes")
    assert code == 2 and out.splitlines()[-1].startswith("checked nothing")


def test_refs_drafts_and_bad_input(root: Path, run_cli: RunCli) -> None:
    code, out, _ = run_cli("--palace", root, "audit", "--yes", "ok")
    assert code == 0 and "1 of 1 checked" in out
    code, _, err = run_cli("--palace", root, "audit", "--yes", "inbox/draft.md")
    assert code == 2 and "drafts are never audited" in err
    code, _, err = run_cli("--palace", root, "audit", "--yes", "--changed-since", "--output=x")
    assert code == 2
    code, _, err = run_cli("--palace", root, "audit", "--yes", "--changed-since", "nope")
    assert code == 2 and "not a commit" in err
    code, _, _ = run_cli("--palace", root, "audit", "--yes", "--jobs", "0")
    assert code == 2


def test_changed_since(root: Path, run_cli: RunCli) -> None:
    path = root / "notes" / "ok.md"
    path.write_text(path.read_text() + "edit\n")
    git(root, "commit", "-qam", "edit ok")
    code, out, _ = run_cli(
        "--palace", root, "audit", "--yes", "--changed-since", "HEAD~1", "--json"
    )
    data = json.loads(out)
    assert code == 0 and [r["path"] for r in data["results"]] == ["notes/ok.md"]


def test_dry_run_writes_nothing(root: Path, run_cli: RunCli) -> None:
    before = commits(root)
    code, out, _ = run_cli("--palace", root, "audit", "--dry-run")
    assert code == 1 and "dry run: nothing written" in out and "+stale:" in out
    assert commits(root) == before
    assert not (root / ".curator" / "audit").exists()


def test_progress_line_only_on_a_terminal(root: Path) -> None:
    """Through a pipe there is no progress line; on a pty there is."""
    env = {**os.environ, "CURATOR_PALACE": str(root)}
    proc = subprocess.run(
        [sys.executable, "-m", "curator", "audit", "--dry-run"],
        capture_output=True, text=True, env=env, cwd=root,
    )  # fmt: skip
    assert proc.returncode == 1 and "audit 1/" not in proc.stderr
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # child: stderr (and stdout) are the pty
        os.environ["CURATOR_PALACE"] = str(root)
        os.execv(sys.executable, [sys.executable, "-m", "curator", "audit", "--dry-run"])
    chunks = []
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    _, status = os.waitpid(pid, 0)
    text = b"".join(chunks).decode("utf-8", "replace")
    assert os.waitstatus_to_exitcode(status) == 1
    assert "audit 4/4" in text


def test_check_and_report_say_once_when_commands_run_unsandboxed(
    make_palace: MakePalace, run_cli: RunCli
) -> None:
    toml = TOML + '\n[audit]\nsandbox = "none"\nallow = ["ls"]\n'
    root = make_palace(
        {"project/README.md": "hi\n", "notes/ls.md": vnote("Ls", "{command: [ls, README.md]}")},
        toml=toml,
    )
    _, out, _ = run_cli("--palace", str(root), "check")
    assert out.count("without the bubblewrap sandbox") == 1, out
    assert "[audit-unsandboxed]" in out
    _code, out, _ = run_cli("--palace", str(root), "audit", "--yes", "--json")
    report = json.loads(out)
    assert "sandbox" in report["sandbox_notice"]
    assert report["summary"].count("without the bubblewrap sandbox") == 1


def test_check_says_nothing_of_the_sandbox_without_verify_commands(
    make_palace: MakePalace, run_cli: RunCli
) -> None:
    toml = TOML + '\n[audit]\nsandbox = "none"\n'
    root = make_palace({"notes/a.md": vnote("A", "{paths: [x]}")}, toml=toml)
    _code, out, _ = run_cli("--palace", str(root), "check")
    assert "sandbox" not in out


def test_audit_asks_before_committing_as_every_committing_command_does(
    root: Path, run_cli: RunCli
) -> None:
    before = commits(root)
    code, _, err = run_cli("--palace", root, "audit")
    assert code == 2
    assert "--yes" in err
    assert commits(root) == before  # refused: nothing committed, no report saved
    assert not (root / ".curator" / "audit" / "latest.json").exists()
