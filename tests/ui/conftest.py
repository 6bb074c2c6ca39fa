"""App test fixtures."""

from __future__ import annotations

import pytest


@pytest.fixture
def planners() -> object:
    return pytest.importorskip("curator.writer.planners")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
