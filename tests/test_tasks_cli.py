"""`curator task ...` as a person and as racing processes: exactly one of two racers wins,
the other is told who holds the task; a SIGKILL during a save leaves whole revisions only."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from palacehelpers import MakePalace, RunCli, git, run_main

from curator.tasks.checkpoint import SECTIONS, parse

SLUG = "demo"


def checkpoint_md(next_action: str = "run it", filler: str = "") -> str:
    body = {"next_action": next_action, "risks": filler + "END"}
    return "".join(f"## {title}\n\n{body.get(key, key)}\n\n" for key, title in SECTIONS)


@pytest.fixture
def palace(make_palace: MakePalace) -> Path:
    return make_palace({"notes/.keep": ""})


def cli(root: Path, *args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """`curator --palace ROOT task ARGS` in this process (`run_main`); the racers below are
    processes of their own."""
    done = run_main(root, "--palace", str(root), "task", *args, stdin=stdin)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.encode(),
                                       done.stderr.encode())  # fmt: skip


def test_cli_round_trip(palace: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CURATOR_AGENT", "alice")
    code, out, err = run_cli("--palace", palace, "task", "new", SLUG, "--objective", "Ship it")
    assert code == 0, err
    assert "created tasks/demo/0001.md" in out and "held by alice" in out
    monkeypatch.setattr("sys.stdin", _Stdin(checkpoint_md("write the test").encode()))
    code, out, err = run_cli("--palace", palace, "task", "save", SLUG, "--json")
    assert code == 0, err
    assert json.loads(out)["revision"] == 2
    code, out, _ = run_cli("--palace", palace, "task", "list", "--json")
    (row,) = json.loads(out)["tasks"]
    assert row["owner"] == "alice" and row["next_action"] == "write the test"
    code, out, err = run_cli("--palace", palace, "task", "claim", SLUG, "--as", "bob")
    assert code == 2 and "say which revision" in err
    code, _, err = run_cli(
        "--palace", palace, "task", "claim", SLUG, "--as", "bob", "--revision", "2"
    )
    assert code == 2 and "alice holds task 'demo'" in err
    code, out, _ = run_cli("--palace", palace, "task", "done", SLUG, "--json")
    assert code == 0 and json.loads(out)["header"]["status"] == "done"
    code, out, _ = run_cli("--palace", palace, "task", "history", SLUG, "--json")
    events = [r["event"] for r in json.loads(out)["revisions"]]
    assert events == ["new", "save", "done"]
    code, out, _ = run_cli("--palace", palace, "task", "history", SLUG, "--diff", "1", "2")
    assert "+write the test" in out and out.startswith("--- tasks/demo/0001.md")
    code, out, _ = run_cli("--palace", palace, "task", "list")
    assert out == ""  # done tasks are listed with --all only


class _Stdin:
    def __init__(self, data: bytes) -> None:
        import io

        self.buffer = io.BytesIO(data)

    def isatty(self) -> bool:
        return False


def test_request_from_stdin_is_kept_byte_for_byte(palace: Path) -> None:
    assert cli(palace, "new", SLUG, "--objective", "x", "--as", "alice").returncode == 0
    words = "Don't rename `login()`; **keep** [b]it[/b] \x1b[31mred\x1b[0m — ünïcode ✓\r\n".encode()
    proc = cli(palace, "request", SLUG, "--as", "alice", "--json", stdin=words)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["bytes"] == len(words)
    data = (palace / "tasks" / SLUG / "requests.md").read_bytes()
    assert words in data
    shown = json.loads(cli(palace, "show", SLUG, "--json", "--as", "alice").stdout)
    assert shown["requests"][0]["text"].encode() == words
    plain = cli(palace, "show", SLUG, "--as", "alice").stdout
    assert b"\x1b" not in plain  # the terminal never gets the words' escapes


RACER = """
import os, sys
from curator.cli import main
ready, go = int(sys.argv[1]), int(sys.argv[2])
os.write(ready, b"r")
os.close(ready)  # a racer that died before its write leaves the test reading b""
os.read(go, 1)  # blocks until the test closes the other end: every racer leaves at once
sys.exit(main(sys.argv[3:]))
"""


def race(root: Path, commands: list[list[str]], stdin: bytes = b"") -> list[tuple[int, str]]:
    """Run the commands in processes of their own, released together once every interpreter
    has imported curator and waits on one pipe (each with its own copy of `stdin`, read from
    a file, so no racer waits on the test to feed it)."""
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    procs = []
    try:
        for cmd in commands:
            with tempfile.TemporaryFile() as data:
                data.write(stdin)
                data.seek(0)
                argv = [sys.executable, "-c", RACER, str(ready_w), str(go_r)]
                procs.append(
                    subprocess.Popen(
                        [*argv, "--palace", str(root), "task", *cmd],
                        stdin=data,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE,
                        pass_fds=(ready_w, go_r),
                    )
                )
    finally:
        os.close(ready_w)
        os.close(go_r)
    try:
        ready = [os.read(ready_r, 1) for _ in procs]
    finally:
        os.close(ready_r)
        os.close(go_w)  # the racers go
    assert ready == [b"r"] * len(procs), [p.communicate() for p in procs]
    results = []
    for proc in procs:
        _, err = proc.communicate()
        results.append((proc.returncode, err.decode()))
    return results


def test_two_processes_racing_to_claim(palace: Path) -> None:
    assert cli(palace, "new", SLUG, "--objective", "x", "--as", "alice").returncode == 0
    for round_ in range(3):
        base = str(2 * round_ + 2)
        assert cli(palace, "release", SLUG, "--as", _holder(palace)).returncode == 0
        results = race(
            palace,
            [["claim", SLUG, "--as", who, "--revision", base] for who in ("bob", "carol")],
        )
        codes = sorted(code for code, _ in results)
        assert codes == [0, 2], results
        winner = _holder(palace)
        loser_err = next(err for code, err in results if code == 2)
        assert winner in loser_err and ("held by" in loser_err or "holds" in loser_err)
        assert len(os.listdir(palace / "tasks" / SLUG)) == int(base) + 1


def test_two_processes_racing_to_save(palace: Path) -> None:
    assert cli(palace, "new", SLUG, "--objective", "x", "--as", "alice").returncode == 0
    for n in range(1, 4):
        cmd = ["save", SLUG, "--as", "alice", "--revision", str(n)]
        results = race(palace, [cmd, cmd], stdin=checkpoint_md(f"step {n}").encode())
        assert sorted(code for code, _ in results) == [0, 2], results
        loser_err = next(err for code, err in results if code == 2)
        assert "alice" in loser_err and "read it again" in loser_err
    assert sorted(os.listdir(palace / "tasks" / SLUG)) == [
        "0001.md",
        "0002.md",
        "0003.md",
        "0004.md",
    ]


def _holder(root: Path) -> str:
    rows = json.loads(cli(root, "list", "--json").stdout)["tasks"]
    return str(rows[0]["owner"])


SAVER = """
import sys
from curator.tasks import TaskService
root, filler = sys.argv[1], "x" * 1_500_000
svc = TaskService(root)
md = "".join(f"## {t}\\n\\nbody {t}\\n\\n" for t in
             ["Objective", "Environment", "Where the work stands", "Next action",
              "Checks that remain", "Sources"]) + "## Risks\\n\\n" + filler + "END\\n"
