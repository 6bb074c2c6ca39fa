"""curator.memory: the malloc arena cap a searching process sets before LanceDB's threads."""

from __future__ import annotations

import sys

import pytest

from curator.memory import limit_malloc_arenas


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc only")
def test_arena_cap_is_set_once_and_reports_success() -> None:
    assert limit_malloc_arenas() is True
    assert limit_malloc_arenas() is True  # again: a no-op
