"""Curation actions update the search index in the same step as their commit, for any caller
holding a `Session` (the CLI, the app, a script): a real LanceDB table, no registry."""

from __future__ import annotations

from pathlib import Path

import pytest
from palacehelpers import MakePalace, note_text, opened

from curator.config import load_config
from curator.model.palace import Palace
from curator.search import catchup
from curator.search.catchup import reindex_files
from curator.search.hooks import sync_after_commit
from curator.search.index import doc_hashes, open_index, open_index_at, sync_index
from curator.search.state import EmptyIndexRefused
from curator.search.store import RESULT_COLUMNS, IndexStore
from curator.session import Session
from curator.writer.actions.promote import plan_promote
from curator.writer.actions.retire import plan_retire
from curator.writer.session import commit

pytestmark = pytest.mark.slow
TOML = '[palace]\nname = "t"\n[index]\nembedder = "hash"\n'


def _paths(palace: Palace) -> dict[str, dict]:
    store = open_index(palace)
    return {row["path"]: row for row in store.all_rows(columns=RESULT_COLUMNS)}


def test_commit_updates_an_existing_index_from_the_after_palace(make_palace: MakePalace) -> None:
    draft = note_text("Deploys need a green main", type="feedback").replace(
        "type: feedback\n", "type: feedback\nstatus: draft\n"
    )
    root: Path = make_palace(
        {
            "notes/project/a.md": note_text("Alpha service"),
            "notes/project/b.md": note_text("Beta service", body="See [[a]].\n"),
            "inbox/d.md": draft,
        },
        toml=TOML,
    )
    palace = Palace.open(root)
    sync_index(palace)
    assert set(_paths(palace)) == {"notes/project/a.md", "notes/project/b.md", "inbox/d.md"}

    session = Session(palace)  # a Python caller, as the README's example
    applied = session.commit(plan_promote(palace, "inbox/d.md"))
    rows = _paths(Palace.open(root))
    assert "inbox/d.md" not in rows
    promoted = "notes/feedback/deploys-need-a-green-main.md"
    assert rows[promoted]["kind"] == "note"
    assert open_index(Palace.open(root)).state.commit == applied.sha

    searcher = session.searcher()
    assert searcher.search("green main deploys", limit=3)[0].path == promoted
    applied = session.commit(plan_retire(session.palace, "a", "gone"))  # its palace followed
    assert session.searcher() is searcher and searcher.palace is session.palace
    rows = _paths(Palace.open(root))
    assert rows["notes/project/a.md"]["status"] == "retired"
    assert open_index(Palace.open(root)).state.commit == applied.sha


def test_a_failing_index_sync_raises_for_the_writer_to_report(make_palace: MakePalace) -> None:
    """The hook does not swallow a failure: the writer turns it into a warning on the commit."""
    root = make_palace({"notes/project/a.md": note_text("Alpha")}, toml=TOML)
    sync_index(Palace.open(root))
    (root / "notes/project/a.md").write_text("---\nname: [unclosed\n---\nbody\n")
    with pytest.raises(EmptyIndexRefused):
        sync_after_commit(root, None, ["notes/project/a.md"])
    assert list(_paths(Palace.open(root))) == ["notes/project/a.md"]  # the index is kept


def test_the_writer_alone_leaves_the_index_be(make_palace: MakePalace) -> None:
    """The writer never imports search: a commit given no session's callback syncs nothing."""
    root = make_palace({"notes/project/a.md": note_text("Alpha")}, toml=TOML)
    palace = Palace.open(root)
    sync_index(palace)
    before = open_index(palace).state.commit
    commit(root, plan_retire(palace, "a", "gone"), palace=palace)
    assert open_index(Palace.open(root)).state.commit == before


def test_commit_without_an_index_builds_none(make_palace: MakePalace) -> None:
    root = make_palace({"notes/project/a.md": note_text("Alpha")}, toml=TOML)
    session = Session.open(root)
    session.commit(plan_retire(session.palace, "a", "gone"))
    assert not (root / ".curator" / "index" / "state.json").exists()


