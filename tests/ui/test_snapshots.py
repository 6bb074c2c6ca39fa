"""Snapshots of each screen over a scratch copy of sample_palace, with a fixed 'today'."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from uihelpers import make_app, settle

pytestmark = pytest.mark.slow


def _go(key: str) -> Any:
    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        if key:
            await pilot.press(key)
        await settle(pilot)

    return run_before


@pytest.mark.parametrize("key", ["", "2", "3", "5"], ids=["inbox", "rooms", "audit", "history"])
def test_screen_snapshot(sample_palace: Path, snap_compare: Any, key: str) -> None:
    app = make_app(sample_palace, watch=False)
    assert snap_compare(app, terminal_size=(100, 30), run_before=_go(key))


def test_inbox_snapshot_80x24(sample_palace: Path, snap_compare: Any) -> None:
    app = make_app(sample_palace, watch=False)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_go(""))
