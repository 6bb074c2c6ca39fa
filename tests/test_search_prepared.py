"""A searcher prepared while its server is quiet (`Ranker.prepare`, run by
`curator.agents.settling`): what ranking reads of every note is worked out ahead, so a question
meeting its candidates for the first time looks them up instead of taking their rows from
LanceDB. The same hits as a searcher that read them per query, before and after the palace
changes (an edited note ranked by its new text, a deleted one gone, a new one found)."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import lancedb.table
import pytest

from curator.agents.service import Memory
from curator.agents.settling import settle, settle_palace
from curator.model.palace import Palace
from curator.search import ranking
from curator.search.searcher import Searcher
from curator.session import Session

QUERIES = [
    "deploy",
    "stripe webhooks",
    "dep",
    "celery queue routing",
    "what do we know about deploys to production?",
    "how are the celery queues and workers set up?",
    "who is maya and when does she work?",
]
FILTERS: list[dict[str, object]] = [{}, {"include_sensitive": True}, {"types": ["project"]}]


def answers(s: Searcher) -> list[object]:
    """Every hit (path, order, score, snippet...) of the queries under each filter, and ask."""
    out: list[object] = [s.search(q, limit=10, **f) for q in QUERIES for f in FILTERS]
    return out + [s.ask(q) for q in QUERIES[-3:]]


@pytest.fixture
def takes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many rows each take by row id after a query asks of LanceDB."""
    calls: list[int] = []
    real = lancedb.table.LanceTable.take_row_ids

    def take_row_ids(self: object, ids: list[int]) -> object:
        calls.append(len(ids))
        return real(self, ids)  # type: ignore[arg-type]

    monkeypatch.setattr(lancedb.table.LanceTable, "take_row_ids", take_row_ids)
    return calls


def test_a_prepared_searcher_answers_as_one_that_reads_per_query(
    indexed_palace: Path, takes: list[int]
) -> None:
    plain = Searcher(Palace.open(indexed_palace))
    expected = answers(plain)
    assert takes  # meeting its candidates, the plain searcher took their rows
    prepared = Searcher(Palace.open(indexed_palace))
    prepared.palace.let_go_of_texts()  # as a settled server's palace
    assert prepared.prepare() == len([n for n in prepared.palace.all() if n.ok])
    assert prepared.prepared is prepared.palace
    takes.clear()
    assert answers(prepared) == expected
    assert not takes  # every candidate was looked up
    assert prepared.prepare() == 0  # nothing new to read


def test_a_prepared_searcher_follows_the_palace_as_it_changes(indexed_palace: Path) -> None:
    """Edited, deleted and added notes after the server prepared: the next settle prepares
    the changed ones, and the hits are those of a searcher that never prepared."""
    session = Session.open(indexed_palace)
    try:
        searcher = session.searcher()
        settle_palace(session.palace, searcher)
        assert searcher.prepared is session.palace
        notes = indexed_palace / "notes" / "project"
        edited = notes / "celery-queues-and-routing.md"
        edited.write_text(edited.read_text() + "\nThe zeppelin queue carries quokka reports.\n")
        (notes / "deploy-with-fabric-script.md").unlink()
        added = notes / "quokka-reports.md"
        added.write_text(
            "---\nname: Quokka reports\ndescription: Weekly quokka counts.\ntype: project\n"
            "created: 2026-11-01\n---\nThe quokka report is mailed on Mondays.\n"
        )
        session.changed()
        again = session.searcher(session.palace)
        assert again is searcher  # the same searcher, synced to the palace read again
        settle_palace(session.palace, searcher)
        assert searcher.prepared is session.palace
        zeppelin = searcher.search("zeppelin")
        assert [h.path for h in zeppelin] == ["notes/project/celery-queues-and-routing.md"]
        assert "notes/project/quokka-reports.md" in [h.path for h in searcher.search("quokka")]
        gone = "notes/project/deploy-with-fabric-script.md"
        assert gone not in [h.path for q in QUERIES for h in searcher.search(q, limit=20)]
        assert all(gone not in cache for cache in (searcher._doc_rows, searcher._vectors))
        fresh = Searcher(Palace.open(indexed_palace), sync=False)
        assert answers(searcher) == answers(fresh)
    finally:
        gc.unfreeze()
        session.close()


def test_a_server_prepares_its_searcher_once_it_is_open(indexed_palace: Path) -> None:
    """The palace settles while no searcher is open (a server answers its first prompts from
    the palace alone); the searcher opened since is prepared at the next quiet moment."""
    memory = Memory(indexed_palace)
    try:
        palace = memory.palace  # loaded, no searcher opened
        settled = settle(memory, None)
        assert settled is not None and settled() is palace
        searcher = memory.searcher
        assert searcher.prepared is None and searcher.palace is palace
        assert settle(memory, settled) is not None
        assert searcher.prepared is palace
    finally:
        gc.unfreeze()
        memory.close()