print("ready", flush=True)
while True:
    svc.save("demo", "alice", md, base=svc.store.newest("demo"))
"""


def test_sigkill_during_save_leaves_old_or_new_revision(make_palace: MakePalace) -> None:
    root = make_palace({"notes/.keep": ""}, toml="[tasks]\ntracked = false\n")
    assert cli(root, "new", SLUG, "--objective", "x", "--as", "alice").returncode == 0
    for delay in (0.05, 0.13, 0.21, 0.37):
        proc = subprocess.Popen(
            [sys.executable, "-c", SAVER, str(root)], stdout=subprocess.PIPE, text=True
        )
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        folder = root / "tasks" / SLUG
        names = sorted(n for n in os.listdir(folder) if n.endswith(".md"))
        assert names == [f"{n:04d}.md" for n in range(1, len(names) + 1)]
        for name in names[1:]:
            cp = parse((folder / name).read_bytes())
            assert cp.section("risks").endswith("END"), name  # complete, never cut short
    assert len(names) > 1  # the kills did land between and during saves


def test_commits_per_policy(palace: Path) -> None:
    cli(palace, "new", SLUG, "--objective", "x", "--as", "alice")
    cli(palace, "save", SLUG, "--as", "alice", stdin=checkpoint_md().encode())
    cli(palace, "save", SLUG, "--as", "alice", stdin=checkpoint_md("b").encode())
    assert cli(palace, "release", SLUG, "--as", "alice").returncode == 0
    subjects = git(palace, "log", "--format=%s").stdout.splitlines()
    assert [s.split(":")[0] for s in subjects[:2]] == ["task-release", "task-new"]
    files = git(palace, "show", "--name-only", "--format=", "HEAD").stdout.split()
    assert files == [f"tasks/demo/000{n}.md" for n in (2, 3, 4)]
