"""`curator search` in a fresh process answers from the index without loading the palace
(`curator.search.cold`) when the index is in step with the files, serves no note the gate
hides (sensitive, in a sensitive scope, or whose header cannot be read: that one has no index
row at all), withholds links and names of hidden notes as the palace's search does, reads
only the files changed since the last sync when a file or HEAD moved on, and falls back to
loading the palace when palace.toml changed what the rows derive or the index keeps no record."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from palacehelpers import MakePalace, RunCli, git, listed, note_text, opened

from curator.config import load_config
from curator.model.palace import Palace
from curator.model.served import WITHHELD, Served
from curator.search.catchup import catch_up
from curator.search.cold import IndexedPalace, cold_searcher
from curator.search.index import head_commit, index_dir, open_index, open_index_at
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


@pytest.mark.parametrize("change", ["scope", "no record"])
def test_a_change_the_index_cannot_tell_loads_the_palace_instead(
    root: Path, run_cli: RunCli, change: str
) -> None:
    assert cold_searcher(root) is not None
    if change == "scope":  # the scope a note is in turns sensitive: every row derives anew
        toml = root / "palace.toml"
        toml.write_text(toml.read_text() + "\n[scopes.ops]\nsensitive = true\n")
    else:
        (index_dir(root) / "synced.json").unlink()
    assert cold_searcher(root) is None
    code, out, err = run_cli("--palace", root, "search", "--json", WORDS)
    assert code == 0, err
    assert not any(word in out.casefold() for word in HIDDEN)


def _notes_read(paths: list[str]) -> list[str]:
    return [p.rsplit("/notes/", 1)[-1] for p in paths if "/notes/" in p or "/inbox/" in p]


@pytest.mark.parametrize(
    "change", ["edit", "new hidden note", "commit", "removed", "header broken", "header mended"]
)
def test_a_change_since_the_sync_is_caught_up_reading_only_the_changed_files(
    root: Path, change: str
) -> None:
    """Issue 34: a search after a change read the whole palace (at 100k notes ~750 MB with
    LanceDB and the embedder); now the files changed since the last sync are read, one
    stat for the others, and the answer is the loaded palace's, the gate's verdicts too."""
    note = root / "notes/project/zebu-other.md"
    tapir = root / "notes/project/unreadable-tapir.md"
    changed: list[str] = []
    if change == "edit":  # same size, other bytes, a newer mtime
        note.write_text(note.read_text().replace("other.", "OTHER."))
        changed = ["project/zebu-other.md"]
    elif change == "new hidden note":
        (root / "notes/project/okapi-two.md").write_text(
            note_text("Okapi two", body=f"{WORDS}.\n", extra="sensitive: true\n")
        )
        changed = ["project/okapi-two.md"]
    elif change == "commit":
        git(root, "commit", "-q", "--allow-empty", "-m", "moved on")
    elif change == "removed":
        note.unlink()
    elif change == "header broken":
        note.write_text(f"---\nname: [zebu\n---\n{WORDS} broken.\n")
        changed = ["project/zebu-other.md"]
    else:
        tapir.write_text(note_text("Tapir mended", body=f"{WORDS} tapir.\n"))
        changed = ["project/unreadable-tapir.md"]
    config = load_config(root)
    store = open_index_at(root, config)
    with opened() as read:
        assert catch_up(root, config, store)
    assert _notes_read(read) == changed
    cold = cold_searcher(root)
    assert cold is not None
    palace = Palace.open(root)
    warm = Searcher(palace, index=open_index(palace))
    for flags in ({}, {"include_sensitive": True}, {"drafts": True}):
        assert _hits(cold, **flags) == _hits(warm, **flags)
    shown = json.dumps(_hits(cold)).casefold()
    assert not any(word in shown for word in HIDDEN if word != "unreadable-tapir")
    assert ("zebu-other.md" in shown) is (change not in ("removed", "header broken"))


def test_a_promote_leaves_the_index_a_cold_search_answers_from(root: Path, run_cli: RunCli) -> None:
    """The index follows a command's commit from the changed files (its palace let go of
    first), and records them: the next search answers cold instead of loading the palace."""
    (root / "inbox").mkdir(exist_ok=True)
    (root / "inbox/zebu-draft.md").write_text(
        note_text("Zebu draft ledger", body=f"{WORDS} drafted.\n")
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a draft")
    code, _, err = run_cli("--palace", root, "promote", "inbox/zebu-draft.md", "--yes")
    assert code == 0, err
    store = open_index_at(root, load_config(root))  # in step with the commit already
    assert store.state is not None and store.state.commit == head_commit(root)
    assert "notes/project/zebu-draft-ledger.md" in store.columns(("path",)).column(0).to_pylist()
    cold = cold_searcher(root)  # the files the promote wrote, too young to vouch for, read again
    assert cold is not None
    palace = Palace.open(root)
    assert _hits(cold) == _hits(Searcher(palace, index=open_index(palace)))
    assert any("zebu-draft" in str(h["path"]) for h in _hits(cold))


def test_a_note_read_for_a_cold_query_has_the_links_a_load_reads(root: Path) -> None:
    """A note read from its file for a cold query is read by its layout's rules, as a load
    reads it: in curator's layout a markdown link without `.md` is no link, so the snippet
    is served as the loaded palace serves it (cold, it was withheld as a link to the hidden
    note: the answer depended on whether the index was in step)."""
    rel = "notes/project/zebu-bare.md"
    (root / rel).write_text(note_text("Zebu bare", body=f"{WORDS}: [runbook](okapi-runbook)\n"))
    cold = cold_searcher(root)  # the new note caught up with
    assert cold is not None
    palace = Palace.open(root)
    assert cold.palace.by_rel[rel].links == palace.by_rel[rel].links
    assert _hits(cold) == _hits(Searcher(palace, index=open_index(palace)))
    # no link, yet its destination names the hidden note: withheld all the same (fail closed)
    note = palace.by_rel[rel]
    served = Served.of(palace).links_in(note, note.body)
    assert "okapi" not in served and f"[runbook]({WITHHELD})" in served
    shown = [hit for hit in _hits(cold) if hit["path"] == rel]
    assert shown and "okapi" not in json.dumps(shown)


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


def test_a_record_of_another_write_of_the_state_is_never_trusted(root: Path) -> None:
    """The record of the files vouches only for the state.json write its sync left (two
    syncs within one second share `updated`): the same bytes written again are another."""
    state = index_dir(root) / "state.json"
    data = state.read_bytes()
    state.unlink()
    state.write_bytes(data)
    config = load_config(root)
    assert not catch_up(root, config, open_index_at(root, config))


def test_the_paths_a_commit_wrote_are_all_a_catch_up_stats(root: Path) -> None:
    """After a commit the index follows the paths it wrote (no walk of the palace): an
    edited note, a removed one and a path that is no note (INDEX.md), as a walk would."""
    edited = root / "notes/project/zebu-other.md"
    edited.write_text(edited.read_text().replace("other.", "OTHER."))
    (root / "notes/project/zebu-old.md").unlink()
    wrote = ["notes/project/zebu-other.md", "notes/project/zebu-old.md", "INDEX.md"]
    config = load_config(root)
    store = open_index_at(root, config)
    with opened() as read, listed() as folders:
        assert catch_up(root, config, store, changed=wrote)
    assert _notes_read(read) == ["project/zebu-other.md"]
    assert not [f for f in folders if f.startswith(str(root))]  # no walk: a stat a path
    cold = cold_searcher(root)
    assert cold is not None
    palace = Palace.open(root)
    assert _hits(cold) == _hits(Searcher(palace, index=open_index(palace)))
    assert "notes/project/zebu-old.md" not in store.columns(("path",)).column(0).to_pylist()


def test_once_git_vouched_for_the_notes_a_cold_search_walks_none(root: Path) -> None:
    """A cold search that found the index in step with a HEAD whose notes git's status shows
    unchanged keeps HEAD as clean; the next asks git's status (its own stat of each file, in
    C) instead of listing the notes folder and stat-ing every note. A note edited since shows
    in that status: it is read and caught up, the others are not, and the answer is still the
    loaded palace's."""
    assert cold_searcher(root) is not None  # walks, finds the index in step, vouches
    notes = str(root / "notes")
    with listed() as folders, opened() as read:
        assert cold_searcher(root) is not None
    assert not [f for f in folders if f.startswith(notes)]
    assert not [p for p in _notes_read(read) if not p.startswith("inbox")]
    note = root / "notes/project/zebu-other.md"
    note.write_text(note.read_text().replace("other.", "OTHER."))
    with listed() as folders, opened() as read:
        cold = cold_searcher(root)
    assert cold is not None
    assert [f for f in folders if f.startswith(notes)]  # git saw the edit: walked again
    assert "project/zebu-other.md" in _notes_read(read)
    palace = Palace.open(root)
    assert _hits(cold) == _hits(Searcher(palace, index=open_index(palace)))
    assert "OTHER." in json.dumps(_hits(cold))
