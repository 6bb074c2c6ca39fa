"""`curator search` in a fresh process answers from the index without loading the palace
(`curator.search.cold`) when the index is in step with the files, serves no note the gate
hides (sensitive, in a sensitive scope, or whose header cannot be read: that one has no index
row at all), withholds links and names of hidden notes as the palace's search does, and
falls back to loading the palace the moment a file, palace.toml or HEAD moved on."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from palacehelpers import MakePalace, RunCli, git, note_text

from curator.model.palace import Palace
from curator.search.cold import IndexedPalace, cold_searcher
from curator.search.index import index_dir, open_index
from curator.search.searcher import Searcher

TOML = (
    '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[scopes.vault]\nsensitive = true\n\n'
    '[index]\nembedder = "hash"\ndim = 64\n'
)
WORDS = "zebu ledger retry"
HIDDEN = ("okapi", "quagga", "unreadable-tapir")


def _files() -> dict[str, str]:
    files = {
        "notes/project/okapi-runbook.md": note_text(
            "Okapi runbook", body=f"{WORDS} secrets.\n", extra="sensitive: true\n"
        ),
        "notes/project/quagga-keys.md": note_text(
            "Quagga keys", body=f"{WORDS} keys.\n", extra="scope: vault\n"
        ),
        # a header that cannot be read: no index row, hidden by the gate all the same
        "notes/project/unreadable-tapir.md": f"---\nname: [tapir\n---\n{WORDS} tapir.\n",
        "notes/project/zebu-old.md": note_text(
            "Zebu old ledger",
            body=f"{WORDS} the old way.\n",
            extra="status: superseded\nsuperseded_by: zebu-ledger\n",
        ),
        "notes/project/zebu-ledger.md": note_text(
            "Zebu ledger",
            body=f"{WORDS}: see [[okapi-runbook]], [[Quagga keys]], [[unreadable-tapir]],\n"
            "[the runbook](okapi-runbook.md) and [[zebu-other]].\n",
        ),
    }
    for i in range(120):  # more notes than a query's candidates: most never read
        files[f"notes/project/zebu-other-{i}.md"] = note_text(f"Zebu other {i}", body="Other.\n")
    files["notes/project/zebu-other.md"] = note_text("Zebu other", body=f"{WORDS} other.\n")
    return files


def _age(root: Path) -> None:
    """Every file older than the palace cache's racy window (a just-written file's size and
    mtime cannot vouch for its bytes, so the index is never trusted over one)."""
    for path in [*root.rglob("*.md"), root / "palace.toml"]:
        if ".git" in path.parts:
            continue
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - 60 * 10**9))


@pytest.fixture
def root(make_palace: MakePalace, run_cli: RunCli) -> Path:
    root = make_palace(_files(), toml=TOML)
    _age(root)
    code, _, err = run_cli("--palace", root, "search", WORDS)  # loads, builds the index
    assert code == 0, err
    return root


def _hits(searcher: Searcher, **filters: object) -> list[dict[str, object]]:
    return [h.to_json() for h in searcher.search(WORDS, limit=50, **filters)]


def test_a_cold_search_reads_only_the_notes_it_shows_and_none_it_hides(root: Path) -> None:
    cold = cold_searcher(root)
    assert cold is not None and isinstance(cold.palace, IndexedPalace)
    shown = cold.search(WORDS, limit=5)
    read = cold.palace.files.read  # the candidates of one query, and the notes shown
    hits = _hits(cold)
    # the same answer as the search over the loaded palace
    palace = Palace.open(root)
    assert hits == _hits(Searcher(palace, index=open_index(palace)))
    text = json.dumps(hits).casefold()
    assert "zebu ledger" in text and not any(word in text for word in HIDDEN)
    assert "[withheld" in text  # the links to hidden notes, withheld as ever
    old = next(h for h in hits if h["path"] == "notes/project/zebu-old.md")
    assert old["successor"] == "notes/project/zebu-ledger.md"
    # no walk of every note: one query read its candidates (a hybrid query of 2 x 30 rows)
    assert len(shown) == 5 and len(read) <= 2 * 30 + 5 and len(palace.all()) > 120
    # a short query (names as you type) and a filter read from the index's rows alike
    assert [h.path for h in cold.search("zebu led", limit=5)] == [
        h.path for h in Searcher(palace, index=open_index(palace)).search("zebu led", limit=5)
    ]
    assert not any(h.path.startswith("notes/project/q") for h in cold.search("quagga keys"))


def test_a_reindex_leaves_an_index_a_cold_search_answers_from(
    make_palace: MakePalace, run_cli: RunCli
) -> None:
    root = make_palace(_files(), toml=TOML)
    _age(root)
    code, _, err = run_cli("--palace", root, "reindex")  # no query since: no statistics counted
    assert code == 0, err
    cold = cold_searcher(root)
    assert cold is not None
    assert "notes/project/zebu-ledger.md" in [h.path for h in cold.search(WORDS, limit=5)]


def test_the_cli_answers_cold_without_naming_a_hidden_note(root: Path, run_cli: RunCli) -> None:
    code, out, err = run_cli("--palace", root, "search", "--json", WORDS)
    assert code == 0, err
    text = out.casefold()
    assert "zebu-ledger" in text and not any(word in text for word in HIDDEN)


@pytest.mark.parametrize("change", ["edit", "new hidden note", "scope", "commit", "no record"])
def test_any_change_since_the_sync_loads_the_palace_instead(
    root: Path, run_cli: RunCli, change: str
) -> None:
    assert cold_searcher(root) is not None
    note = root / "notes/project/zebu-other.md"
    if change == "edit":  # same size, other bytes, a newer mtime
        note.write_text(note.read_text().replace("other.", "OTHER."))
    elif change == "new hidden note":
        (root / "notes/project/okapi-two.md").write_text(
            note_text("Okapi two", body=f"{WORDS}.\n", extra="sensitive: true\n")
        )
    elif change == "scope":  # the scope a note is in turns sensitive
        toml = root / "palace.toml"
        toml.write_text(toml.read_text() + "\n[scopes.ops]\nsensitive = true\n")
    elif change == "commit":
        git(root, "commit", "-q", "--allow-empty", "-m", "moved on")
    else:
        (index_dir(root) / "synced.json").unlink()
    assert cold_searcher(root) is None
    code, out, err = run_cli("--palace", root, "search", "--json", WORDS)
    assert code == 0, err
    assert not any(word in out.casefold() for word in HIDDEN)


def test_every_filter_answers_cold_as_over_the_loaded_palace(root: Path) -> None:
    cold = cold_searcher(root)
    assert cold is not None
    palace = Palace.open(root)
    warm = Searcher(palace, index=open_index(palace))
    for filters in (
        {"types": ["project"], "stale": False},
        {"status": ["superseded"]},
        {"tags": ["x"], "drafts": True},
        {"include_sensitive": True},
        {"min_confidence": 0.5, "created_after": "2020-01-01"},
    ):
        for query in (WORDS, "zebu", "what do we know about the zebu ledger?"):
            found = [h.to_json() for h in cold.search(query, limit=50, **filters)]
            assert found == [h.to_json() for h in warm.search(query, limit=50, **filters)]
