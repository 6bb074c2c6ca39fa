"""The `indexed_palace` fixture's premise: a palace copied with its built index elsewhere finds
the index current (rows keyed by relative path and content hash), so nothing is re-embedded."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from palacehelpers import MakePalace, note_text

pytestmark = pytest.mark.slow


def test_a_copied_index_is_current(indexed_palace: Path, indexed_sample: Path) -> None:
    from curator.model.palace import Palace
    from curator.search.index import docs_from_palace, head_commit, open_index, sync_index

    assert indexed_palace.resolve() != indexed_sample.resolve()
    palace = Palace.open(indexed_palace)
    store = open_index(palace)
    assert store.ready
    stats = sync_index(palace, store=store)
    assert not stats.rebuilt, stats.reason
    assert (stats.added, stats.updated, stats.removed) == (0, 0, 0)
    assert stats.unchanged == len(docs_from_palace(palace)) > 0
    assert store.state is not None and store.state.commit == head_commit(indexed_palace)


def test_the_default_index_copied_into_another_palace_syncs_incrementally(
    make_palace: MakePalace, default_index: Path
) -> None:
    """What tests/ui's make_palace does: the seed note's row goes, the palace's notes come in,
    and nothing is rebuilt."""
    from curator.model.palace import Palace
    from curator.search.index import open_index, sync_index

    files = {"notes/project/a.md": note_text("Alpha"), "notes/user/b.md": note_text("Beta")}
    root = make_palace(files)
    shutil.copytree(default_index, root / ".curator", symlinks=True)
    palace = Palace.open(root)
    stats = sync_index(palace, store=open_index(palace))
    assert not stats.rebuilt, stats.reason
    assert (stats.added, stats.removed) == (2, 1)
