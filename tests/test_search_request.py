"""One search request from every door: a tag held by one note in 1,000 (and a date range one
note falls in) is found through the CLI's flags, `--queries` JSONL, the MCP server's tool (over
the SDK's client) and the app's search session. Each filter runs in the index's prefilter, so the
note is found however far down the unfiltered ranking it sits (the MCP tool used to fetch 200
rows and filter them afterwards, missing it): the two notes' bodies lack the query's word, so
both rank below the first 300 of the unfiltered search (asserted, not assumed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agenthelpers import HASH_TOML, served_here
from palacehelpers import RunCli, build_index, built_once, note_text

from curator.search.filters import Filter, SearchError
from curator.search.request import SearchRequest

NOTES = 1_000
RARE = "notes/n00777.md"  # the one note with the rare tag
OLD = "notes/n00333.md"  # the one note created in 2020


def _note(i: int) -> str:
    tag = "Zebra-Rare" if f"notes/n{i:05d}.md" == RARE else f"common{i % 7}"
    created = "2020-03-04" if f"notes/n{i:05d}.md" == OLD else "2026-05-06"
    rel = f"notes/n{i:05d}.md"
    return note_text(
        f"Deploy step {i}",
        description=f"How deploy step {i} runs.",
        body=("Run" if rel in (RARE, OLD) else "Deploy") + " the service after the checks pass.\n",
        extra=f"tags: [{tag}, deploy]\ncreated: {created}\n",
    )


@pytest.fixture(scope="session")
def big_palace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    def build(base: Path) -> None:
        root = base / "palace"
        (root / "notes").mkdir(parents=True)
        (root / "inbox").mkdir()
        (root / "palace.toml").write_text(HASH_TOML)
        for i in range(NOTES):
            (root / f"notes/n{i:05d}.md").write_text(_note(i))
        build_index(root, base)

    return built_once(tmp_path_factory, "one-thousand", build) / "palace"


def test_a_rare_tag_and_a_date_range_are_found_through_every_door(
    big_palace: Path, run_cli: RunCli, tmp_path: Path
) -> None:
    root = str(big_palace)
    code, out, err = run_cli("--palace", root, "search", "deploy", "--limit", "300", "--json")
    assert code == 0, err
    unfiltered = [h["path"] for h in json.loads(out)["results"]]
    assert len(unfiltered) == 300 and RARE not in unfiltered and OLD not in unfiltered
    # the CLI's flags (the tag in another case: tags compare casefolded)
    code, out, err = run_cli("--palace", root, "search", "deploy", "--tag", "zebra-rare", "--json")
    assert code == 0, err
    assert [h["path"] for h in json.loads(out)["results"]] == [RARE]
    code, out, err = run_cli(
        "--palace", root, "search", "deploy", "--created-before", "2020-12-31", "--json"
    )
    assert code == 0, err
    assert [h["path"] for h in json.loads(out)["results"]] == [OLD]

    # --queries JSONL
    queries = tmp_path / "q.jsonl"
    queries.write_text(
        json.dumps({"query": "deploy", "tags": ["Zebra-Rare"]})
        + "\n"
        + json.dumps({"query": "deploy", "tag": "zebra-rare", "created_after": "2026-01-01"})
        + "\n"
        + json.dumps({"query": "deploy", "tag": "x", "tags": ["y"]})
        + "\n"
    )
    code, out, _ = run_cli("--palace", root, "search", "--queries", str(queries))
    lines = [json.loads(line) for line in out.splitlines()]
    assert [h["path"] for h in lines[0]["results"]] == [RARE]
    assert [h["path"] for h in lines[1]["results"]] == [RARE]
    assert "once" in lines[2]["error"] and code == 2

    # the app's session
    from curator.session import Session
    from curator.ui.lookup import search

    session = Session.open(big_palace, apart=True)
    found_app = search(session, session.palace, "deploy", {"tags": ["ZEBRA-RARE"]}, 30)
    assert [f.path for f in found_app] == [RARE]


def test_the_mcp_search_finds_them(big_palace: Path, tmp_path: Path) -> None:
    # the server's tool as the SDK's client calls it (tests/test_mcp.py starts the process)
    with served_here(big_palace, tmp_path) as client:
        found = client.json("search", query="deploy", tags=["zebra-rare"])
        assert [r["path"] for r in found["results"]] == [RARE]
        found = client.json("search", query="deploy", created_before="2020-12-31", limit=5)
        assert [r["path"] for r in found["results"]] == [OLD]


def test_the_request_names_what_is_wrong() -> None:
    for values, word in (
        ({"tags": 3}, "tags"),
        ({"created_after": "last spring"}, "created_after"),
        ({"colour": "red"}, "unknown keys"),
        ({"limit": 10_001}, "limit"),
    ):
        with pytest.raises(SearchError, match=word):
            SearchRequest.from_mapping(None, "deploy", values)


def test_tags_and_dates_render_the_same_in_sql_and_per_row() -> None:
    flt = Filter.of(None, tags=["Ops"], created_after="2026-01-01", created_before="2026-01-31")
    assert flt.sql() is not None and "array_has_any(tag_keys" in flt.sql()  # type: ignore[operator]
    assert flt.ok({"kind": "note", "tag_keys": ["ops"], "created": "2026-01-31T23:00"})
    assert not flt.ok({"kind": "note", "tag_keys": ["ops"], "created": "2026-02-01"})
    assert not flt.ok({"kind": "note", "tag_keys": ["ops"], "created": ""})
    assert not flt.ok({"kind": "note", "tag_keys": ["dev"], "created": "2026-01-02"})
