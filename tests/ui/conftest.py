"""App test fixtures."""

from __future__ import annotations

import pytest


@pytest.fixture
def planners() -> object:
    import curator.writer.planners

    return curator.writer.planners


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
