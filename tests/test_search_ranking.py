"""Ranking rules of natural-language queries, on small synthetic palaces with a real LanceDB index
(hash embedder): a note whose name (title) holds the query's key terms leads one that only
mentions them in its body, and every candidate of the pool is re-ranked, not only the head."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from palacehelpers import MakePalace, note_text

import curator.search.searcher as searcher_module
from curator.model.palace import Palace
from curator.search.filters import Filter
from curator.search.ranking import Tuning
from curator.search.searcher import Searcher
from curator.search.text import name_share, natural_language, term_prefix

HASH_TOML = '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[index]\nembedder = "hash"\ndim = 1024\n'


def n(name: str, body: str) -> str:
    return note_text(name, type="project", body=body + "\n")


def titled_palace(make_palace: MakePalace) -> Path:
    files = {
        # Named for the question; the body says little.
        "notes/pool-size.md": n(
            "PgBouncer pool size",
            "Forty connections for each database behind it, set after the spring outage of the "
            "primary, when the replica lagged, the workers timed out and the billing jobs were "
            "retried by hand for a whole afternoon.",
        ),
        # Repeats the terms in a short body, under another title.
        "notes/db-review.md": n(
            "Database review notes",
            "The pgbouncer pool size came up: the pgbouncer pool size stays, pgbouncer pool size "
            "is fine.",
        ),
    }
    for i in range(12):  # unrelated notes so that word frequencies mean something
        files[f"notes/other-{i}.md"] = n(f"Other topic {i}", f"Celery queue {i} routes pdf tasks.")
    return make_palace(files, toml=HASH_TOML)


def paths(s: Searcher, q: str) -> list[str]:
    return [h.path for h in s.search(q, limit=5)]


def test_name_share_counts_key_terms_by_crude_stem() -> None:
    prefixes = [term_prefix(t) for t in ("deploys", "production")]
    assert name_share("Deploy to production", prefixes) == 1.0
    assert name_share("Deploying on Fridays", prefixes) == 0.5
    assert name_share("Celery queues", prefixes) == 0.0
    assert name_share("anything", []) == 0.0


def test_question_prefers_the_note_named_for_it(make_palace: MakePalace) -> None:
    root = titled_palace(make_palace)
    q = "What is the pgbouncer pool size?"
    assert natural_language(q)
    hits = Searcher(Palace.open(root)).search(q, limit=5)
    assert [h.path for h in hits[:2]] == ["notes/pool-size.md", "notes/db-review.md"]
    assert all(0.0 <= h.score <= 1.0 for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_without_the_name_rule_the_body_mentions_win(
    make_palace: MakePalace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same palace and question with no name share and the name field weighted like the
    body: the note that repeats the terms in its body leads, so it is the name rule that puts
    the titled note first."""
    root = titled_palace(make_palace)
    s = Searcher(Palace.open(root))
    s.tuning = replace(Tuning(), named=0.0, unnamed=1.0, fields=(1.0, 1.5, 1.5, 1.0, 0.25))
    assert paths(s, "What is the pgbouncer pool size?")[0] == "notes/db-review.md"


