"""Run one note's `verify.command` contained: policy, rlimits, clean env, optional bwrap.

A verify command comes from a note, and notes come from agents, so the command is untrusted.
It is never run through a shell; it runs only if the policy allows it; then in its own process
group with stdin closed, an environment holding nothing of ours (no API keys), a throwaway
HOME, a wall-clock limit that kills the whole group, CPU/memory/file-size rlimits set by a
helper process (`_limits.py`, not `preexec_fn`: callers have threads), output capped and
stripped of terminal escapes, and — where bubblewrap is installed — a read-only, network-less
sandbox. Problems with the command become a RunResult; only programmer errors raise.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from curator.audit import _limits, policy

Status = Literal["pass", "fail", "skipped", "error", "timeout", "killed"]
Sandbox = Literal["auto", "bwrap", "none"]

SAFE_PATH = "/usr/bin:/bin"
#: Where bwrap is looked up; a module attribute so a test can pretend it is missing.
_SANDBOX_PATH = SAFE_PATH
#: bwrap options before the per-run binds; a module attribute so a test can break setup.
_BWRAP_BASE_ARGS: list[str] = [
    "--ro-bind", "/", "/",
    "--dev", "/dev",
    "--proc", "/proc",
    "--tmpfs", "/tmp",
    "--unshare-all",
    "--die-with-parent",
]  # fmt: skip
_HELPER = str(Path(_limits.__file__).resolve())
_GROUP_GONE_TIMEOUT = 2.0  # seconds to wait for a killed process group to disappear
_EXIT_GRACE = 0.2  # seconds to keep reading after the program exits (children may hold the pipe)
KiB = 1024
MiB = 1024 * KiB


@dataclass(frozen=True)
class RunLimits:
    """Resource limits for one command; defaults are what a daily audit should tolerate."""

    wall_seconds: float = 10.0
    cpu_seconds: int = 5
    memory_bytes: int = 512 * MiB
    output_bytes: int = 64 * KiB
    #: processes/threads the command may add to the user's current count (RLIMIT_NPROC is
    #: per user, so an absolute number would break for users already running many processes)
    extra_processes: int = 64
    #: output read and discarded past `output_bytes` before the command is killed
    drain_bytes: int = 16 * MiB


@dataclass(frozen=True)
class RunResult:
    """What happened; `reason` is a sentence a person can read in a report."""

    status: Status
    exit_code: int | None
    output: str
    truncated: bool
    reason: str
    duration: float
    argv: list[str] = field(default_factory=list)


# --- output cleaning ---------------------------------------------------------------------------

_ESCAPES = re.compile(
    r"""
      \x1b\][^\x07\x1b]*(?:\x07|\x1b\\|$)          # OSC … BEL/ST (or cut off)
    | \x1b[P_X^][^\x1b]*(?:\x1b\\|$)               # DCS, APC, SOS, PM … ST
    | (?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?            # CSI (7- and 8-bit)
    | \x1b[ -/]*[0-~]?                             # other ESC sequences, lone ESC
    | [\x00-\x08\x0b-\x1f\x7f-\x9f]                # C0 (not \t \n), DEL, C1
    | [\u200e\u200f\u202a-\u202e\u2066-\u2069]     # bidi controls that reorder what is shown
    """,
    re.VERBOSE,
)


def clean_output(data: bytes) -> str:
    """Decode and strip terminal control sequences, so output cannot drive the terminal."""
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n")
    return _ESCAPES.sub("", text)


# --- process helpers ---------------------------------------------------------------------------


def _user_task_count() -> int:
    """Tasks (processes and threads) of our real uid: what RLIMIT_NPROC counts."""
    uid = os.getuid()
    count = 0
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            if os.stat(f"/proc/{entry}").st_uid == uid:
                count += len(os.listdir(f"/proc/{entry}/task"))
        except OSError:
            continue
    return count


def _group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes whose process group is `pgid`."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        # fields after the parenthesised command name: state ppid pgrp …
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) >= 3 and fields[0] != b"Z" and int(fields[2]) == pgid:
            members.append(int(entry))
    return members


def _kill_group(pgid: int) -> None:
    """SIGKILL the whole group and wait until none of it is left running."""
    deadline = time.monotonic() + _GROUP_GONE_TIMEOUT
    while True:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)
        try:
            alive = _group_members(pgid)
        except OSError:  # no /proc: fall back to "kill succeeded"
            return
        if not alive or time.monotonic() > deadline:
            return
        time.sleep(0.01)


def _exited_unreaped(pid: int) -> bool:
    """True once the child exited; it stays a zombie so its pid (our pgid) cannot be reused."""
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return info is not None


def _signal_name(num: int) -> str:
    try:
        return signal.Signals(num).name
    except ValueError:
        return f"signal {num}"


def _read_status_fd(fd: int) -> list[dict[str, object]]:
    """bwrap's --json-status-fd lines (one JSON object per line, or pretty JSON objects)."""
    chunks = []
    os.set_blocking(fd, False)
    while True:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    text = b"".join(chunks).decode("utf-8", errors="replace")
    decoder = json.JSONDecoder()
    out: list[dict[str, object]] = []
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return out
        try:
            obj, pos = decoder.raw_decode(text, pos)
        except ValueError:
            return out
        if isinstance(obj, dict):
            out.append(obj)


def _result(
    status: Status, reason: str, argv: list[str], start: float, *,
    exit_code: int | None = None, output: str = "", truncated: bool = False,
) -> RunResult:  # fmt: skip
    return RunResult(
        status=status,
        exit_code=exit_code,
        output=output,
        truncated=truncated,
        reason=reason,
        duration=time.monotonic() - start,
        argv=list(argv),
    )


# --- the runner --------------------------------------------------------------------------------


def _harden_args(argv: list[str]) -> list[str]:
    """argv[1:], with git's diff machinery kept from running configured external programs.

    A repository's .git/config and .gitattributes can name `diff.external` or textconv drivers
    that `git diff`/`log`/`show` would run; `--no-ext-diff --no-textconv` switch them off.
    """
    args = argv[1:]
    if argv[0] != "git":
        return args
    for i, arg in enumerate(args):
        if not arg.startswith("-"):
            if arg in ("diff", "log", "show"):
                return [*args[: i + 1], "--no-ext-diff", "--no-textconv", *args[i + 1 :]]
            break
    return args


def _bwrap_args(bwrap: str, cwd: Path, root: Path, home: str, status_fd: int) -> list[str]:
    args = [bwrap, *_BWRAP_BASE_ARGS]
    # --tmpfs /tmp hides anything under /tmp: bring back what the command needs.
    needed = {str(root), str(Path(_HELPER).parent), sys.prefix, sys.base_prefix}
    for path in sorted(needed):
        if path == "/tmp" or path.startswith("/tmp/"):
            args += ["--ro-bind", path, path]
    args += ["--bind", home, home, "--chdir", str(cwd), "--json-status-fd", str(status_fd)]
    return [*args, "--"]


def run_command(
    argv: list[str],
    cwd: Path | str,
    *,
    allow: Sequence[str],
    limits: RunLimits = RunLimits(),
    expect: str | None = None,
    sandbox: Sandbox = "auto",
    root: Path | str | None = None,
) -> RunResult:
    """Run `argv` (a note's verify.command) contained, in `cwd`, and say how it went.

    `cwd` is inside the scope's root (`root`, default `cwd`), already validated by the caller.
    `expect`, if given, is text the cleaned output must contain. Never raises for anything the
    command does; raises TypeError/ValueError for a malformed argv, cwd or sandbox setting.
    """
    start = time.monotonic()
    policy.validate_argv(argv)
    if sandbox not in ("auto", "bwrap", "none"):
        raise ValueError(f"sandbox must be 'auto', 'bwrap' or 'none', not {sandbox!r}")
    cwd = Path(cwd)
    root = Path(root) if root is not None else cwd
    if not cwd.is_absolute() or not cwd.is_dir():
        raise ValueError(f"cwd must be an existing absolute directory: {cwd}")

    decision = policy.check(argv, allow)
    if not decision.allowed:
        return _result("skipped", f"skipped by policy: {decision.reason}", argv, start)

    program = shutil.which(argv[0], path=SAFE_PATH)
    if program is None or not os.path.isabs(program):
        return _result("error", f"{argv[0]} was not found in {SAFE_PATH}", argv, start)

    bwrap: str | None = None
    if sandbox != "none":
        bwrap = shutil.which("bwrap", path=_SANDBOX_PATH)
        if bwrap is None and sandbox == "bwrap":
            return _result(
                "error", "sandbox failed: bwrap is required but not installed", argv, start
            )

    home = tempfile.mkdtemp(prefix="curator-audit-home-")
    try:
        return _run(argv, program, cwd, root, home, bwrap, limits, expect, start)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _run(
    argv: list[str], program: str, cwd: Path, root: Path, home: str, bwrap: str | None,
    limits: RunLimits, expect: str | None, start: float,
) -> RunResult:  # fmt: skip
    env = {
        "PATH": SAFE_PATH,
        "HOME": home,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_TERMINAL_PROMPT": "0",
        "LC_ALL": "C",
        # `git status` would otherwise rewrite .git/index to refresh stat data: a write that
        # RLIMIT_FSIZE kills (and a read-only check should not make anyway).
        "GIT_OPTIONAL_LOCKS": "0",
        # The repository's own .git/config is not ours to trust: core.fsmonitor would run a
        # program on `git status`. Command-line-level config (highest priority) turns it off.
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "core.fsmonitor",
        "GIT_CONFIG_VALUE_0": "false",
    }
    helper = [
        sys.executable, "-I", "-S", _HELPER,
        "--cpu", str(max(1, int(limits.cpu_seconds))),
        "--fsize", "0",
        "--core", "0",
        "--nproc", str(_user_task_count() + limits.extra_processes),
        "--as", str(limits.memory_bytes),
        "--", program, *_harden_args(argv),
    ]  # fmt: skip
    status_r = status_w = -1
    command = helper
    pass_fds: tuple[int, ...] = ()
    if bwrap is not None:
        status_r, status_w = os.pipe()
        command = [*_bwrap_args(bwrap, cwd, root, home, status_w), *helper]
        pass_fds = (status_w,)
    try:
        proc = subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
            pass_fds=pass_fds,
        )
    except OSError as exc:
        if bwrap is not None:
            os.close(status_r)
            os.close(status_w)
            return _result("error", f"sandbox failed: could not start bwrap: {exc}", argv, start)
        return _result("error", f"could not start the command: {exc}", argv, start)
    if status_w >= 0:
        os.close(status_w)

    assert proc.stdout is not None
    captured, total, timed_out, flooded = _collect(proc, limits)
    _kill_group(proc.pid)  # also takes down children that outlived the program
    proc.stdout.close()
    returncode = proc.wait()
    truncated = total > limits.output_bytes
    output = clean_output(captured)

    def res(status: Status, reason: str, code: int | None = None) -> RunResult:
        return _result(
            status, reason, argv, start, exit_code=code, output=output, truncated=truncated
        )

    if bwrap is not None:
        statuses = _read_status_fd(status_r)
        # bwrap reports "child-pid" before setting up mounts, but "exit-code" only when the
        # command itself ran; without it (and without our own kill) the sandbox never started.
        if not any("exit-code" in s for s in statuses) and not (timed_out or flooded):
            first = output.strip().splitlines()[:1]
            detail = f": {first[0]}" if first else ""
            return res("error", f"sandbox failed: bwrap could not set up the sandbox{detail}")
        codes = [c for s in statuses if isinstance(c := s.get("exit-code"), int)]
        if codes and returncode >= 0:
            returncode = codes[-1]
        # bwrap reports a child killed by signal N as exit code 128 + N
        if 128 < returncode < 128 + 65 and not timed_out:
            returncode = -(returncode - 128)

    if timed_out:
        return res("timeout", f"killed after {limits.wall_seconds:g} s wall-clock limit")
    if flooded:
        return res("killed", f"killed after more than {limits.drain_bytes} bytes of output")
    if returncode == _limits.EXIT_SETUP and output.startswith(_limits.MARKER):
        return res("error", f"could not start the command: {output.strip()}", returncode)
    if returncode < 0:
        sig = -returncode
        if sig in (signal.SIGXCPU, signal.SIGKILL):
            cpu = f"CPU limit exceeded ({limits.cpu_seconds} s)"
            reason = cpu if sig == signal.SIGXCPU else f"killed by SIGKILL (likely {cpu})"
        elif sig == signal.SIGXFSZ:
            reason = "killed for writing a file (file size limit is 0)"
        elif sig in (signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS):
            mem = limits.memory_bytes // MiB
            reason = f"killed by {_signal_name(sig)} (possibly the {mem} MiB memory limit)"
        else:
            reason = f"killed by {_signal_name(sig)}"
        return res("killed", reason)
    if returncode != 0:
        return res("fail", f"exited {returncode}", returncode)
    if expect is not None and expect not in output:
        note = f" (output truncated at {limits.output_bytes} bytes)" if truncated else ""
        return res("fail", f"output did not contain {expect!r}{note}", returncode)
    return res("pass", "exited 0", returncode)


