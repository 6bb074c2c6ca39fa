"""curator.memory: the malloc arena cap a searching process sets before LanceDB's threads."""

from __future__ import annotations

import sys

import pytest

from curator.memory import limit_malloc_arenas


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc only")
def test_arena_cap_is_set_once_and_reports_success() -> None:
    assert limit_malloc_arenas() is True
    assert limit_malloc_arenas() is True  # again: a no-op


TRIM_CHILD = """
import sys
from curator.memory import trim_heap

def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20

blocks = [bytearray(2048) for _ in range(40_000)]  # ~80 MB of malloc'd (not pymalloc) blocks
keep = bytearray(2048)  # allocated last, near the top: free() alone cannot shrink the heap
del blocks
before = rss_mb()
ok = trim_heap()
print(ok, before - rss_mb())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc only")
def test_trim_heap_returns_freed_memory_to_the_os() -> None:
    import subprocess

    out = subprocess.run(
        [sys.executable, "-c", TRIM_CHILD], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out[0] == "True"
    assert float(out[1]) > 40, f"trim gave back only {out[1]} MB"
