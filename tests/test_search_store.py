"""The LanceDB search index: real tables in tmp_path, real embedders (counted, not mocked)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from curator.search.docs import IndexDoc
from curator.search.embed import HashEmbedder, Vectors, WordLlamaEmbedder
from curator.search.filters import Filter, SearchError, sql_str
from curator.search.fuse import rrf
from curator.search.store import (
    RESULT_COLUMNS,
    STATE_FILE,
    DocsMismatch,
    EmptyIndexRefused,
    IndexStore,
    IndexUnavailable,
    rows_of,
    synchronous_hybrid,
)

HOSTILE = "x' OR 1=1 --"


class CountingEmbedder:
    """A real HashEmbedder that records how many texts it embedded."""

    def __init__(self, dim: int = 32, name: str = "hash") -> None:
        self.inner = HashEmbedder(dim)
        self.name = name
        self.dim = dim
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> Vectors:
        self.texts.extend(texts)
        return self.inner.embed(texts)


TOPICS = ["git hooks", "python packaging", "user preferences", "database backups", "ci caching"]


def make_docs(n: int = 30) -> list[IndexDoc]:
    types = ["feedback", "project", "reference", "user"]
    return [
        IndexDoc(
            path=f"{'inbox' if i % 10 == 9 else 'notes'}/n{i:03d}.md",
            slug=f"n{i:03d}",
            name=f"Note {i} about {TOPICS[i % 5]}",
            description=f"one line on {TOPICS[i % 5]}",
            type=types[i % 4],
            scope="global" if i % 2 else "repo",
            status="active",
            confidence=0.5 + (i % 5) / 10,
            stale=i % 7 == 0,
            stale_reason="flag renamed" if i % 7 == 0 else "",
            sensitive=i % 11 == 0,
            tags=["t1", TOPICS[i % 5].split()[0]],
            created="2025-01-01",
            kind="draft" if i % 10 == 9 else "note",
            body=f"Body {i}: remember {TOPICS[i % 5]} details number{i}.",
        )
        for i in range(n)
    ]


def edit(doc: IndexDoc, **changes: object) -> IndexDoc:
    fields = {k: getattr(doc, k) for k in doc.__dataclass_fields__}
    fields.update(changes, content_hash="", text="")
    return IndexDoc(**fields)


@pytest.fixture
def index_dir(tmp_path: Path) -> Path:
    return tmp_path / ".curator" / "index"


def paths(rows: list[dict[str, object]]) -> list[str]:
    return [str(r["path"]) for r in rows]


@pytest.mark.slow
def test_incremental_sync_reembeds_only_changed_and_removes_deleted(index_dir: Path) -> None:
    emb = CountingEmbedder()
    docs = make_docs()
    store = IndexStore.open(index_dir, emb)
    assert not store.ready
    first = store.writer.sync(docs, "c1")
    assert first.rebuilt and first.added == 30 and len(emb.texts) == 30
    assert store.count() == 30

    emb.texts.clear()
    again = store.writer.sync(docs, "c1")
    assert (again.added, again.updated, again.removed, again.unchanged) == (0, 0, 0, 30)
    assert emb.texts == []

    docs[3] = edit(docs[3], body="completely rewritten: zeppelin maintenance")
    docs[4] = edit(docs[4], stale=True, stale_reason="path gone")  # header-only change counts
    removed = docs.pop(5)
    new = IndexDoc(path="notes/new.md", slug="new", name="New note", body="quokka facts")
    docs.append(new)
    stats = store.writer.sync(docs, "c2")
    assert (stats.added, stats.updated, stats.removed, stats.unchanged) == (1, 2, 1, 27)
    assert not stats.rebuilt
    assert sorted(emb.texts) == sorted([docs[3].text, docs[4].text, new.text])
    assert store.count() == 30
    assert paths(store.fts("zeppelin", 5)) == ["notes/n003.md"]
    assert paths(store.fts("quokka", 5)) == ["notes/new.md"]
    assert removed.path not in paths(store.all_rows(columns=RESULT_COLUMNS))
    meta = {m["path"]: m for m in store.all_rows(columns=RESULT_COLUMNS)}
    assert meta["notes/n004.md"]["stale"] is True
    assert meta["notes/n004.md"]["stale_reason"] == "path gone"
    state = json.loads((index_dir / STATE_FILE).read_text())
    assert state["commit"] == "c2" and state["doc_count"] == 30 and state["embedder"] == "hash"

    # a fresh store (another process) sees the same index and syncs nothing
    emb2 = CountingEmbedder()
    other = IndexStore.open(index_dir, emb2)
    assert other.ready and other.writer.sync(docs, "c2").unchanged == 30 and emb2.texts == []


@pytest.mark.slow
def test_rebuild_switches_to_a_new_table_and_drops_the_old(index_dir: Path) -> None:
    store = IndexStore.open(index_dir, CountingEmbedder())
    store.writer.sync(make_docs(), "c1")
    old_table = json.loads((index_dir / STATE_FILE).read_text())["table"]
    reader = IndexStore.open(index_dir, CountingEmbedder())  # holds the old table open

    stats = store.writer.rebuild(make_docs(12), "c2")
    new_table = json.loads((index_dir / STATE_FILE).read_text())["table"]
    assert stats.rebuilt and new_table != old_table
    assert not (index_dir / f"{old_table}.lance").exists()
    assert (index_dir / f"{new_table}.lance").is_dir()
    assert store.count() == 12
    # the reader's table was dropped under it: it follows state.json instead of crashing
    assert len(reader.all_rows(columns=RESULT_COLUMNS)) == 12
    assert reader.recovered == []


@pytest.mark.slow
def test_embedder_change_triggers_full_rebuild(index_dir: Path) -> None:
    IndexStore.open(index_dir, CountingEmbedder(32)).writer.sync(make_docs(), "c1")
    wider = CountingEmbedder(64)
    store = IndexStore.open(index_dir, wider)
    assert not store.ready
    stats = store.writer.sync(make_docs(), "c1")
    assert stats.rebuilt and "embedder changed" in stats.reason and len(wider.texts) == 30
    assert json.loads((index_dir / STATE_FILE).read_text())["dim"] == 64
    assert len(store.vector(wider.embed(["git hooks"])[0], 3)) == 3

    renamed = CountingEmbedder(64, name="other")
    assert IndexStore.open(index_dir, renamed).writer.sync(make_docs(), "c1").rebuilt


@pytest.mark.slow
def test_zero_byte_state_json_is_moved_aside_and_rebuilt(index_dir: Path) -> None:
    IndexStore.open(index_dir, CountingEmbedder()).writer.sync(make_docs(), "c1")
    (index_dir / STATE_FILE).write_bytes(b"")  # power cut after truncate, before write

    store = IndexStore.open(index_dir, CountingEmbedder())
    assert not store.ready and len(store.recovered) == 1
    aside = store.recovered[0]
    assert aside.name.startswith("index.corrupt-") and aside.parent == index_dir.parent
    assert "zero bytes" in (aside / "REASON.txt").read_text()
    with pytest.raises(IndexUnavailable):
        store.fts("git", 5)
    stats = store.writer.sync(make_docs(), "c1")
    assert stats.rebuilt and store.count() == 30
    assert (index_dir / ".gitignore").read_text().strip().endswith("*")


@pytest.mark.slow
def test_truncated_lance_manifest_is_moved_aside_and_rebuilt(index_dir: Path) -> None:
    IndexStore.open(index_dir, CountingEmbedder()).writer.sync(make_docs(), "c1")
    table = json.loads((index_dir / STATE_FILE).read_text())["table"]
    manifests = list((index_dir / f"{table}.lance" / "_versions").glob("*.manifest"))
    assert manifests
    for m in manifests:  # truncate every version: nothing to fall back to
        m.write_bytes(m.read_bytes()[:10])

    store = IndexStore.open(index_dir, CountingEmbedder())
    assert not store.ready and len(store.recovered) == 1
    assert store.writer.sync(make_docs(), "c1").rebuilt
    assert paths(store.fts("zeppelin", 5)) == []
    assert len(store.fts("git hooks", 50)) >= 6


@pytest.mark.slow
def test_garbage_state_and_truncated_data_files_never_crash(index_dir: Path) -> None:
    store = IndexStore.open(index_dir, CountingEmbedder())
    store.writer.sync(make_docs(), "c1")
    table = json.loads((index_dir / STATE_FILE).read_text())["table"]
    for data in (index_dir / f"{table}.lance" / "data").glob("*.lance"):
        data.write_bytes(data.read_bytes()[:20])
    # a store opened before the damage finds out at query time
    with pytest.raises(IndexUnavailable, match="moved aside"):
        store.fts("git", 5)
    assert len(store.recovered) == 1
    assert store.writer.sync(make_docs(), "c1").rebuilt and len(store.fts("git", 5)) == 5

    (index_dir / STATE_FILE).write_bytes(b"\x00\xffnot json{")
    (index_dir / "junk.lance").mkdir()
    fresh = IndexStore.open(index_dir, CountingEmbedder())
    assert not fresh.ready and len(fresh.recovered) == 1
    assert fresh.writer.sync(make_docs(), "c1").rebuilt


@pytest.mark.slow
def test_filters_are_escaped_and_applied(index_dir: Path) -> None:
    docs = make_docs()
    docs.append(IndexDoc(path="notes/evil.md", slug="evil", name="evil", scope=HOSTILE, body="git"))
    store = IndexStore.open(index_dir, CountingEmbedder())
    store.writer.sync(docs, "c1")

    hostile = Filter.of(None, scope=[HOSTILE], drafts=True, include_sensitive=True).sql()
    assert hostile == "(scope = 'x'' OR 1=1 --')"
    assert paths(store.fts("git", 50, hostile)) == ["notes/evil.md"]
    assert store.fts("git", 50, Filter.of(None, types=[HOSTILE]).sql()) == []
    assert store.vector(np.ones(32, np.float32), 50, Filter.of(None, status=HOSTILE).sql()) == []

    w = Filter.of(None, types=["feedback", "user"], min_confidence=0.7).sql()
    rows = store.all_rows(columns=RESULT_COLUMNS, where=w)
    assert rows and all(
        r["type"] in ("feedback", "user")
        and r["kind"] == "note"
        and r["confidence"] >= 0.7
        and not r["sensitive"]
        for r in rows
    )
    stale = store.all_rows(
        columns=RESULT_COLUMNS,
        where=Filter.of(None, stale=True, drafts=True, include_sensitive=True).sql(),
    )
    assert {r["path"] for r in stale} == {d.path for d in docs if d.stale}
    assert all(
        not r["sensitive"]
        for r in store.all_rows(columns=RESULT_COLUMNS, where=Filter.of(None).sql())
    )
    for bad in (float("nan"), 1.5, "0.5", True):
        with pytest.raises(SearchError, match="min_confidence"):
            Filter.of(None, min_confidence=bad)
    with pytest.raises(SearchError, match="NUL"):
        sql_str("a\x00b")
    # FTS receives words only: query syntax and quotes in user input are harmless
    assert store.fts(HOSTILE + ' "unbalanced (', 5) is not None
    assert store.fts("   ", 5) == []


@pytest.mark.slow
def test_refuses_to_empty_a_good_index(index_dir: Path) -> None:
    store = IndexStore.open(index_dir, CountingEmbedder())
    store.writer.sync(make_docs(), "c1")
    with pytest.raises(EmptyIndexRefused):
        store.writer.sync([], "c2")
    with pytest.raises(EmptyIndexRefused):
        store.writer.rebuild([], "c2")
    assert store.count() == 30
    assert store.writer.sync([], "c2", allow_empty=True).removed == 30
    assert store.count() == 0 and store.fts("git", 5) == []


@pytest.mark.slow
def test_wordllama_index_vector_and_fts_rank_fusion(index_dir: Path) -> None:
    emb = WordLlamaEmbedder()
    store = IndexStore.open(index_dir, emb)
    store.writer.sync(make_docs(), "c1")
    vec_rows = store.vector(store.embed_query("database backups"), 5)
    assert vec_rows[0]["similarity"] > 0.5
    assert all("vector" not in r and "text" not in r for r in vec_rows)
    fts_rows = store.fts("backups", 5)
    fused = rrf(
        [
            [str(r["path"]) for r in sorted(fts_rows, key=lambda r: -float(r["_score"]))],
            [str(r["path"]) for r in sorted(vec_rows, key=lambda r: float(r["_distance"]))],
        ]
    )
    assert "backups" in str(next(r for r in vec_rows if r["path"] == fused[0][0])["name"])


def test_duplicate_paths_are_rejected(index_dir: Path) -> None:
    doc = make_docs(1)[0]
    with pytest.raises(ValueError, match="share the path"):
        IndexStore.open(index_dir, CountingEmbedder()).writer.sync([doc, doc], None)


def test_rrf_is_deterministic_and_weighted() -> None:
    both = 1 / 61 + 1 / 62
    assert rrf([["a", "b"], ["b", "a"]]) == [("a", both), ("b", both)]
    assert rrf([["b", "a"], ["a", "b"]]) == rrf([["a", "b"], ["b", "a"]])
    assert rrf([["a", "a", "b"]], k=0) == [("a", 1.0), ("b", 0.5)]
    assert rrf([["a"], ["b"]], weights=[1.0, 2.0])[0][0] == "b"
    with pytest.raises(ValueError):
        rrf([["a"]], weights=[1.0, 2.0])


def test_sync_hashes_builds_only_the_docs_it_writes(index_dir: Path) -> None:
    """A sync given path -> content hash asks for the docs of changed paths only; a rebuild
    asks batch by batch, in path order; a doc that does not match its promised hash is
    refused rather than written."""
    docs = {d.path: d for d in make_docs()}
    asked: list[list[str]] = []

    def make(paths: list[str]) -> list[IndexDoc]:
        asked.append(list(paths))
        return [docs[p] for p in paths]

    store = IndexStore.open(index_dir, CountingEmbedder())
    hashes = {p: d.content_hash for p, d in docs.items()}
    assert store.writer.sync_hashes(hashes, make, "c1").rebuilt
    assert [p for batch in asked for p in batch] == sorted(docs)

    asked.clear()
    docs["notes/n003.md"] = edit(docs["notes/n003.md"], body="zeppelin maintenance")
    hashes = {p: d.content_hash for p, d in docs.items()}
    stats = store.writer.sync_hashes(hashes, make, "c2")
    assert (stats.updated, stats.unchanged) == (1, 29) and asked == [["notes/n003.md"]]
    assert paths(store.fts("zeppelin", 5)) == ["notes/n003.md"]

    hashes["notes/n004.md"] = "0" * 32  # promised a change the doc does not carry
    with pytest.raises(DocsMismatch):
        store.writer.sync_hashes(hashes, make, "c3")
    assert store.ready and not store.recovered  # a caller's mismatch never quarantines


def test_filtered_columns_are_indexed_and_an_older_index_gains_them(index_dir: Path) -> None:
    """The gate's and the filters' columns carry bitmap indices (issue 34: the prefilter was
    a scan of every row on both legs of each hybrid query): the answers are the same with or
    without them, rows written after the indices are found, and an index written before they
    existed gains them at its next sync."""
    from curator.search.arrow import index_names

    docs = make_docs()
    store = IndexStore.open(index_dir, CountingEmbedder())
    store.writer.sync(docs, "c1")
    table = store.tables.read(lambda t: t)
    assert {i.name for i in table.list_indices()} == set(index_names())
    extra = [IndexDoc(path=f"notes/late{i}.md", slug=f"late{i}", name=f"Late {i}",
                      scope="late", status="active", sensitive=i == 0, body="git hooks late")
             for i in range(3)]  # fmt: skip
    store.writer.sync([*docs, *extra], "c2")  # too few to refresh the indices: scanned
    filters = [
        Filter.of(None).sql(),
        Filter.of(None, scope=["late"]).sql(),
        Filter.of(None, status="active", min_confidence=0.6, drafts=True).sql(),
        Filter.of(None, stale=True, types=["feedback", "project"], include_sensitive=True).sql(),
        Filter.of(None, scope=[HOSTILE], drafts=True, include_sensitive=True).sql(),
    ]
    vec = CountingEmbedder().embed(["git hooks late"])[0]

    def answers(store: IndexStore) -> list[list[str]]:
        """Each filter's rows (all of them: the limit cuts none, so ties cannot reorder the
        cut), in path order."""
        return [sorted(paths(store.hybrid("git hooks late", vec, 60, w))) for w in filters]

    indexed = answers(store)
    assert indexed[1] == ["notes/late1.md", "notes/late2.md"]  # late0 is sensitive
    for name in index_names()[1:]:
        table.drop_index(name)
    assert answers(store) == indexed  # the bitmaps change how rows are found, never which
    again = IndexStore.open(index_dir, CountingEmbedder())  # another process, an older index
    assert again.writer.sync([*docs, *extra], "c2").unchanged == len(docs) + len(extra)
    table = again.tables.read(lambda t: t)
    assert {i.name for i in table.list_indices()} == set(index_names())
    assert answers(again) == indexed


def test_hybrid_rows_are_lancedb_s_synchronous_hybrid_query_s(index_dir: Path) -> None:
    """`IndexStore.hybrid` asks the table's asynchronous face (no thread pool per query): its
    rows, in order, with every score, are those of LanceDB's synchronous hybrid query of the
    same table, for each filter and limit, and a row written after the first query is found.
    Each note's text has its own length, so no two rows tie on either leg (LanceDB orders
    ties as its threads finish). The synchronous query is the one hybrid falls back to."""
    docs = [
        edit(doc, body=f"{doc.body} {' '.join(['filler'] * i)}", name=f"{doc.name} {'x' * i}")
        for i, doc in enumerate(make_docs())
    ]
    store = IndexStore.open(index_dir, CountingEmbedder())
    store.writer.sync(docs, "c1")
    filters = [
        None,
        Filter.of(None).sql(),
        Filter.of(None, scope=["repo"], drafts=True).sql(),
        Filter.of(None, stale=True, types=["feedback", "project"], include_sensitive=True).sql(),
    ]
    nothing = Filter.of(None, scope=[HOSTILE], drafts=True, include_sensitive=True).sql()

    def synchronous(text: str, vec: np.ndarray, limit: int, where: str | None) -> list[dict]:
        # what runs where LanceDB keeps no asynchronous face on the table
        cols = ["path", "name"]
        return store.tables.read(
            lambda t: rows_of(synchronous_hybrid(t, vec, text.split(), limit, where, cols))
        )

    def check() -> None:
        for text in ("git hooks", "backups details number7", "preferences filler"):
            vec = CountingEmbedder().embed([text])[0]
            for where in filters:
                for limit in (1, 5, 60):
                    got = store.hybrid(text, vec, limit, where, columns=("path", "name"))
                    assert got, (text, where, limit)
                    assert got == synchronous(text, vec, limit, where), (text, where, limit)
            assert store.hybrid(text, vec, 5, nothing) == synchronous(text, vec, 5, nothing) == []

    check()
    late = IndexDoc(path="notes/late.md", slug="late", name="Late", body="git hooks late")
    store.writer.sync([*docs, late], "c2")
    check()
    vec = CountingEmbedder().embed(["git hooks late"])[0]
    assert paths(store.hybrid("git hooks late", vec, 1)) == ["notes/late.md"]