def test_keyword_lookup_is_not_reranked(
    make_palace: MakePalace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A keyword lookup (no function words, fewer than four terms) is not scored by the share
    of its terms in the name (BM25F's name field weight applies to every query)."""
    root = titled_palace(make_palace)
    assert not natural_language("pgbouncer pool")
    s = Searcher(Palace.open(root))
    with_rule = s.search("pgbouncer pool", limit=5)
    s.tuning = replace(Tuning(), named=0.0)
    without = s.search("pgbouncer pool", limit=5)
    assert [(h.path, h.score) for h in with_rule] == [(h.path, h.score) for h in without]


def test_every_candidate_is_reranked(make_palace: MakePalace) -> None:
    """The note that matches the question best leads, however many candidates share a word
    with it (every candidate is scored, not only the head of a ranking)."""
    files = {
        f"notes/filler-{i:02d}.md": n(f"Filler {i:02d}", "release notes, nothing else")
        for i in range(40)
    }
    files["notes/release-train.md"] = n(
        "Release train schedule", "The release train leaves every second Tuesday."
    )
    root = make_palace(files, toml=HASH_TOML)
    s = Searcher(Palace.open(root))
    scored, _rows = s.fused(
        "When does the release train schedule leave?", s_filter(s), 30, fuzzy=False
    )
    assert scored[0][0] == "notes/release-train.md"
    assert len(scored) == 41
    assert all(0.0 <= score <= 1.0 for _p, score in scored)


def s_filter(s: Searcher) -> Filter:
    return Filter.of(s.palace)


def test_search_lists_the_current_note_before_the_one_it_superseded(
    make_palace: MakePalace, monkeypatch: pytest.MonkeyPatch
) -> None:
    old_body = "Deploys run by hand: fab deploy from the laptop, fab deploy restarts workers."
    files = {
        "notes/deploy-by-hand.md": note_text(
            "Deploy by hand with fab deploy",
            type="project",
            body=old_body + "\n",
            extra="status: superseded\nsuperseded_by: deploy-on-tags\n",
        ),
        "notes/deploy-on-tags.md": note_text(
            "Deploys on version tags",
            type="project",
            body="A tag starts the workflow that runs the tests and then the deploy.\n",
            extra="supersedes: deploy-by-hand\n",
        ),
    }
    for i in range(12):
        files[f"notes/other-{i}.md"] = n(f"Other topic {i}", f"Celery queue {i} routes pdf tasks.")
    root = make_palace(files, toml=HASH_TOML)
    s = Searcher(Palace.open(root))
    hits = s.search("fab deploy", limit=5)
    got = [h.path for h in hits]
    assert got[:2] == ["notes/deploy-on-tags.md", "notes/deploy-by-hand.md"]
    assert hits[1].successor == "notes/deploy-on-tags.md"
    only_old = s.search("fab deploy", status="superseded", limit=5)
    assert [h.path for h in only_old] == ["notes/deploy-by-hand.md"]  # still found by status
    # without the penalty the old note, which says "fab deploy" three times, leads
    monkeypatch.setattr(searcher_module, "SUPERSEDED_PENALTY", 1.0)
    assert s.search("fab deploy", limit=5)[0].path == "notes/deploy-by-hand.md"


def test_one_search_is_one_lancedb_query_and_the_schema_is_read_once(
    make_palace: MakePalace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search asks LanceDB one (hybrid) query, BM25 and vector legs together (of the
    table's asynchronous face: see `curator.search.store`), and reads the table's schema once
    for the table's life, not on every query it builds; the hits still hold both the name
    match and the body match."""
    import lancedb.table

    files = {f"notes/filler-{i:02d}.md": n(f"Filler {i:02d}", "nothing here") for i in range(8)}
    files["notes/retry.md"] = n("Retry queue depth", "The retry queue holds five jobs.")
    files["notes/jobs.md"] = n("Worker settings", "Jobs go to the retry queue after a timeout.")
    root = make_palace(files, toml=HASH_TOML)
    s = Searcher(Palace.open(root))
    s.search("retry queue")  # the table opened, its schema read
    calls = {"search": 0, "schema": 0}
    table_cls, async_cls = lancedb.table.LanceTable, lancedb.table.AsyncTable
    real_search, real_query = table_cls.search, async_cls.query
    real_schema = table_cls.schema

    def search(self: object, *args: object, **kwargs: object) -> object:
        calls["search"] += 1
        return real_search(self, *args, **kwargs)  # type: ignore[arg-type]

    def query(self: object) -> object:
        calls["search"] += 1
        return real_query(self)  # type: ignore[arg-type]

    def schema(self: object) -> object:
        calls["schema"] += 1
        return real_schema.fget(self)  # type: ignore[attr-defined]

    monkeypatch.setattr(table_cls, "search", search)
    monkeypatch.setattr(async_cls, "query", query)
    monkeypatch.setattr(table_cls, "schema", property(schema))
    hits = s.search("retry queue", limit=5)
    assert {"notes/retry.md", "notes/jobs.md"} <= {h.path for h in hits}
    assert calls == {"search": 1, "schema": 0}


def test_the_query_reads_the_path_only_and_hits_stay_whole(
    make_palace: MakePalace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hybrid query asks LanceDB for the path only (each column it returns is read from
    disk, a vector for both legs' rows); a hit of a note the palace holds takes the rest from
    the palace and its vector from the ranker (taken once with its features), and one the
    palace does not hold (the index synced ahead of it) from the index, whole."""
    from lancedb.query import AsyncHybridQuery

    files = {
        "notes/retry.md": n("Retry queue depth", "The retry queue holds five jobs."),
        "notes/jobs.md": n("Worker settings", "Jobs go to the retry queue after a timeout."),
    }
    root = make_palace(files, toml=HASH_TOML)
    Searcher(Palace.open(root))  # the index holds both notes
    (root / "notes/jobs.md").unlink()
    s = Searcher(Palace.open(root), sync=False)  # a palace without one of them
    selected: list[list[str]] = []
    real = AsyncHybridQuery.select

    def select(self: object, columns: list[str]) -> object:
        selected.append(list(columns))
        return real(self, columns)  # type: ignore[arg-type]

    monkeypatch.setattr(AsyncHybridQuery, "select", select)
    hits = {h.path: h for h in s.search("retry queue", limit=5)}
    assert selected == [["path"]]
    table = {r["path"]: r["vector"] for r in s.store.all_rows()}
    held = s._held_vector("notes/retry.md")
    assert held is not None and np.array_equal(held, table["notes/retry.md"])
    assert s._held_vector("notes/jobs.md") is None  # not a note of this palace
    assert {h.path: h for h in s.search("retry queue", limit=5)} == hits  # from what it held
    assert "retry queue" in hits["notes/retry.md"].snippet.lower()
    assert "retry queue" in hits["notes/jobs.md"].snippet.lower()
    assert hits["notes/jobs.md"].name == "Worker settings"
    assert hits["notes/jobs.md"].description == "About worker settings."


def conversation_palace(make_palace: MakePalace) -> Path:
    """Two people's turns: Melanie says what she did; Caroline's reply addresses her by name and
    holds more of the question's words."""

    def turn(speaker: str, body: str) -> str:
        return note_text(f"{speaker} on 8 May 2023", type="episodic", description="", body=body)

    files = {
        "notes/mel.md": turn("Melanie", "We took the kids camping up at Pine Lake.\n"),
        "notes/car.md": turn("Caroline", "Melanie, you go camping with the kids so often!\n"),
    }
    for i in range(12):  # unrelated turns so that word frequencies mean something
        files[f"notes/other-{i}.md"] = turn("Someone", f"Celery queue {i} routes pdf tasks.\n")
    return make_palace(files, toml=HASH_TOML)


def test_a_question_naming_a_person_scores_down_the_notes_not_named_for_them(
    make_palace: MakePalace,
) -> None:
    """A question naming a person some notes are named for: the others (a reply that addresses
    her by name and repeats the question's words) are scaled by `Tuning.unnamed`, so her own
    turn leads; without the rule the reply leads. A question no note's name answers to, and a
    keyword lookup, are scored as before."""
    root = conversation_palace(make_palace)
    s = Searcher(Palace.open(root))
    q = "Where did Melanie go camping with her kids?"
    assert 0.0 < Tuning().unnamed < 1.0
    assert s.search(q, limit=5)[0].path == "notes/mel.md"  # as shipped
    s.tuning = replace(Tuning(), unnamed=1.0)
    without = {h.path: h.score for h in s.search(q, limit=5)}
    assert max(without, key=lambda p: without[p]) == "notes/car.md"
    s.tuning = replace(Tuning(), unnamed=0.5)
    hits = s.search(q, limit=5)
    assert [h.path for h in hits[:2]] == ["notes/mel.md", "notes/car.md"]
    scores = {h.path: h.score for h in hits}
    assert scores["notes/mel.md"] == pytest.approx(without["notes/mel.md"], abs=1e-4)
    assert scores["notes/car.md"] == pytest.approx(0.5 * without["notes/car.md"], abs=1e-4)
    for other in ("Where do the kids go camping?", "camping kids"):
        s.tuning = Tuning()
        kept = [(h.path, h.score) for h in s.search(other, limit=5)]
        s.tuning = replace(Tuning(), unnamed=1.0)
        assert kept == [(h.path, h.score) for h in s.search(other, limit=5)]


def test_soft_term_matching_is_each_terms_best_word_however_the_words_are_held(
    make_palace: MakePalace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Soft term matching reads each note's words as rows of one matrix of word embeddings
    (issue 34: the words were gathered into a new matrix on every query): a note's score is
    still each key term's best cosine similarity to one of its words, weighted, and stays so
    when the matrix fills up and starts afresh (a tiny bound here)."""
    import numpy as np

    import curator.search.ranking as ranking
    from curator.search.embed import word_embedder
    from curator.search.text import key_terms
    from curator.search.words import sif_weight

    root = titled_palace(make_palace)
    s = Searcher(Palace.open(root))
    rows = {p: s._doc_row(p) for p in sorted(s.palace.by_rel)}
    paths = list(rows)
    embed = word_embedder(s.source.embedder).embed
    queries = ["what is the pgbouncer pool size?", "which celery queue routes the pdf tasks?"]

    def expected(query: str) -> np.ndarray:
        terms = key_terms(query)
        freq = s._corpus().counts
        total = max(1, sum(freq.values()))
        weights = np.asarray([sif_weight(freq, total, t) for t in terms])
        out = []
        for p in paths:
            words = list(s._note_words(p, rows[p]))
            sims = np.clip(np.asarray(embed(terms)) @ np.asarray(embed(words)).T, 0.0, 1.0)
            out.append(float(weights @ sims.max(axis=1)) / float(weights.sum()))
        return np.asarray(out)

    for query in queries:
        soft, _named = s._soft_scores(query, paths, rows)
        assert np.allclose(soft, expected(query), atol=1e-6) and soft.max() > 0
    monkeypatch.setattr(ranking, "WORD_VECTOR_CACHE", 40)  # fewer than the notes' words
    fresh = Searcher(Palace.open(root))
    for query in [*queries, *queries]:  # the second round after the matrix started afresh
        soft, _named = fresh._soft_scores(query, paths, rows)
        assert np.allclose(soft, expected(query), atol=1e-6)


def test_a_long_lived_searcher_reads_an_edited_note_afresh(make_palace: MakePalace) -> None:
    """A warm server's searcher outlives palace reloads: what ranking read of a note (its
    field terms, key words and word rows) is held only while the palace holds that very note,
    so a note edited since is scored by its new text (it was scored by its old one: a new
    word in it found nothing)."""
    from curator.session import Session

    root = titled_palace(make_palace)
    session = Session.open(root)
    try:
        searcher = session.searcher()
        assert "notes/other-3.md" in [h.path for h in searcher.search("celery queue 3")]
        assert searcher.ask("which celery queue routes pdf tasks?").sources
        note = root / "notes" / "other-3.md"
        note.write_text(n("Other topic 3", "Quokka queue 3 routes zeppelin tasks."))
        session.changed()  # what a watcher reports
        again = session.searcher(session.palace)
        assert again is searcher  # the same searcher, synced to the palace read again
        assert [h.path for h in again.search("zeppelin")] == ["notes/other-3.md"]
        sources = again.ask("which quokka queue routes zeppelin tasks?").sources
        assert sources and sources[0].path == "notes/other-3.md"
    finally:
        session.close()
