"""Keep the app's memory in check: glibc gives each thread that allocates under contention its
own malloc arena (up to 8 per core), and memory freed in one arena is not reused by another.
The app's worker threads (palace loads, searches, index syncs) would otherwise fragment the
heap into hundreds of MB that stay resident; two arenas keep the main thread's apart."""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

M_ARENA_MAX = -8  # glibc mallopt parameter
ARENAS = 2


def limit_malloc_arenas(arenas: int = ARENAS) -> bool:
    """Cap glibc's malloc arenas for threads started from now on; False where not glibc."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return bool(libc.mallopt(M_ARENA_MAX, arenas))
    except (OSError, AttributeError):
        return False
