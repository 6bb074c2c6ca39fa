"""Run one note's `verify.command` contained: policy, rlimits, clean env, optional bwrap.

A verify command comes from a note, and notes come from agents, so the command is untrusted.
It is never run through a shell; it runs only if the policy allows it; then in its own process
group with stdin closed, an environment holding nothing of ours (no API keys), a throwaway
HOME, a wall-clock limit that kills the whole group, CPU/memory/file-size rlimits set by a
helper process (`_limits.py`, not `preexec_fn`: callers have threads), output capped and
stripped of terminal escapes, and — where bubblewrap is installed — a read-only, network-less
sandbox (`sandbox.py`). Problems with the command become a RunResult; only programmer errors
raise.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from curator.audit import _limits, policy
from curator.audit.process import collect, kill_group, signal_name, user_task_count
from curator.audit.sandbox import SAFE_PATH, Sandbox, bwrap_args, find_bwrap, read_status_fd
from curator.model.text import clean

__all__ = ["SAFE_PATH", "RunLimits", "RunResult", "Sandbox", "clean_output", "run_command"]

Status = Literal["pass", "fail", "skipped", "error", "timeout", "killed"]

_HELPER = str(Path(_limits.__file__).resolve())
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


def clean_output(data: bytes) -> str:
    """Decode and strip terminal control sequences, so output cannot drive the terminal."""
    return clean(data.decode("utf-8", errors="replace"))


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

_ENV_BASE = {
    "PATH": SAFE_PATH,
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


class _Res(Protocol):
    def __call__(self, status: Status, reason: str, code: int | None = None) -> RunResult: ...


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


def _helper_argv(program: str, argv: list[str], limits: RunLimits) -> list[str]:
    """The rlimit helper's command line, ending in the program and its hardened arguments."""
    return [
        sys.executable, "-I", "-S", _HELPER,
        "--cpu", str(max(1, int(limits.cpu_seconds))),
        "--fsize", "0",
        "--core", "0",
        "--nproc", str(user_task_count() + limits.extra_processes),
        "--as", str(limits.memory_bytes),
        "--", program, *_harden_args(argv),
    ]  # fmt: skip


def run_command(
    argv: list[str],
    cwd: Path | str,
    *,
    allow: Sequence[str],
    limits: RunLimits = RunLimits(),
    expect: str | None = None,
    sandbox: Sandbox = "auto",
    root: Path | str | None = None,
    bwrap: str | None = None,
) -> RunResult:
    """Run `argv` (a note's verify.command) contained, in `cwd`, and say how it went.

    `cwd` is inside the scope's root (`root`, default `cwd`), already validated by the caller.
    `expect`, if given, is text the cleaned output must contain. `bwrap` is the bubblewrap
    executable to use (default: `bwrap` on the safe PATH). Never raises for anything the
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

    if sandbox == "none":
        bwrap = None
    else:
        bwrap = bwrap if bwrap is not None else find_bwrap()
        if bwrap is not None and not (os.path.isfile(bwrap) and os.access(bwrap, os.X_OK)):
            bwrap = None
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
    env = _ENV_BASE | {"HOME": home}
    helper = _helper_argv(program, argv, limits)
    status_r = status_w = -1
    command = helper
    pass_fds: tuple[int, ...] = ()
    if bwrap is not None:
        status_r, status_w = os.pipe()
        command = [
            *bwrap_args(bwrap, cwd, root, home, status_w, (str(Path(_HELPER).parent),)),
            *helper,
        ]
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
    captured, total, timed_out, flooded = collect(proc, limits)
    kill_group(proc.pid)  # also takes down children that outlived the program
    proc.stdout.close()
    returncode = proc.wait()
    truncated = total > limits.output_bytes
    output = clean_output(captured)

    def res(status: Status, reason: str, code: int | None = None) -> RunResult:
        return _result(
            status, reason, argv, start, exit_code=code, output=output, truncated=truncated
        )

    if bwrap is not None:
        code = _sandboxed_exit(read_status_fd(status_r), returncode, timed_out or flooded)
        if code is None:
            first = output.strip().splitlines()[:1]
            detail = f": {first[0]}" if first else ""
            return res("error", f"sandbox failed: bwrap could not set up the sandbox{detail}")
        returncode = code

    return _verdict(res, returncode, output, truncated, timed_out, flooded, limits, expect)


def _sandboxed_exit(statuses: list[dict[str, object]], returncode: int, killed: bool) -> int | None:
    """The command's exit status as bwrap reports it; None when the sandbox never started."""
    # bwrap reports "child-pid" before setting up mounts, but "exit-code" only when the
    # command itself ran; without it (and without our own kill) the sandbox never started.
    if not any("exit-code" in s for s in statuses) and not killed:
        return None
    codes = [c for s in statuses if isinstance(c := s.get("exit-code"), int)]
    if codes and returncode >= 0:
        returncode = codes[-1]
    # bwrap reports a child killed by signal N as exit code 128 + N
    if 128 < returncode < 128 + 65 and not killed:
        returncode = -(returncode - 128)
    return returncode


def _verdict(
    res: _Res, returncode: int, output: str, truncated: bool, timed_out: bool, flooded: bool,
    limits: RunLimits, expect: str | None,
) -> RunResult:  # fmt: skip
    """How the command went, from its exit status and output."""
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
            reason = f"killed by {signal_name(sig)} (possibly the {mem} MiB memory limit)"
        else:
            reason = f"killed by {signal_name(sig)}"
        return res("killed", reason)
    if returncode != 0:
        return res("fail", f"exited {returncode}", returncode)
    if expect is not None and expect not in output:
        note = f" (output truncated at {limits.output_bytes} bytes)" if truncated else ""
        return res("fail", f"output did not contain {expect!r}{note}", returncode)
    return res("pass", "exited 0", returncode)
