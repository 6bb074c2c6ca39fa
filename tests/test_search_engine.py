"""One store per caller: a store following another caller's sync and rebuild of the same index,
and each Session holding its own store (real LanceDB tables in tmp_path, hash embedder)."""

from __future__ import annotations

from palacehelpers import MakePalace, note_text

from curator.model.palace import Palace
from curator.search.index import open_index, reindex, sync_index
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


def test_a_store_follows_another_callers_sync_and_rebuild(make_palace: MakePalace) -> None:
    root = make_palace(files(), toml=TOML)
    mine = Session(Palace.open(root))
    store = mine.searcher().store
    assert not store.fts("quokka")
    (root / "notes/project/quokka.md").write_text(n("Quokka feeding", "Leaves only."))
    other = Session(Palace.open(root))  # another caller (a process) syncs the same index
    sync_index(other.palace, store=other.index())
    assert [r["path"] for r in store.fts("quokka")] == ["notes/project/quokka.md"]
    table = store.state.table if store.state else ""
    reindex(other.palace, store=other.index())  # a new table; the old one is dropped
    assert store.state is not None and store.state.table != table
    assert [r["path"] for r in store.fts("quokka")] == ["notes/project/quokka.md"]


def test_each_session_holds_its_own_store(make_palace: MakePalace) -> None:
    root = make_palace(files(), toml=TOML)
    one, two = Session(Palace.open(root)), Session(Palace.open(root))
    assert one.searcher().store is one.index()
    assert one.index() is not two.index()  # no store shared through the process
    palace = Palace.open(root)
    assert open_index(palace) is not open_index(palace)
