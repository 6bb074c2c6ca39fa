"""App test fixtures."""

from __future__ import annotations

import pytest


@pytest.fixture
def planners() -> object:
    return pytest.importorskip("curator.writer.planners")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run this folder's async tests on asyncio through anyio's pytest plugin."""
    for item in items:
        if "tests/ui/" in str(item.fspath) and getattr(item, "obj", None) is not None:
            import inspect

            if inspect.iscoroutinefunction(item.obj):
                item.add_marker(pytest.mark.anyio)
