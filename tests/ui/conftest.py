"""App test fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def sample_palace(indexed_palace: Path) -> Path:
    """For the app, sample_palace comes with its search index built (copied from the one built
    once per session), so a test starts the app without building it; the first build is the
    subject of tests/test_index_progress.py and test_perf_behaviour."""
    return indexed_palace


@pytest.fixture
def planners() -> object:
    import curator.writer.planners

    return curator.writer.planners


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
