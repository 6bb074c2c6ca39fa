"""The search commands end to end: search, ask, pack, dupes, reindex, --queries JSONL, a corrupt
index recovered by the CLI, and lancedb kept out of commands that do not search."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from palacehelpers import MakePalace, RunCli, note_text

from curator.search.index import index_dir
from curator.search.store import STATE_FILE

TOML = '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[index]\nembedder = "hash"\ndim = 64\n'


@pytest.fixture
def root(make_palace: MakePalace) -> Path:
    return make_palace(
        {
            "notes/project/webhooks.md": note_text(
                "Stripe webhooks", body="Stripe webhook handler dedupes on the event id.\n"
            ),
            "notes/feedback/idempotent.md": note_text(
                "Webhooks must be idempotent",
                type="feedback",
                body="Every webhook handler records the event id first.\n",
            ),
            "notes/project/pdf.md": note_text(
                "PDF worker", body="The \x1b[31mpdf\x1b[0m worker renders invoices.\n"
            ),
            "inbox/2026-01-02-webhook-draft.md": note_text(
                "Webhook retries",
                body="Stripe retries a failed webhook handler for three days.\n",
                extra="status: draft\n",
            ),
        },
        toml=TOML,
    )


def test_search_json_and_text(root: Path, run_cli: RunCli) -> None:
    code, out, _ = run_cli("--palace", root, "search", "webhook handler", "--json")
    assert code == 0
    data = json.loads(out)
    results = data["results"]
    assert {r["path"] for r in results[:2]} == {
        "notes/project/webhooks.md",
        "notes/feedback/idempotent.md",
    }
    for key in ("path", "name", "type", "score", "snippet", "spans", "stale", "status", "kind"):
        assert key in results[0]
    code, out, _ = run_cli("--palace", root, "search", "webhook", "--type", "feedback")
    assert code == 0 and "notes/feedback/idempotent.md" in out
    assert "notes/project/webhooks.md" not in out
    code, out, _ = run_cli("--palace", root, "search", "webhook", "--drafts", "--limit", "10")
    assert "inbox/2026-01-02-webhook-draft.md" in out
    code, out, _ = run_cli("--palace", root, "search", "pdf worker")
    assert code == 0 and "\x1b" not in out


def test_ask_and_pack(root: Path, run_cli: RunCli) -> None:
    code, out, _ = run_cli("--palace", root, "ask", "what does the webhook handler do?", "--json")
    assert code == 0
    sources = json.loads(out)["sources"]
    assert sources[0]["type"] == "feedback" and sources[-1]["draft"]
    code, out, _ = run_cli("--palace", root, "ask", "what does the webhook handler do?")
    assert "unreviewed draft" in out
    code, first, _ = run_cli("--palace", root, "pack", "webhook handler", "--budget", "500")
    code2, second, _ = run_cli("--palace", root, "pack", "webhook handler", "--budget", "500")
    assert code == code2 == 0 and first == second
    assert "> hint, not truth — source: notes/" in first and "inbox/" not in first
    code, out, _ = run_cli("--palace", root, "pack", "webhook handler", "--budget", "500", "--json")
    assert code == 0 and json.loads(out)["pack"].rstrip("\n") == first.rstrip("\n")


def test_dupes_and_reindex(root: Path, run_cli: RunCli) -> None:
    code, out, _ = run_cli("--palace", root, "dupes", "inbox/2026-01-02-webhook-draft.md", "--json")
    assert code == 0
    candidates = json.loads(out)["candidates"]
    assert candidates and {"path", "name", "score", "vector_sim", "fuzz"} <= set(candidates[0])
    code, out, _ = run_cli("--palace", root, "dupes")
    assert code == 2
    code, out, _ = run_cli("--palace", root, "reindex", "--json")
    assert code == 0 and json.loads(out)["docs"] == 4


def test_queries_jsonl(root: Path, tmp_path: Path, run_cli: RunCli) -> None:
    queries = tmp_path / "queries.jsonl"
    lines = [
        json.dumps({"id": "a", "query": "webhook", "type": "feedback"}),
        "",
        json.dumps({"id": "b", "query": "pdf worker", "limit": 1}),
        "not json",
        json.dumps({"id": "c", "query": "x", "bogus": 1}),
    ]
    queries.write_text("\n".join(lines) + "\n")
    code, out, err = run_cli("--palace", root, "search", "--queries", queries)
    assert code == 2 and "2 queries failed" in err
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r.get("id") for r in rows] == ["a", "b", None, "c"]
    assert [r["path"] for r in rows[0]["results"]] == ["notes/feedback/idempotent.md"]
    assert len(rows[1]["results"]) == 1 and rows[1]["results"][0]["path"] == "notes/project/pdf.md"
    assert "not JSON" in rows[2]["error"] and "bogus" in rows[3]["error"]

    asks = tmp_path / "ask.jsonl"
    asks.write_text(json.dumps({"question": "what about webhooks?"}) + "\n")
    code, out, _ = run_cli("--palace", root, "ask", "--queries", asks)
    assert code == 0 and json.loads(out)["sources"]


@pytest.mark.parametrize("damage", ["state", "manifest"])
def test_corrupt_index_is_moved_aside_and_rebuilt_by_the_cli(
    root: Path, damage: str, run_cli: RunCli
) -> None:
    code, _, _ = run_cli("--palace", root, "search", "webhook")
    assert code == 0
    idx = index_dir(root)
    if damage == "state":
        (idx / STATE_FILE).write_bytes(b"")  # a power cut mid-write
    else:
        manifests = list(idx.glob("docs_*.lance/_versions/*.manifest"))
        assert manifests
        for m in manifests:
            m.write_bytes(b"")
    # a fresh process, as after a power cut
    proc = subprocess.run(
        [sys.executable, "-m", "curator", "--palace", str(root), "search", "webhook", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        # as a user's shell has it: curator itself keeps LanceDB's engine log to errors
        env={k: v for k, v in os.environ.items() if k != "LANCEDB_LOG"},
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "WARN" not in proc.stderr  # the engine's notes would garble an agent's output
    assert json.loads(proc.stdout)["results"]
    assert list(root.glob(".curator/index.corrupt-*"))
    if damage == "state":
        assert "moved aside" in proc.stderr


def test_list_does_not_import_lancedb(root: Path) -> None:
    code = (
        "import sys; from curator.cli import main; rc = main(['--palace', sys.argv[1], 'list']); "
        "assert 'lancedb' not in sys.modules, 'lancedb imported'; "
        "assert 'curator.search.searcher' not in sys.modules; sys.exit(rc)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(root)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr


def test_refuses_to_empty_a_good_index_loudly(root: Path, run_cli: RunCli) -> None:
    assert run_cli("--palace", root, "search", "webhook")[0] == 0
    for path in (root / "notes").rglob("*.md"):
        path.write_text("---\nname: [broken\n---\nbody\n")
    for path in (root / "inbox").rglob("*.md"):
        path.write_text("no header at all\n")
    code, _out, err = run_cli("--palace", root, "search", "webhook")
    assert code == 2 and "refusing" in err and "curator check" in err and "Traceback" not in err
    assert json.loads((index_dir(root) / STATE_FILE).read_text())["doc_count"] == 4
