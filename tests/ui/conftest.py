"""App test fixtures."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from palacehelpers import DEFAULT_TOML, MakePalace


@pytest.fixture
def sample_palace(indexed_palace: Path) -> Path:
    """For the app, sample_palace comes with its search index built (copied from the one built
    once per session), so a test starts the app without building it; the first build is the
    subject of tests/test_index_progress.py and test_perf_behaviour."""
    return indexed_palace


@pytest.fixture
def make_palace(make_palace: MakePalace, default_index: Path) -> MakePalace:
    """For the app, a palace made with the default palace.toml and no .curator/ of its own
    comes with a built index of the default embedder (one note, built once per session), so
    the app's first sync is an incremental one in the test's process instead of a build in a
    child process."""

    def make(files: Any, *, toml: str | None = DEFAULT_TOML, **kwargs: Any) -> Path:
        root = make_palace(files, toml=toml, **kwargs)
        if toml == DEFAULT_TOML and not (root / ".curator").exists():  # none planted
            shutil.copytree(default_index, root / ".curator", symlinks=True)
        return root

    return make


@pytest.fixture
def planners() -> object:
    import curator.writer.actions.reject

    return curator.writer.actions.reject


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
