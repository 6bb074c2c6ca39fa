"""Process tuning, called once at start by the CLI (`curator.cli.main`) and the app
(`CuratorApp`), and the switch of every speed trick. A trick stays only while its benchmark
row, which measures it with and without in the same run, shows what it buys:

| trick    | where                          | row                                            |
| -------- | ------------------------------ | ---------------------------------------------- |
| arenas   | here                           | bench_app.py: app peak MB after the promotes   |
| gc       | ui/paint.py (collector)        | bench_app.py --screens-only: first paint rows  |
| css      | ui/paint.py (StyleMemo)        | bench_app.py --screens-only: first paint rows  |
| daemon   | ui/threads.py (DaemonExecutor) | bench_tuning.py: quit while the palace loads   |
| deferred | writer/actions/common.py       | bench_tuning.py: bulk plan (INDEX_DEFERRED)    |
| freeze   | here (`freeze_loaded`),        | bench_promote.py: promote without the freeze   |
|          | agents/settling.py (settle),   |                                                |
|          | cli/common.py (the imports)    |                                                |
| pause    | here (`collector_paused`)      | bench_core.py --whole --untuned: list, cold    |
| exit     | here (`quick_exit`), from      | bench_agents.py (warm): the installed command, |
|          | agents/__main__.py, cli (hook) | CPU without it                                 |
| trim     | here (`let_go`), from          | bench_peaks.py --untuned trim: promote peak    |
|          | session (`follow_index`)       | without it                                     |
| client   | agents/warm.py (the C modules  | bench_agents.py (warm): the installed command, |
|          | under socket and hashlib)      | CPU without it (with exit off too)             |

`CURATOR_NO_TUNING=1` turns off the tricks that have a switch (arenas, gc, css, freeze, pause,
exit, trim, client), or a comma list of their names only those; the benchmarks turn off the
other two from outside.

The arenas: glibc's malloc arenas capped at one. glibc gives each thread that allocates
under contention an arena of its own (up to eight per core); memory freed in one is not reused
by another, so LanceDB's query threads and the app's workers fragment the heap into hundreds
of MB that stay resident. benchmarks/bench_app.py prints the app's peak after 20 promotes at
10k notes with and without it (peak 484 MB against 736 MB with two, when this was written).
One rather than two: a warm server at 100k notes (bench_engine.py's warm peak) peaked at
645-649 MB with one against 671-686 MB with two (same load, ratios to the floor within the
noise), where LanceDB's buffers of each query land beside the palace and the ranker's caches.

`MALLOC_ARENA_MAX` in the environment (glibc's own switch) wins.

The freeze: a command that has loaded its palace holds it to its end, and every full
collection of the cyclic collector after the load scanned all its notes again (three in a
promote at 10k notes, ~200 ms of CPU; ~120 ms with the palace frozen).

The exit: a hook's process (one per prompt: the installed command, `curator hook`) ends with
`os._exit` once its output is flushed, skipping the interpreter's teardown of what it imported
(~6 ms of a warm prompt's ~35 ms of CPU; far more when it answered alone, with LanceDB loaded).

The trim: a command lets go of its palace before its search index follows a commit
(`let_go`), and glibc hands the pages it held back (`malloc_trim`) before LanceDB and the
embedder allocate: a promote at 100k notes peaked at 594 MB without it, 546 MB with it
(bench_peaks.py --untuned trim, medians of 2 each interleaved, load 7-8; CPU the same).

The client: a hook process that asks the warm server imports `_socket` and `_sha256` (the C
modules under `socket` and `hashlib`) and handles paths as strings (`curator.model.discovery`'s
string rules, which the `Path` functions wrap), not `socket`, `hashlib` and `pathlib`: with
the quick exit, a warm prompt's client CPU went 53.7 -> 29.3 ms (interleaved medians of 30,
load 12.8); the switch turns the modules back (the string paths stay: one rule each).

The pause: while a command loads its palace the collector is off. A load makes no cyclic
garbage (a palace's notes hold no cycles), yet every full collection during it scanned every
note loaded so far: at 100k notes 1,160 collections took 2.2 s of the load's 28 s of CPU.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Iterator

#: glibc's mallopt parameter number for the arena limit, and the limit curator sets
M_ARENA_MAX = -8
ARENAS = 1

_done = False


def tuned(trick: str) -> bool:
    """Whether `trick` (a name in the table above) is on: CURATOR_NO_TUNING is unset, or
    names other tricks."""
    off = os.environ.get("CURATOR_NO_TUNING", "").strip()
    return not off or (off != "1" and trick not in {t.strip() for t in off.split(",")})


def tune_process() -> bool:
    """Apply the tuning once per process; True when it is in force."""
    global _done
    if _done:
        return True
    if not tuned("arenas") or "MALLOC_ARENA_MAX" in os.environ:
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


def freeze_loaded() -> bool:
    """`gc.freeze()`: every object alive now (the palace a command has just loaded) leaves the
    cyclic collector's scans for the rest of the process; they are still freed by reference
    counting. For a command's short process, never the app's. True when applied."""
    if not tuned("freeze"):
        return False
    gc.freeze()
    return True


def let_go(*, collect: bool = True) -> None:
    """Give back the memory of what a command no longer holds (its palace, before its search
    index follows a commit: at 100k notes ~380 MB, else held beside LanceDB and the
    embedder): what `freeze_loaded` froze is collected again, then glibc hands its free
    pages back (`malloc_trim`), so the index's buffers do not land on top of them.
    `collect` False: nothing is held that only a full collection frees (a full one scans
    every object the imports made), only the free pages are handed back."""
    if collect:
        gc.unfreeze()
        gc.collect()
    if not tuned("trim") or not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


def quick_exit(code: int) -> None:
    """End the process now with `code`, without the interpreter's teardown, when the trick is
    on (the caller has flushed everything it wrote); else return. For a process entry's last
    line only: never a library call, nor a test's process."""
    if tuned("exit"):
        os._exit(code)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic collector off for the block (a command's palace load, never the app's: its
    other threads go on making garbage), and on again after it unless it was off before."""
    if not tuned("pause") or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
