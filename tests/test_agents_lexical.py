"""The hooks' answer without the index (`Searcher.over_palace`, what a prompt gets while the warm
server is still opening the index, or with no server): the same ranking as the index's with
its vector part left out, the same visibility gate, and no LanceDB import in the process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace

import pytest
from agenthelpers import write_palace
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from palacehelpers import MakePalace, note_text

from curator.model.palace import Palace
from curator.search.filters import Filter
from curator.search.searcher import Searcher
from curator.search.text import stems
from curator.search.words import note_fields

TOML = (
    '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[index]\nembedder = "hash"\ndim = 64\n\n'
    "[scopes.app]\n\n[scopes.vault]\nsensitive = true\n"
)
WORDS = """billing worker retries idempotent queue rabbitmq deploy freeze filing invoice pdf
webhook stripe signature migration schema postgres index vacuum cache redis ttl when did
caroline go to the support group yesterday"""
NOTES = {
    "notes/project/queue.md": ("Billing queue is RabbitMQ", "The billing worker reads jobs "
                               "from the RabbitMQ billing queue.", "scope: app\n"),
    "notes/feedback/retries.md": ("Billing worker retries are idempotent", "Every billing "
                                  "worker retry records the job id first.", ""),
    "notes/project/freeze.md": ("Deploy freeze until filing", "No deploys of the billing "
                                "worker until the VAT filing.", "scope: app\n"),
    "notes/reference/stripe.md": ("Stripe webhook signatures", "Check the Stripe signature "
                                  "header before parsing a webhook.", ""),
    "notes/project/schema.md": ("Schema migrations", "Postgres schema migrations run before "
                                "the deploy; vacuum the index after.", ""),
    "notes/project/cache.md": ("Redis cache TTL", "The invoice pdf cache in Redis keeps a "
                               "one hour TTL.", ""),
    "notes/user/caroline.md": ("Caroline on 2023-05-08", "I went to a LGBTQ support group "
                               "yesterday.", "context: 'Melanie: how was your week? Caroline: "
                               "busy with the invoice pdf'\n"),
    "notes/project/secret.md": ("Vault billing worker password rotation", "The billing "
                                "worker password rotates weekly.", "scope: vault\n"),
}  # fmt: skip


@pytest.fixture(scope="module")
def palace(tmp_path_factory: pytest.TempPathFactory) -> Palace:
    files = {
        rel: note_text(name, body=body + "\n", extra=f"confidence: 0.9\n{extra}")
        for rel, (name, body, extra) in NOTES.items()
    }
    return Palace.open(write_palace(tmp_path_factory.mktemp("lexical") / "p", files, TOML))


@pytest.fixture(scope="module")
def full(palace: Palace) -> Searcher:
    """The index's searcher with its vector and soft parts weighed at zero."""
    searcher = Searcher(palace)
    searcher.tuning = replace(searcher.tuning, vector=0.0, soft=0.0)
    return searcher


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(WORDS.split()), min_size=1, max_size=7), st.booleans())
def test_the_ranking_is_the_index_ranking_without_its_vector_part(
    palace: Palace, full: Searcher, words: list[str], active: bool
) -> None:
    lexical = Searcher.over_palace(palace)
    query = " ".join(words)
    flt = Filter.of(palace, status="active" if active else None, drafts=True)
    got, _ = lexical.fused(query, flt, 30, fuzzy=False)
    want, _ = full.fused(query, flt, 30, fuzzy=False)
    terms = set(stems(query))  # the full ranking also keeps near misses of soft term matching
    shared = [p for p, _ in want if terms & set(stems(" ".join(note_fields(palace.by_rel[p]))))]
    assert [p for p, _ in got] == shared  # the parts' weights only scale the scores
    assert "notes/project/secret.md" not in {p for p, _ in got}  # a sensitive scope stays hidden


def test_search_ask_and_pack_answer_from_the_palace_alone(palace: Palace) -> None:
    lexical = Searcher.over_palace(palace)
    hits = lexical.search("billing worker retries", limit=3)
    assert hits[0].path == "notes/feedback/retries.md" and hits[0].spans
    assert "retries.md" in lexical.pack("make the billing worker retries safe")
    assert lexical.ask("when did caroline go to the support group").sources
    assert lexical.search("zzzz qqqq") == []  # nothing shares a word: nothing found
    assert all("secret" not in h.path for h in lexical.search("password rotation vault"))


def test_the_prompt_hook_without_a_server_never_imports_lancedb(palace: Palace) -> None:
    """The cold path: a prompt's memory from this process, with no LanceDB or embedder."""
    script = (
        "import sys, json\n"
        "from curator.agents.hookrun import run_hook\n"
        "text, failure = run_hook('claude-code', 'UserPromptSubmit', sys.stdin.read(), None)\n"
        "print(json.dumps([text, failure, 'lancedb' in sys.modules]))\n"
    )
    event = {"cwd": str(palace.root), "prompt": "make the billing worker retries safe"}
    proc = subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        env={**os.environ, "CURATOR_HOOK_WARM": "0", "CURATOR_HOOK_BUDGET": "60"},
        cwd=palace.root,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    text, failure, imported = json.loads(proc.stdout)
    assert failure is None and not imported
    context = json.loads(text)["hookSpecificOutput"]["additionalContext"]
    assert "notes/feedback/retries.md" in context and "secret.md" not in context


def test_the_palace_only_searcher_opens_no_index(make_palace: MakePalace) -> None:
    """A Searcher over the palace alone has no store (it never opened one) and says so when
    asked for what only the index has (dupes reads its vectors)."""
    from curator.search.filters import SearchError

    root = make_palace({"notes/project/a.md": note_text("Alpha deploys nightly")})
    searcher = Searcher.over_palace(Palace.open(root))
    assert not searcher.indexed and searcher.source.store is None
    assert [h.path for h in searcher.search("nightly deploys")] == ["notes/project/a.md"]
    with pytest.raises(SearchError, match="index"):
        searcher.dupes("notes/project/a.md")
    assert not (root / ".curator" / "index").exists()
