"""The index following a commit by what the record of files knows (issue 34, promote and undo
at 100k notes): the rows a commit changes are written and removed without reading every row's
hash from the table (`IndexWriter.sync_known`), never into a table another process wrote since,
and the record a command's plan decoded is the one its follow reads, not decoded again."""

from __future__ import annotations

from pathlib import Path

import pytest
from palacehelpers import MakePalace, RunCli, git, note_text

from curator.config import load_config
from curator.model.layouts import rules as layout_rules
from curator.model.loader import read_note
from curator.search.catchup import catch_up
from curator.search.filerecord import read_record, sums_of, write_record
from curator.search.index import doc_of, head_commit, open_index_at
from curator.search.store import IndexStore

TOML = '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[index]\nembedder = "hash"\ndim = 64\n'


@pytest.fixture
def root(make_palace: MakePalace, run_cli: RunCli) -> Path:
    files = {f"notes/project/gnu-{i}.md": note_text(f"Gnu {i}", body="Gnu.\n") for i in range(6)}
    root = make_palace(files, toml=TOML)
    code, _, err = run_cli("--palace", root, "search", "gnu")  # builds the index
    assert code == 0, err
    return root


def _paths(store: IndexStore) -> list[str]:
    return sorted(store.columns(("path",)).column(0).to_pylist())


def test_a_change_known_from_the_record_is_written_without_reading_the_rows(root: Path) -> None:
    config = load_config(root)
    store = open_index_at(root, config)
    before = store.state
    assert before is not None and before.doc_count == 6
    rel = "notes/project/gnu-new.md"
    (root / rel).write_text(note_text("Gnu new", body="Gnu, new.\n"))
    edited = "notes/project/gnu-1.md"
    (root / edited).write_text(note_text("Gnu 1", body="Gnu, edited.\n"))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "new")
    layout = layout_rules.layout_of(config)
    docs = [doc_of(read_note(root, r, "note", config, layout), config) for r in (rel, edited)]
    gone = "notes/project/gnu-0.md"
    stats = store.writer.sync_known(
        store.tables.seen, docs, [gone], 6, head_commit(root), allow_empty=False
    )
    assert stats is not None
    counted = (stats.added, stats.updated, stats.removed, stats.unchanged)
    assert counted == (1, 1, 1, 4)  # the edited row is not counted unchanged
    assert rel in _paths(store) and gone not in _paths(store)
    after = store.state
    assert after is not None and (after.doc_count, after.commit) == (6, head_commit(root))


def test_a_table_written_since_the_record_was_read_is_left_to_the_full_comparison(
    root: Path,
) -> None:
    """Another process's sync since (state.json written again): nothing is written, and the
    caller compares every row instead."""
    config = load_config(root)
    store = open_index_at(root, config)
    seen = store.tables.seen
    assert seen is not None
    version = store.tables.live.table.version if store.tables.live else None
    other = (seen[0] - 1, seen[1], seen[2])
    assert (
        store.writer.sync_known(other, [], ["notes/project/gnu-1.md"], 5, None, allow_empty=False)
        is None
    )
    assert "notes/project/gnu-1.md" in _paths(store)
    assert store.tables.live is not None and store.tables.live.table.version == version


def test_a_record_that_does_not_count_the_rows_is_caught_up_by_every_row(root: Path) -> None:
    """A record whose count of parsed files is not the table's rows: the rows are compared
    one by one (`sync_changes`), and the index ends in step all the same."""
    config = load_config(root)
    store = open_index_at(root, config)
    state, seen = store.state, store.tables.seen
    assert state is not None
    found = read_record(store.index_dir, state, seen)
    assert found is not None
    files = dict(found.files)
    del files["notes/project/gnu-2.md"]  # the row is there; the record forgets it
    write_record(store.index_dir, state, seen, files, sums_of(files.items()))
    (root / "notes/project/gnu-3.md").unlink()
    assert catch_up(root, config, store, changed=["notes/project/gnu-3.md"])
    assert "notes/project/gnu-3.md" not in _paths(store)
    assert "notes/project/gnu-2.md" not in _paths(store)  # no file of the record: no row
    assert store.state is not None and store.state.doc_count == 4


def test_the_record_a_plan_kept_is_the_one_the_follow_reads(root: Path) -> None:
    config = load_config(root)
    store = open_index_at(root, config)
    state, seen = store.state, store.tables.seen
    assert state is not None
    kept = read_record(store.index_dir, state, seen, keep=True)
    assert kept is not None
    assert read_record(store.index_dir, state, seen) is kept  # the same bytes: not decoded
    assert read_record(store.index_dir, state, seen) is not kept  # taken once, then let go
    kept = read_record(store.index_dir, state, seen, keep=True)
    assert kept is not None
    files = dict(kept.files)
    del files["notes/project/gnu-4.md"]
    write_record(store.index_dir, state, seen, files, sums_of(files.items()))
    again = read_record(store.index_dir, state, seen)
    assert again is not kept and "notes/project/gnu-4.md" not in again.files  # type: ignore[union-attr]
