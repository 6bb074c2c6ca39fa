"""The child side of the kill tests: a Python audit hook that counts the file-system and process
events a writer goes through and SIGKILLs the process at the k-th one (test_writer_crashpoints,
test_sync_faults). `labels` names each event counted (a git command by its subcommand)."""

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

AUDIT_KILL = """
import os, signal
WRITES = os.O_WRONLY | os.O_RDWR | os.O_CREAT
EVENTS = {"os.rename", "os.remove", "os.link", "os.mkdir", "os.rmdir", "subprocess.Popen"}
seen = 0
labels = []

def audit(event, args):
    global seen
    if event == "open":
        flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
        mode = args[1] if len(args) > 1 and isinstance(args[1], str) else ""
        if not (flags & WRITES or any(c in mode for c in "wax+")):
            return
    elif event not in EVENTS:
        return
    seen += 1
    if event == "subprocess.Popen":
        argv = list(args[1]) if len(args) > 1 else []
        labels.append("git " + next((str(a) for a in argv[1:] if not str(a).startswith("-")), ""))
    else:
        labels.append(event + " " + os.path.basename(str(args[0])))
    if seen == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
"""

FORK_SERVER = """
import json, os, sys, traceback
sys.path.insert(0, {repo!r})
for name in {preload!r}:
    __import__(name)
script = {script!r}
code = compile(script, "<child>", "exec")
for line in sys.stdin:
    job = json.loads(line)
    pid = os.fork()
    if pid == 0:
        status = 0
        try:
            for fd, path in ((1, job["out"]), (2, job["err"])):
                os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
            sys.argv = ["<child>", *job["argv"]]
            exec(code, {{"__name__": "__main__"}})
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            traceback.print_exc()
            status = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    _, wait = os.waitpid(pid, 0)
    print(os.waitstatus_to_exitcode(wait), flush=True)
"""


class Forker:
    """Runs `script` as `python -c script *argv` would, each run in a child forked from one
    interpreter that has already imported `preload` (curator's writer): a real process, killed
    for real, without an interpreter start and curator's imports per run. The script's own
    imports are then lookups; what it does after them happens in the child only."""

    def __init__(self, script: str, preload: tuple[str, ...], scratch: Path) -> None:
        source = FORK_SERVER.format(repo=str(REPO_ROOT), preload=preload, script=script)
        self.scratch = scratch
        self.server = subprocess.Popen(
            [sys.executable, "-c", source],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        out, err = self.scratch / "child.out", self.scratch / "child.err"
        assert self.server.stdin is not None and self.server.stdout is not None
        self.server.stdin.write(json.dumps({"argv": argv, "out": str(out), "err": str(err)}))
        self.server.stdin.write("\n")
        self.server.stdin.flush()
        reply = self.server.stdout.readline()
        assert reply, f"the fork server exited ({self.server.wait()})"
        return subprocess.CompletedProcess(argv, int(reply), out.read_text(), err.read_text())

    def close(self) -> None:
        assert self.server.stdin is not None
        self.server.stdin.close()
        self.server.wait(60)


@contextmanager
def forker(script: str, preload: tuple[str, ...], scratch: Path) -> Iterator[Forker]:
    runner = Forker(script, preload, scratch)
    try:
        yield runner
    finally:
        runner.close()
