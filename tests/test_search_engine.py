"""One engine, one store per caller: names matched as you type through the searcher (visibility
and filters applied), a store following another caller's sync and rebuild of the same index,
and each Session holding its own store (real LanceDB tables in tmp_path, hash embedder)."""

from __future__ import annotations

from palacehelpers import MakePalace, note_text

from curator.model.palace import Palace
from curator.search.index import open_index, reindex, sync_index
from curator.search.state import IndexState
from curator.search.store import IndexStore, IndexWriter
from curator.search.tables import IndexTables
from curator.session import Session

TOML = (
    '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[index]\nembedder = "hash"\ndim = 64\n'
    "\n[scopes.vault]\nsensitive = true\n"
)


def n(name: str, body: str, *, type: str = "project", extra: str = "") -> str:
    return note_text(name, type=type, description="", body=body + "\n", extra=extra)


def files() -> dict[str, str]:
    return {
        "notes/project/webhooks.md": n("Stripe webhook signing", "Verify each event."),
        "notes/project/vacuum.md": n("Postgres vacuum schedule", "Nightly at two."),
        "notes/reference/stripe-keys.md": n(
            "Stripe key rotation", "Rotate quarterly.", type="reference", extra="scope: vault\n"
        ),
        "notes/feedback/stripe-retries.md": n(
            "Stripe retries back off", "Exponential.", type="feedback", extra="sensitive: true\n"
        ),
    }


def paths(hits: list) -> list[str]:
    return [h.path for h in hits]


def test_names_match_as_you_type_and_with_a_typo(make_palace: MakePalace) -> None:
    s = Session(Palace.open(make_palace(files(), toml=TOML))).searcher()
    for typed in ("str", "stri", "stripe w", "webh", "webhok"):
        assert paths(s.search(typed))[:1] == ["notes/project/webhooks.md"], typed
    assert paths(s.search("vacu")) == ["notes/project/vacuum.md"]


def test_names_as_you_type_pass_the_filter(make_palace: MakePalace) -> None:
    s = Session(Palace.open(make_palace(files(), toml=TOML))).searcher()
    assert set(paths(s.search("stri"))) == {"notes/project/webhooks.md"}  # hidden ones unnamed
    shown = set(paths(s.search("stri", include_sensitive=True)))
    assert shown == {
        "notes/project/webhooks.md",
        "notes/reference/stripe-keys.md",
        "notes/feedback/stripe-retries.md",
    }
    assert paths(s.search("stri", types=["reference"], include_sensitive=True)) == [
        "notes/reference/stripe-keys.md"
    ]
    assert paths(s.search("stri", types=["user"])) == []


def test_a_hit_found_by_name_alone_has_its_body_snippet(make_palace: MakePalace) -> None:
    s = Session(Palace.open(make_palace(files(), toml=TOML))).searcher()
    hit = s.search("vacu")[0]
    assert hit.snippet == "Nightly at two."


def test_a_store_follows_another_callers_sync_and_rebuild(make_palace: MakePalace) -> None:
    root = make_palace(files(), toml=TOML)
    mine = Session(Palace.open(root))
    store = mine.searcher().store
    assert not store.fts("quokka")
    (root / "notes/project/quokka.md").write_text(n("Quokka feeding", "Leaves only."))
    other = Session(Palace.open(root))  # another caller (a process) syncs the same index
    sync_index(other.palace, store=other.store())
    assert [r["path"] for r in store.fts("quokka")] == ["notes/project/quokka.md"]
    table = store.state.table if store.state else ""
    reindex(other.palace, store=other.store())  # a new table; the old one is dropped
    assert store.state is not None and store.state.table != table
    assert [r["path"] for r in store.fts("quokka")] == ["notes/project/quokka.md"]


def test_each_session_holds_its_own_store(make_palace: MakePalace) -> None:
    root = make_palace(files(), toml=TOML)
    one, two = Session(Palace.open(root)), Session(Palace.open(root))
    assert one.searcher().store is one.store()
    assert one.store() is not two.store()  # no store shared through the process
    palace = Palace.open(root)
    assert open_index(palace) is not open_index(palace)


def test_a_table_switched_under_a_load_is_followed_not_moved_aside(
    make_palace: MakePalace,
) -> None:
    """Another process rebuilds the index (a new table, the old one dropped) between this
    store reading state.json and opening the table it names: the store reads the new state
    instead of taking the missing table for damage and moving everyone's index aside."""
    root = make_palace(files(), toml=TOML)
    palace = Palace.open(root)
    sync_index(palace, store=open_index(palace))
    first = open_index(palace)
    assert first.state is not None
    before = first.state.table

    class RebuiltMeanwhile(IndexTables):
        other: Palace | None = None

        def _open_table(self, state: IndexState) -> object:
            if self.other is not None:  # the other process acts in the window
                other, self.other = self.other, None
                reindex(other, store=open_index(other))
            return super()._open_table(state)

    tables = RebuiltMeanwhile(first.index_dir, first.embedder)
    tables.other = Palace.open(root)
    tables.load()
    store = IndexStore(tables, IndexWriter(tables))
    assert store.recovered == []
    assert store.state is not None and store.state.table != before
    assert store.ready and [r["path"] for r in store.fts("vacuum")] == ["notes/project/vacuum.md"]
    assert not list(root.glob(".curator/index.corrupt-*"))
