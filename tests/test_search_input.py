"""Hostile search input (issue 11): limits checked before LanceDB sees them, an index moved
aside kept once, every `search --queries` field type-checked line by line, and a misplaced
index folder or unknown embedder reported in one line with an exit code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from palacehelpers import MakePalace, RunCli, note_text

from curator.config import load_config
from curator.errors import ConfigError
from curator.model.palace import Palace
from curator.model.schema import FILTER_STATUSES
from curator.search.filters import MAX_LIMIT, SearchError
from curator.search.index import index_dir, open_index
from curator.search.searcher import Searcher
from curator.search.store import STATE_FILE

TOML = '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[index]\nembedder = "hash"\ndim = 64\n'
SECRET = "notes/project/vault-key.md"


@pytest.fixture
def root(make_palace: MakePalace) -> Path:
    return make_palace(
        {
            "notes/project/webhooks.md": note_text("Stripe webhooks", body="webhook handler\n"),
            "notes/project/stale.md": note_text(
                "Old webhook note",
                body="webhook retries\n",
                extra='stale: {reason: "moved", since: 2026-01-01}\n',
            ),
            SECRET: note_text("Vault key", body="webhook signing key\n", extra="sensitive: true\n"),
        },
        toml=TOML,
    )


def corrupt_copies(root: Path) -> list[Path]:
    return sorted(root.glob(".curator/index.corrupt-*"))


@pytest.mark.parametrize("limit", ["99999999999", "-1", str(MAX_LIMIT + 1), "ten"])
def test_a_limit_out_of_range_is_refused_before_any_query(
    root: Path, run_cli: RunCli, limit: str
) -> None:
    assert run_cli("--palace", root, "search", "webhook")[0] == 0
    code, _out, err = run_cli("--palace", root, "search", "webhook", "--limit", limit)
    assert code == 2 and "--limit" in err and "Traceback" not in err
    assert corrupt_copies(root) == []


def test_the_api_refuses_huge_limits_and_keeps_the_index(root: Path) -> None:
    s = Searcher(Palace.open(root))
    for bad in (10**12, 2**63, -1, True, 2.5):
        with pytest.raises(SearchError, match="limit"):
            s.search("webhook", limit=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="row limit"):
        s.store.fts("webhook", limit=2**63)
    assert s.store.ready and s.store.recovered == [] and corrupt_copies(root) == []
    assert s.search("webhook", limit=MAX_LIMIT)


def test_an_index_moved_aside_is_kept_once(root: Path) -> None:
    Searcher(Palace.open(root))
    for _ in range(3):
        (index_dir(root) / STATE_FILE).write_bytes(b"")  # damaged again and again
        s = Searcher(Palace.open(root))
        assert s.recovered and s.search("webhook")
    copies = corrupt_copies(root)
    assert len(copies) == 1 and (copies[0] / "REASON.txt").is_file()


def test_string_false_is_an_error_not_true(root: Path, tmp_path: Path, run_cli: RunCli) -> None:
    queries = tmp_path / "q.jsonl"
    lines = [
        {"id": 1, "query": "webhook", "include_sensitive": "false"},
        {"id": 2, "query": "webhook", "stale": "false"},
        {"id": 3, "query": "webhook", "limit": 5},
    ]
    queries.write_text("".join(json.dumps(x) + "\n" for x in lines))
    code, out, err = run_cli("--palace", root, "search", "--queries", queries)
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 2 and "2 queries failed" in err
    assert "include_sensitive" in rows[0]["error"] and "results" not in rows[0]
    assert "stale" in rows[1]["error"] and "results" not in rows[1]
    assert SECRET not in {r["path"] for r in rows[2]["results"]}  # the batch went on


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 2**64) | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=4,
)
NEAR_MISSES = st.sampled_from(["false", "true", "", "0", "0.5", 0, 1, -1, 1.5, [True], ["a", 1]])
WORDS = st.sampled_from(["feedback", "project", "active", "it's"])
VALID: dict[str, st.SearchStrategy[Any]] = {
    "types": st.none() | WORDS | st.lists(WORDS, max_size=2),
    "type": WORDS,
    "scope": st.none() | WORDS,
    "status": st.lists(WORDS, max_size=2),
    "stale": st.none() | st.booleans(),
    "drafts": st.booleans(),
    "include_sensitive": st.booleans(),
    "min_confidence": st.none() | st.floats(0, 1) | st.sampled_from([0, 1]),
    "limit": st.integers(0, 20),
}
LINES = st.fixed_dictionaries(
    {}, optional={k: st.one_of(v, v, NEAR_MISSES, JSON) for k, v in VALID.items()}
)


def _valid(key: str, value: Any, known: dict[str, Any]) -> bool:
    """The spec of each JSONL field, written out independently of the code under test: a
    filter value is one the palace knows (its types and scopes, the statuses), exactly."""
    if key in ("types", "type", "scope", "status"):
        items = [value] if isinstance(value, str) else value
        return value is None or (
            isinstance(items, list) and all(isinstance(v, str) and v in known[key] for v in items)
        )
    if key == "stale":
        return value is None or isinstance(value, bool)
    if key in ("drafts", "include_sensitive"):
        return isinstance(value, bool)
    if key == "min_confidence":
        number = isinstance(value, int | float) and not isinstance(value, bool)
        return value is None or (number and 0 <= value <= 1)
    number = isinstance(value, int) and not isinstance(value, bool)
    return number and 0 <= value <= MAX_LIMIT  # limit


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(items=st.lists(LINES, max_size=6))
def test_every_jsonl_field_is_type_checked_and_the_batch_goes_on(
    root: Path, run_cli: RunCli, items: list[dict[str, Any]]
) -> None:
    queries = root / ".curator" / "q.jsonl"
    queries.parent.mkdir(exist_ok=True)
    queries.write_text("".join(json.dumps({"query": "webhook", **x}) + "\n" for x in items))
    code, out, _err = run_cli("--palace", root, "search", "--queries", queries)
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == len(items)
    config = load_config(root)
    known = {"type": config.types, "types": config.types, "scope": config.scopes}
    known["status"] = FILTER_STATUSES
    for item, row in zip(items, rows, strict=True):
        ok = all(_valid(k, v, known) for k, v in item.items()) and not {"type", "types"} <= set(
            item
        )
        assert ("results" in row) == ok, (item, row)
        if ok and not item.get("include_sensitive"):
            assert SECRET not in {r["path"] for r in row["results"]}
    assert code == (0 if all("results" in r for r in rows) else 2)


@pytest.mark.parametrize("where", [".curator/index", ".curator"])
def test_an_index_folder_that_is_a_file_is_one_line(
    root: Path, run_cli: RunCli, where: str
) -> None:
    if where == ".curator/index":
        (root / ".curator").mkdir(exist_ok=True)
    (root / where).write_text("not a folder")
    code, _out, err = run_cli("--palace", root, "search", "webhook")
    assert code == 2 and where in err and "internal error" not in err
    assert len(err.strip().splitlines()) == 1
    assert (root / where).read_text() == "not a folder"  # left for the person to move


def test_an_unknown_embedder_is_one_line(root: Path, run_cli: RunCli) -> None:
    (root / "palace.toml").write_text(TOML.replace('"hash"', '"nonesuch"'))
    for command in (["search", "webhook"], ["check"]):
        code, _out, err = run_cli("--palace", root, *command)
        assert code in (1, 2) and "embedder" in err and "internal error" not in err
    with pytest.raises(ConfigError, match="embedder"):
        open_index(Palace.open(root))
