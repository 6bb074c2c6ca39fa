"""The cyclic collector around a promote or an undo planned from the search index (issue 34):
the plan is made with the collector off (what the planning reads, LanceDB's import and the
index's palace, would otherwise be scanned by several full collections), and the index follows
the commit without a full collection when the command held no palace (the young collection
when the collector is on again freed what the planning left)."""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from palacehelpers import MakePalace, RunCli
from test_promote_from_index import DRAFT, root  # noqa: F401  (the fixture)

import curator.search.cold as cold


@pytest.fixture
def planned_with(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Whether the collector was on each time a plan read the index's palace."""
    seen: list[bool] = []
    real = cold.indexed_palace

    def looked(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(cold, "indexed_palace", looked)
    yield seen


@pytest.fixture
def frozen_before(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[bool, int]]]:
    """(LanceDB imported, objects frozen) each time a plan read the index's palace; this
    process's objects unfrozen before and after."""
    seen: list[tuple[bool, int]] = []
    real = cold.indexed_palace

    def looked(*args: Any, **kwargs: Any) -> Any:
        seen.append(("lancedb" in sys.modules, gc.get_freeze_count()))
        return real(*args, **kwargs)

    monkeypatch.setattr(cold, "indexed_palace", looked)
    gc.unfreeze()
    try:
        yield seen
    finally:
        gc.unfreeze()


def test_a_promote_and_its_undo_plan_with_the_collector_off(
    root: Path,  # noqa: F811
    run_cli: RunCli,
    planned_with: list[bool],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, _, err = run_cli("--palace", root, "promote", DRAFT, "--yes")
    assert code == 0, err
    code, _, err = run_cli("--palace", root, "undo", "--yes")
    assert code == 0, err
    assert planned_with == [False, False] and gc.isenabled()
    monkeypatch.setenv("CURATOR_NO_TUNING", "pause")  # the switch of the pause
    code, _, err = run_cli("--palace", root, "promote", DRAFT, "--yes")
    assert code == 0, err
    assert planned_with[-1] is True


def test_the_index_follows_without_a_full_collection_when_no_palace_was_held(
    root: Path,  # noqa: F811
    run_cli: RunCli,
    make_palace: MakePalace,
) -> None:
    """What is frozen stays frozen (a full collection unfreezes it first): a command that
    planned from the index holds no palace for `let_go` to free; one that loaded its palace
    lets go of it as before."""
    gc.freeze()
    try:
        code, _, err = run_cli("--palace", root, "promote", DRAFT, "--yes")
        assert code == 0, err
        assert gc.get_freeze_count() > 0
        code, _, err = run_cli("--palace", root, "retire", "note-0", "--reason", "old", "--yes")
        assert code == 0, err
        assert gc.get_freeze_count() == 0  # retire loads its palace: let go of, collected
    finally:
        gc.unfreeze()


def test_a_plan_from_the_index_freezes_the_imports_before_it_reads_the_palace(
    root: Path,  # noqa: F811
    run_cli: RunCli,
    frozen_before: list[tuple[bool, int]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """LanceDB's objects are frozen before the index's palace is made, so the collection
    when the collector is on again scans the palace, not them; CURATOR_NO_TUNING=freeze
    turns that off."""
    code, _, err = run_cli("--palace", root, "promote", DRAFT, "--yes")
    assert code == 0, err
    imported, frozen = frozen_before[-1]
    assert imported and frozen > 0
    gc.unfreeze()
    monkeypatch.setenv("CURATOR_NO_TUNING", "freeze")
    code, _, err = run_cli("--palace", root, "undo", "--yes")
    assert code == 0, err
    assert frozen_before[-1][1] == 0