def test_a_palace_larger_than_the_caches_is_read_per_query(
    indexed_palace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Held for every note of a large palace, the readings would not fit a server's memory:
    its candidates are read as queries meet them."""
    monkeypatch.setattr(ranking, "NOTE_WORD_CACHE", 5)
    s = Searcher(Palace.open(indexed_palace))
    assert s.prepare() == 0
    assert s.prepared is s.palace and not s._vectors


def test_a_palace_larger_than_the_caches_has_its_words_embedded_ahead(
    indexed_palace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its notes' readings are not held, but the key words their rows keep are embedded
    ahead (a word's vector is the same whoever asks): a question meeting its candidates for
    the first time embeds none of their words, and every answer is as before."""
    expected = answers(Searcher(Palace.open(indexed_palace)))
    monkeypatch.setattr(ranking, "NOTE_WORD_CACHE", 5)
    s = Searcher(Palace.open(indexed_palace))
    s.prepare(lambda: True)  # a request came: stopped, to go on at the next quiet moment
    assert s.prepared is None and not s._word_row
    assert s.prepare() == 0 and s.prepared is s.palace and not s._vectors
    embedded: list[str] = []
    real = ranking.word_embedder

    class Recording:
        def __init__(self, embedder: Any) -> None:
            self.embedder = embedder

        def embed(self, words: list[str]) -> Any:
            embedded.extend(words)
            return self.embedder.embed(words)

    monkeypatch.setattr(ranking, "word_embedder", lambda e: Recording(real(e)))
    question = "how are the celery queues and workers set up?"
    s.search(question)
    assert s._note_rows  # its candidates' words were looked up
    assert set(embedded) <= set(question.replace("?", "").split())  # the question's alone
    assert answers(s) == expected


def test_a_note_changed_since_its_row_was_written_is_read_by_the_query(
    indexed_palace: Path,
) -> None:
    """The index not synced since a note changed: its row holds the old text's terms, so
    `prepare` leaves the note to the query, which ranks it by the text it has now."""
    rel = "notes/project/celery-queues-and-routing.md"
    note = indexed_palace / rel
    note.write_text(note.read_text() + "\nZeppelin zeppelin: the zeppelin queue.\n")
    query = "celery queue zeppelin"
    expected = Searcher(Palace.open(indexed_palace), sync=False).search(query, limit=10)
    prepared = Searcher(Palace.open(indexed_palace), sync=False)
    prepared.palace.let_go_of_texts()
    prepared.prepare()
    assert not prepared._has_read(rel)
    assert prepared.search(query, limit=10) == expected


def test_a_palace_replaced_while_preparing_is_followed_not_mixed(indexed_palace: Path) -> None:
    """A server's query syncs the index to a newer palace while `prepare` runs over the one
    before (here: once it has scanned the index): what it reads is held for the notes it
    read it for, a note deleted since is skipped, and the hits are those of the newer
    palace."""
    from curator.search.index import sync_index
    from curator.search.ranking import Row

    class SyncedMeanwhile(Searcher):
        preparing = synced = False

        def prepare(self, *args: Any, **kwargs: Any) -> int:
            self.preparing = True
            return super().prepare(*args, **kwargs)

        def _held_row(self, *args: Any, **kwargs: Any) -> Row:
            if self.preparing and not self.synced:
                self.synced = True
                self.sync_meanwhile()
            return super()._held_row(*args, **kwargs)

        def sync_meanwhile(self) -> None:
            notes = indexed_palace / "notes" / "project"
            (notes / "deploy-with-fabric-script.md").unlink()
            edited = notes / "celery-queues-and-routing.md"
            edited.write_text(edited.read_text() + "\nThe zeppelin queue carries reports.\n")
            newer = Palace.open(indexed_palace)
            sync_index(newer, store=self.store)
            self.palace = newer

    s = SyncedMeanwhile(Palace.open(indexed_palace))
    s.prepare()
    assert s.prepared is not s.palace  # the palace it ran over was replaced
    fresh = Searcher(Palace.open(indexed_palace), sync=False)
    assert answers(s) == answers(fresh)
    assert [h.path for h in s.search("zeppelin")] == ["notes/project/celery-queues-and-routing.md"]


def test_a_request_stops_prepare_which_goes_on_where_it_stopped(
    indexed_palace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server's `prepare` asks between batches of notes whether a request came: it stops
    there (the palace not yet `prepared`, so the next quiet moment calls it again), and the
    next call reads only the notes left."""
    expected = answers(Searcher(Palace.open(indexed_palace)))
    monkeypatch.setattr(ranking, "PREPARE_BATCH", 8)
    s = Searcher(Palace.open(indexed_palace))
    total = len([n for n in s.palace.all() if n.ok])
    asked: list[bool] = []

    def busy() -> bool:  # a request comes once two batches are read
        asked.append(True)
        return len(asked) > 2

    first = s.prepare(busy)
    assert 0 < first <= 16 and s.prepared is None
    assert s.prepare() == total - first and s.prepared is s.palace
    assert answers(s) == expected
