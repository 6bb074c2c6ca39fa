"""Search, ask, pack and dupes over a real LanceDB index in tmp_path (hash embedder, except the
dupes test on the sample palace, which uses the bundled WordLlama model)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from palacehelpers import MakePalace, git, note_text

from curator.model.palace import Palace
from curator.search.filters import SearchError
from curator.search.hooks import sync_after_commit
from curator.search.index import docs_from_palace, head_commit, index_dir, open_index, reindex
from curator.search.searcher import Searcher
from curator.search.store import STATE_FILE
from curator.search.text import make_snippet

HASH_TOML = '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[index]\nembedder = "hash"\ndim = 64\n'


def n(name: str, body: str, *, type: str = "project", extra: str = "") -> str:
    return note_text(name, type=type, body=body + "\n", extra=extra)


def base_files() -> dict[str, str]:
    return {
        "notes/feedback/deploy-rule.md": n(
            "Deploy only from tags", "Deploy production only from version tags.", type="feedback"
        ),
        "notes/user/maya-deploys.md": n(
            "Maya approves deploys", "Maya approves every production deploy herself.", type="user"
        ),
        "notes/project/deploy-old.md": n(
            "Deploy with fabric",
            "Production deploy runs fab deploy from a laptop.",
            extra="status: superseded\nsuperseded_by: deploy-new\n",
        ),
        "notes/project/deploy-new.md": n(
            "Deploy on tags via actions", "The deploy workflow runs on tags in GitHub Actions."
        ),
        "notes/reference/deploy-dashboard.md": n(
            "Deploy dashboard link",
            "The production deploy dashboard lives in Grafana.",
            type="reference",
            extra='stale: {reason: "Grafana moved", since: 2026-11-01}\n',
        ),
        "notes/project/low-confidence.md": n(
            "Deploy rumour",
            "Someone said deploy runs on Fridays.",
            extra="confidence: 0.5\n",
        ),
        "notes/project/celery.md": n("Celery queues", "Celery routes pdf tasks to the pdf queue."),
        "inbox/2026-11-01-deploy-draft.md": n(
            "Deploy draft",
            "> DRAFT — unreviewed, NOT a rule until a reviewer promotes it.\n\n"
            "Maybe deploy needs a smoke test after each production deploy.",
            extra="status: draft\n",
        ),
    }


@pytest.fixture
def palace_root(make_palace: MakePalace) -> Path:
    return make_palace(base_files(), toml=HASH_TOML)


def searcher(root: Path) -> Searcher:
    return Searcher(Palace.open(root))


# --------------------------------------------------------------------------- index sync


def test_first_open_builds_then_syncs_incrementally(palace_root: Path) -> None:
    s = searcher(palace_root)
    assert s.sync_stats is not None and s.sync_stats.rebuilt
    assert s.store.count() == 8
    state = s.store.state
    assert state is not None and state.embedder == "hash" and state.dim == 64
    assert state.commit == git(palace_root, "rev-parse", "HEAD").stdout.strip()

    again = searcher(palace_root)
    assert again.sync_stats is not None
    assert (again.sync_stats.added, again.sync_stats.updated, again.sync_stats.removed) == (0, 0, 0)

    path = palace_root / "notes/project/celery.md"
    path.write_text(n("Celery queues", "Celery routes invoices to the xylophone queue."))
    third = searcher(palace_root)
    assert third.sync_stats is not None
    assert (third.sync_stats.updated, third.sync_stats.unchanged) == (1, 7)
    assert third.search("xylophone", limit=3)[0].path == "notes/project/celery.md"


def test_deleted_notes_are_removed(palace_root: Path) -> None:
    searcher(palace_root)
    (palace_root / "notes/project/celery.md").unlink()
    s = searcher(palace_root)
    assert s.sync_stats is not None and s.sync_stats.removed == 1
    assert all(h.path != "notes/project/celery.md" for h in s.search("celery pdf queue"))


def test_reindex_builds_a_new_table_and_switches(palace_root: Path) -> None:
    s = searcher(palace_root)
    before = s.store.state
    stats = reindex(s.palace)
    after = s.store.state
    assert stats.rebuilt and stats.added == 8
    assert before is not None and after is not None and before.table != after.table
    tables = sorted(p.name for p in index_dir(palace_root).glob("docs_*.lance"))
    assert tables == [f"{after.table}.lance"]
    assert searcher(palace_root).search("celery")[0].path == "notes/project/celery.md"


def test_embedder_change_in_palace_toml_rebuilds(palace_root: Path) -> None:
    searcher(palace_root)
    (palace_root / "palace.toml").write_text(HASH_TOML.replace("dim = 64", "dim = 32"))
    s = searcher(palace_root)
    assert s.sync_stats is not None and s.sync_stats.rebuilt
    assert "embedder changed" in s.sync_stats.reason
    assert s.store.state is not None and s.store.state.dim == 32


def test_zero_byte_state_is_moved_aside_and_rebuilt(palace_root: Path) -> None:
    searcher(palace_root)
    (index_dir(palace_root) / STATE_FILE).write_bytes(b"")
    s = searcher(palace_root)
    assert s.recovered and Path(s.recovered[0]).name.startswith("index.corrupt-")
    assert s.sync_stats is not None and s.sync_stats.rebuilt
    assert s.search("celery")[0].path == "notes/project/celery.md"


def test_the_after_commit_hook_syncs_only_an_existing_index(palace_root: Path) -> None:
    sync_after_commit(palace_root, None, [])
    assert not index_dir(palace_root).exists()  # no index: nothing built by the hook
    searcher(palace_root)
    (palace_root / "notes/project/celery.md").write_text(n("Celery queues", "quokka tasks"))
    sync_after_commit(palace_root, None, ["notes/project/celery.md"])
    store = open_index(Palace.open(palace_root))
    assert store.state is not None and store.state.commit == head_commit(palace_root)
    rows = store.fts("quokka", where=None)
    assert [r["path"] for r in rows] == ["notes/project/celery.md"]


def test_docs_carry_stale_reason_and_scope_sensitivity(make_palace: MakePalace) -> None:
    toml = HASH_TOML + "\n[scopes.secret]\nsensitive = true\n"
    root = make_palace(
        {
            "notes/project/a.md": n("A", "x", extra="scope: secret\n"),
            "notes/project/b.md": n("B", "y", extra='stale: {reason: "gone", since: 2026-01-01}\n'),
        },
        toml=toml,
    )
    docs = {d.path: d for d in docs_from_palace(Palace.open(root))}
    assert docs["notes/project/a.md"].sensitive and not docs["notes/project/b.md"].sensitive
    assert docs["notes/project/b.md"].stale and docs["notes/project/b.md"].stale_reason == "gone"


# --------------------------------------------------------------------------- search


def test_search_filters(palace_root: Path) -> None:
    s = searcher(palace_root)
    paths = lambda hits: {h.path for h in hits}  # noqa: E731
    assert paths(s.search("deploy", types=["user"])) == {"notes/user/maya-deploys.md"}
    assert paths(s.search("deploy", status="superseded")) == {"notes/project/deploy-old.md"}
    assert paths(s.search("deploy", stale=True)) == {"notes/reference/deploy-dashboard.md"}
    assert "notes/project/low-confidence.md" not in paths(s.search("deploy", min_confidence=0.7))
    assert "notes/project/low-confidence.md" in paths(s.search("deploy rumour fridays"))
    assert not any(h.kind == "draft" for h in s.search("deploy", limit=20))
    drafted = s.search("smoke test deploy", drafts=True, limit=20)
    assert "inbox/2026-11-01-deploy-draft.md" in paths(drafted)
    with pytest.raises(SearchError, match=r"unknown scope 'nowhere' \(known: "):
        s.search("deploy", scope="nowhere")  # refused with the known ones, never "no results"
    old = next(h for h in s.search("fabric laptop") if h.path == "notes/project/deploy-old.md")
    assert old.successor == "notes/project/deploy-new.md"


def test_search_result_fields_snippet_and_spans(palace_root: Path) -> None:
    hit = searcher(palace_root).search("celery queue")[0]
    assert (hit.path, hit.name, hit.type) == ("notes/project/celery.md", "Celery queues", "project")
    assert 0 < hit.score <= 1
    assert "Celery routes" in hit.snippet
    marked = [hit.snippet[a:b].lower() for a, b in hit.spans]
    assert "celery" in marked and "queue" in marked


def test_snippet_is_clean_of_control_characters() -> None:
    body = "Intro line.\n\nThe \x1b[31mwebhook\x1b[0m secret\x07 rotates yearly.\r\nOther."
    snippet, spans = make_snippet(body, "", "webhook secret")
    assert "\x1b" not in snippet and "\x07" not in snippet and "\r" not in snippet
    assert [snippet[a:b] for a, b in spans] == ["webhook", "secret"]


def test_short_prefix_query_matches_names(palace_root: Path) -> None:
    hits = searcher(palace_root).search("cele", limit=3)
    assert hits and hits[0].path == "notes/project/celery.md"


# --------------------------------------------------------------------------- ask


def test_ask_orders_by_authority_and_handles_superseded_stale_drafts(palace_root: Path) -> None:
    answer = searcher(palace_root).ask("how do we deploy to production?", limit=8)
    paths = [s.path for s in answer.sources]
    assert "notes/project/deploy-old.md" not in paths  # never returned as itself
    new = next(s for s in answer.sources if s.path == "notes/project/deploy-new.md")
    assert new.superseded_from == ("notes/project/deploy-old.md",)
    ranks = [(s.draft, s.authority_rank) for s in answer.sources]
    assert ranks == sorted(ranks)
    assert answer.sources[0].type == "user" and answer.sources[1].type == "feedback"
    draft = answer.sources[-1]
    assert draft.draft and draft.label == "unreviewed draft"
    stale = next(s for s in answer.sources if s.stale)
    assert stale.label == "stale: Grafana moved"
    assert len(answer.phrasings) == 2 and answer.phrasings[1] == "deploy production"


def test_ask_ranks_stale_down_within_its_type(make_palace: MakePalace) -> None:
    root = make_palace(
        {
            "notes/project/a.md": n(
                "Pdf worker memory", "pdf worker memory limit", extra="stale: old\n"
            ),
            "notes/project/b.md": n("Pdf worker", "pdf worker memory limit raised to 2 GB"),
        },
        toml=HASH_TOML,
    )
    sources = searcher(root).ask("pdf worker memory limit").sources
    assert [s.path for s in sources] == ["notes/project/b.md", "notes/project/a.md"]
    assert sources[1].stale and not sources[0].stale


# --------------------------------------------------------------------------- pack


def test_pack_budget_floor_stale_warning_and_determinism(palace_root: Path) -> None:
    s = searcher(palace_root)
    text = s.pack("deploy to production", budget=400, floor=0.7)
    assert text == searcher(palace_root).pack("deploy to production", budget=400, floor=0.7)
    assert len(text) / 4 <= 400 + 10
    assert "notes/project/low-confidence.md" not in text  # below the floor
    assert "notes/project/deploy-old.md" not in text  # superseded
    assert "inbox/" not in text  # drafts are not rules
    warnings = [ln for ln in text.splitlines() if "stale" in ln.lower() and "⚠" in ln]
    assert len(warnings) == 1 and "notes/reference/deploy-dashboard.md" in warnings[0]
    entries = re.findall(r"^> hint, not truth — source: (\S+)", text, re.M)
    assert entries and "notes/reference/deploy-dashboard.md" not in entries
    small = s.pack("deploy to production", budget=120, floor=0.7)
    assert small.count("> hint, not truth") < text.count("> hint, not truth")
    lowered = s.pack("deploy rumour fridays", budget=2000, floor=0.4)
    assert "notes/project/low-confidence.md" in lowered


def test_pack_fills_its_budget_down_the_ranking(make_palace: MakePalace) -> None:
    """In rank order, each note takes its whole entry when it fits, else its description alone
    when that fits: a note far down the ranking still gets in when its short entry fits."""
    from curator.agents.context import split_pack
    from curator.search.pack import SUMMARY_TOKENS, tokens

    files = {}
    for i in range(9):
        body = "The billing worker retries the invoice job. " * (60 if i % 3 else 3)
        files[f"notes/project/b{i}.md"] = note_text(
            f"Billing worker note {i}", description="" if i == 4 else None, body=body + "\n",
            extra="confidence: 0.9\n",
        )  # fmt: skip
    palace = Palace.open(make_palace(files, toml=HASH_TOML))
    s = Searcher.over_palace(palace)
    goal = "billing worker invoice retries"
    preamble, ranked = split_pack(s.pack(goal, budget=100_000))
    assert len(ranked) == 9
    for budget in range(100, 2000, 37):
        used = tokens(preamble.split("\n_", 1)[0].rstrip("\n") + "\n") + SUMMARY_TOKENS
        want = []
        for full in ranked:
            head, _, rest = full.partition("\n\n")
            desc = rest.split("\n", 1)[0]
            short = f"{head}\n\n{desc}\n" if desc and not desc.startswith("The billing") else ""
            for entry in (full, short):
                if entry and used + tokens(entry) <= budget:
                    want.append(entry)
                    used += tokens(entry)
                    break
        assert split_pack(s.pack(goal, budget=budget))[1] == want, budget


# --------------------------------------------------------------------------- dupes


def test_dupes_finds_the_near_duplicate_draft_in_the_sample(sample_palace: Path) -> None:
    s = searcher(sample_palace)  # the sample uses the bundled WordLlama embedder
    assert s.store.embedder.name == "wordllama"
    found = s.dupes("inbox/2026-11-29-always-run-tests-before-finishing.md")
    assert found[0].path == "notes/feedback/run-make-test-before-saying-done.md"
    assert all(c.path != "inbox/2026-11-29-always-run-tests-before-finishing.md" for c in found)
    scores = [c.score for c in found]
    assert scores == sorted(scores, reverse=True)
    pairs = s.dupes(all=True, limit=3)
    assert {pairs[0].a, pairs[0].b} == {
        "inbox/2026-11-29-always-run-tests-before-finishing.md",
        "notes/feedback/run-make-test-before-saying-done.md",
    }
    # nothing was merged or written
    assert git(sample_palace, "status", "--porcelain").stdout.strip() == ""


def test_pack_is_byte_identical_whatever_ran_before_and_in_a_fresh_process(
    palace_root: Path,
) -> None:
    import subprocess
    import sys

    fresh = searcher(palace_root).pack("deploy to production", budget=600)
    busy = searcher(palace_root)
    for q in ("celery", "deploy rumour", "what runs on tags?", "grafana dashboard"):
        busy.search(q)
        busy.ask(q)
    assert busy.pack("deploy to production", budget=600) == fresh
    code = (
        "import sys; from curator.session import Session; "
        "s = Session.open(sys.argv[1]).searcher(); "
        "sys.stdout.write(s.pack('deploy to production', budget=600))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(palace_root)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == fresh