def _two_drafts(make_palace: MakePalace) -> Path:
    """A note and two drafts ready to promote, "First promoted" and "Second promoted"."""
    draft = "---\nname: {}\ndescription: d\ntype: project\nstatus: draft\n---\nBody.\n"
    return make_palace(
        {
            "notes/project/a.md": note_text("Alpha"),
            "inbox/one.md": draft.format("First promoted"),
            "inbox/two.md": draft.format("Second promoted"),
        },
        toml=TOML,
    )


def test_an_action_landing_after_the_load_stays_in_index(make_palace: MakePalace) -> None:
    """B loads the palace, A's promote lands, B promotes: INDEX.md lists both notes.

    B's INDEX.md is rendered from a palace that lacks A's note; the expected pre-image is the
    INDEX.md B loaded with, so apply sees A's INDEX.md and it is rendered again."""
    root = _two_drafts(make_palace)
    late = Palace.open(root)  # B: loaded before A's action
    early = Palace.open(root)
    commit(root, plan_promote(early, "inbox/one.md"), palace=early)  # A lands
    commit(root, plan_promote(late, "inbox/two.md"), palace=late)  # B, planned from old state
    index = (root / "INDEX.md").read_text()
    assert "First promoted" in index and "Second promoted" in index


def test_a_palace_refreshed_from_effects_plans_against_the_new_index(
    make_palace: MakePalace,
) -> None:
    """The app and benchmarks refresh with `replaced(effects)` after a commit: the next plan's
    INDEX.md pre-image must be the INDEX.md just committed, so it applies on the first try."""
    from curator.writer.apply import apply_plan

    root = _two_drafts(make_palace)
    palace = Palace.open(root)
    plan = plan_promote(palace, "inbox/one.md")
    after = plan.effects()  # read before the commit moves the draft
    commit(root, plan, palace=palace)
    palace = palace.replaced(after)
    assert palace.loaded.index_snapshot == ((root / "INDEX.md").read_bytes(),)
    apply_plan(root, plan_promote(palace, "inbox/two.md"))  # no retry here: must not raise
    index = (root / "INDEX.md").read_text()
    assert "First promoted" in index and "Second promoted" in index


def test_a_reindex_reads_and_embeds_a_batch_at_a_time_never_the_whole_palace(
    make_palace: MakePalace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 34: `curator reindex` loaded the whole palace, then embedded it (at 100k notes
    the ~380 MB palace held beside the embedder and LanceDB: ~900 MB). Now it reads a batch of
    notes, embeds and writes them, then reads the next; the rows are the loaded palace's."""
    root = make_palace(
        {f"notes/project/n{i}.md": note_text(f"Note {i} deploys") for i in range(6)}, toml=TOML
    )
    monkeypatch.setattr(catchup, "REBUILD_BATCH", 2)
    config = load_config(root)
    store = open_index_at(root, config)
    inner = store.embedder

    class Recording:
        name, dim = inner.name, inner.dim

        def embed(self, texts: list[str]) -> object:
            read.append(f"embed /notes/ {len(texts)}")
            return inner.embed(texts)

    store.tables.embedder = Recording()  # type: ignore[assignment]
    with opened() as read:
        reindex_files(root, config, store)
    steps = [e.split()[0] if e.startswith("embed") else "read" for e in read if "/notes/" in e]

    assert steps[:9] == ["read", "read", "embed"] * 3
    palace = Palace.open(root)
    assert dict(_hashes(store)) == doc_hashes(palace)


def _hashes(store: IndexStore) -> list[tuple[str, str]]:
    table = store.columns(("path", "content_hash"))
    paths, hashes = table.column("path").to_pylist(), table.column("content_hash").to_pylist()
    return list(zip(paths, hashes, strict=True))
