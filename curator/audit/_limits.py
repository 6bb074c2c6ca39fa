"""Exec helper: set rlimits in a fresh process, then become the audited program.

Why a helper and not `preexec_fn`: the app calling the runner has threads, and running Python
between fork and exec in a threaded process can deadlock. The runner starts this file as
`python -I -S /path/_limits.py --cpu N --as N --fsize N --nproc N --core N -- /abs/prog args…`
(isolated, no site: it must not depend on PYTHONPATH or the venv, so it imports only the
standard library). RLIMIT_AS is set last, after Python has started, just before exec.
On any failure it prints `curator-limits: …` and exits with EXIT_SETUP.
"""

from __future__ import annotations

import os
import resource
import signal
import sys

EXIT_SETUP = 125
MARKER = "curator-limits:"

_LIMITS = {
    "--cpu": resource.RLIMIT_CPU,
    "--fsize": resource.RLIMIT_FSIZE,
    "--nproc": resource.RLIMIT_NPROC,
    "--core": resource.RLIMIT_CORE,
    "--as": resource.RLIMIT_AS,  # keep last: applied after everything else
}


def _fail(message: str) -> int:
    sys.stderr.write(f"{MARKER} {message}\n")
    sys.stderr.flush()
    return EXIT_SETUP


def _set(which: int, value: int, hard_extra: int = 0) -> None:
    """Lower soft and hard limits to `value` (hard: value + hard_extra), never raising hard."""
    _, old_hard = resource.getrlimit(which)
    hard = value + hard_extra
    if old_hard != resource.RLIM_INFINITY:
        hard = min(hard, old_hard)
    resource.setrlimit(which, (min(value, hard), hard))


def main(argv: list[str]) -> int:
    """Parse `--name N` pairs up to `--`, set the limits, exec the rest; return only on error."""
    values: dict[str, int] = {}
    i = 0
    while i < len(argv) and argv[i] != "--":
        if argv[i] not in _LIMITS or i + 1 >= len(argv):
            return _fail(f"bad argument {argv[i]!r}")
        try:
            values[argv[i]] = int(argv[i + 1])
        except ValueError:
            return _fail(f"bad value for {argv[i]}: {argv[i + 1]!r}")
        i += 2
    command = argv[i + 1 :]
    if not command or not os.path.isabs(command[0]):
        return _fail("expected -- /absolute/program [args...]")
    # Python ignores SIGPIPE and SIGXFSZ; ignored signals survive exec, and we want a write past
    # RLIMIT_FSIZE (or to a closed pipe) to kill the program the ordinary way.
    for sig in (signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(sig, signal.SIG_DFL)
    try:
        for flag, which in _LIMITS.items():
            if flag in values:
                # CPU: SIGXCPU at the soft limit, SIGKILL one second later if it is caught.
                _set(which, values[flag], hard_extra=1 if flag == "--cpu" else 0)
    except (OSError, ValueError) as exc:
        return _fail(f"could not set limits: {exc}")
    try:
        os.execv(command[0], command)
    except OSError as exc:
        return _fail(f"could not execute {command[0]}: {exc.strerror or exc}")
    return EXIT_SETUP  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
