"""Process tuning, in one place, called once at start by the CLI (`curator.cli.main`) and the
app (`CuratorApp`). Each setting here stays only while a benchmark row shows what it buys.

One setting: glibc's malloc arenas capped at two. glibc gives each thread that allocates
under contention an arena of its own (up to eight per core); memory freed in one is not reused
by another, so LanceDB's query threads and the app's workers fragment the heap into hundreds
of MB that stay resident. benchmarks/bench_app.py prints the app's peak after 20 promotes at
10k notes with and without it (peak 484 MB against 736 MB when this was written).

`MALLOC_ARENA_MAX` in the environment (glibc's own switch) wins; `CURATOR_NO_TUNING=1` turns
the tuning off, which is how the benchmark measures its baseline.
"""

from __future__ import annotations

import os
import sys

#: glibc's mallopt parameter number for the arena limit, and the limit curator sets
M_ARENA_MAX = -8
ARENAS = 2

_done = False


def tune_process() -> bool:
    """Apply the tuning once per process; True when it is in force."""
    global _done
    if _done:
        return True
    if os.environ.get("CURATOR_NO_TUNING") or "MALLOC_ARENA_MAX" in os.environ:
        return False
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # only on Linux, and only here

    try:
        libc = ctypes.CDLL("libc.so.6")
        _done = bool(libc.mallopt(M_ARENA_MAX, ARENAS))
    except (OSError, AttributeError):  # not glibc (musl has no mallopt of this kind)
        return False
    return _done