def _collect(proc: subprocess.Popen[bytes], limits: RunLimits) -> tuple[bytes, int, bool, bool]:
    """Read merged output until EOF, the wall limit, or too much output.

    Keeps at most `output_bytes`; drains the rest (so the program is not blocked on a full
    pipe and its exit code stays meaningful) up to `drain_bytes`. Returns
    (captured, total bytes seen, timed out, flooded).
    """
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    deadline = time.monotonic() + limits.wall_seconds
    buf = bytearray()
    total = 0
    eof = timed_out = flooded = False
    exited_at: float | None = None
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while True:
            now = time.monotonic()
            if exited_at is None and _exited_unreaped(proc.pid):
                exited_at = now
            if eof and exited_at is not None:
                break
            if exited_at is not None and now - exited_at > _EXIT_GRACE:
                break  # the program is done; children still holding the pipe get killed
            if now >= deadline:
                timed_out = exited_at is None
                break
            wait = min(deadline - now, 0.05)
            if eof:
                time.sleep(wait)
                continue
            if not sel.select(wait):
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                eof = True
                sel.unregister(fd)
                continue
            total += len(chunk)
            room = limits.output_bytes - len(buf)
            if room > 0:
                buf += chunk[:room]
            if total > limits.output_bytes + limits.drain_bytes:
                flooded = True
                break
    return bytes(buf), total, timed_out, flooded
