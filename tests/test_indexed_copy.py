"""The `indexed_palace` fixture's premise: a palace copied with its built index elsewhere finds
the index current (rows keyed by relative path and content hash), so nothing is re-embedded."""

from __future__ import annotations

from pathlib import Path

import pytest

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
