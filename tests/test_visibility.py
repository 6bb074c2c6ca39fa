"""Sensitive notes and notes in sensitive scopes never appear in search, ask, pack, dupes or
--queries results unless include_sensitive / --include-sensitive is given: one test per path."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from palacehelpers import MakePalace, RunCli, note_text

from curator.model.palace import Palace
from curator.search.filters import visible, where_visible
from curator.search.searcher import Searcher

TOML = (
    '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[scopes.vault]\nsensitive = true\n\n'
    '[scopes.open]\n\n[index]\nembedder = "hash"\ndim = 64\n'
)
SECRET_NOTE = "notes/project/zebracorn-note.md"  # sensitive: true in its header
SECRET_SCOPE = "notes/project/zebracorn-scope.md"  # in the sensitive scope "vault"
HIDDEN = {SECRET_NOTE, SECRET_SCOPE}
BODY = "The zebracorn deploy key rotates every zebracorn moon; zebracorn access is logged.\n"


@pytest.fixture
def root(make_palace: MakePalace) -> Path:
    return make_palace(
        {
            SECRET_NOTE: note_text(
                "Zebracorn key", body=BODY, extra="sensitive: true\nconfidence: 0.9\n"
            ),
            SECRET_SCOPE: note_text(
                "Zebracorn access", body=BODY, extra="scope: vault\nconfidence: 0.9\n"
            ),
            "notes/project/zebracorn-public.md": note_text(
                "Zebracorn public", body=BODY, extra="scope: open\nconfidence: 0.9\n"
            ),
            "inbox/2026-01-01-zebracorn.md": note_text(
                "Zebracorn draft", body=BODY, extra="status: draft\n"
            ),
        },
        toml=TOML,
    )


def found(items: Sequence[object]) -> set[str]:
    out = set()
    for item in items:
        for attr in ("path", "a", "b"):
            value = getattr(item, attr, None)
            if isinstance(value, str):
                out.add(value)
    return out


def test_visible_and_sql_prefilter(root: Path) -> None:
    palace = Palace.open(root)
    by_rel = palace.by_rel
    assert not visible(palace, by_rel[SECRET_NOTE], include_sensitive=False)
    assert not visible(palace, by_rel[SECRET_SCOPE], include_sensitive=False)
    assert visible(palace, by_rel["notes/project/zebracorn-public.md"], include_sensitive=False)
    assert visible(palace, by_rel[SECRET_SCOPE], include_sensitive=True)
    assert not visible(palace, {"sensitive": False, "scope": "vault"}, include_sensitive=False)
    assert where_visible(palace, include_sensitive=True) is None
    assert where_visible(palace, include_sensitive=False) == (
        "(sensitive = false) AND (scope != 'vault')"
    )


def test_search_path(root: Path) -> None:
    s = Searcher(Palace.open(root))
    assert not found(s.search("zebracorn", drafts=True, limit=20)) & HIDDEN
    assert found(s.search("zebracorn", limit=20, include_sensitive=True)) >= HIDDEN


def test_ask_path(root: Path) -> None:
    s = Searcher(Palace.open(root))
    assert not found(list(s.ask("zebracorn key?").sources)) & HIDDEN
    assert found(list(s.ask("zebracorn key?", include_sensitive=True).sources)) >= HIDDEN


def test_pack_path(root: Path) -> None:
    s = Searcher(Palace.open(root))
    text = s.pack("zebracorn key", floor=0.5)
    assert "zebracorn-public.md" in text
    assert SECRET_NOTE not in text and SECRET_SCOPE not in text
    shown = s.pack("zebracorn key", floor=0.5, include_sensitive=True)
    assert SECRET_NOTE in shown and SECRET_SCOPE in shown


def test_dupes_path(root: Path) -> None:
    s = Searcher(Palace.open(root))
    ref = "notes/project/zebracorn-public.md"
    assert not found(s.dupes(ref, limit=10)) & HIDDEN
    assert found(s.dupes(ref, limit=10, include_sensitive=True)) >= HIDDEN
    assert not found(s.dupes(all=True, limit=10)) & HIDDEN
    assert found(s.dupes(all=True, limit=10, include_sensitive=True)) & HIDDEN
    from curator.search.filters import SearchError

    with pytest.raises(SearchError, match="sensitive"):
        s.dupes(SECRET_NOTE)


def test_scope_turned_sensitive_after_sync_is_hidden_at_query_time(root: Path) -> None:
    Searcher(Palace.open(root))  # indexed while "open" is not sensitive
    (root / "palace.toml").write_text(
        TOML.replace("[scopes.open]\n", "[scopes.open]\nsensitive = true\n")
    )
    s = Searcher(Palace.open(root), sync=False)  # no re-sync: the config alone must hide it
    assert "notes/project/zebracorn-public.md" not in found(s.search("zebracorn", limit=20))


@pytest.mark.parametrize("command", ["search", "ask"])
def test_queries_jsonl_path(root: Path, tmp_path: Path, run_cli: RunCli, command: str) -> None:
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"query": "zebracorn key", "limit": 10}) + "\n")
    key = "results" if command == "search" else "sources"
    code, out, _ = run_cli("--palace", root, command, "--queries", queries)
    assert code == 0
    paths = {r["path"] for r in json.loads(out.splitlines()[0])[key]}
    assert paths and not paths & HIDDEN
    code, out, _ = run_cli("--palace", root, command, "--queries", queries, "--include-sensitive")
    assert code == 0
    assert {r["path"] for r in json.loads(out.splitlines()[0])[key]} >= HIDDEN


def test_cli_paths_hide_sensitive(root: Path, run_cli: RunCli) -> None:
    for argv in (
        ["search", "zebracorn", "--json", "--drafts"],
        ["ask", "zebracorn key?", "--json"],
        ["pack", "zebracorn key", "--floor", "0.5"],
        ["dupes", "notes/project/zebracorn-public.md", "--json"],
        ["dupes", "--all", "--json"],
    ):
        code, out, _ = run_cli("--palace", root, *argv)
        assert code == 0, argv
        assert "zebracorn-note" not in out and "zebracorn-scope" not in out, argv
        code, out, _ = run_cli("--palace", root, *argv, "--include-sensitive")
        assert code == 0 and ("zebracorn-note" in out or "zebracorn-scope" in out), argv
