"""Process plumbing for the audit runner: count a user's tasks, kill a whole process group,
and read a command's merged output within its wall-clock and output limits."""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from typing import Protocol

_GROUP_GONE_TIMEOUT = 2.0  # seconds to wait for a killed process group to disappear
_EXIT_GRACE = 0.2  # seconds to keep reading after the program exits (children may hold the pipe)


class OutputLimits(Protocol):
    @property
    def wall_seconds(self) -> float: ...
    @property
    def output_bytes(self) -> int: ...
    @property
    def drain_bytes(self) -> int: ...


def user_task_count() -> int:
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


def kill_group(pgid: int) -> None:
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


def signal_name(num: int) -> str:
    try:
        return signal.Signals(num).name
    except ValueError:
        return f"signal {num}"


def collect(proc: subprocess.Popen[bytes], limits: OutputLimits) -> tuple[bytes, int, bool, bool]:
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
