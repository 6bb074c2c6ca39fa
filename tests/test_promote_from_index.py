"""A promote and its undo planned from the search index's rows (issue 34): the names, slugs
and files a plan checks come from the index once it is in step with the files, so the
command loads no palace (at 100k notes ~2.5 s of CPU); INDEX.md has the lines of the notes
the action adds or removes spliced into their rooms, the bytes a full render gives. Whatever
the rows cannot show (no index, no record of its files, a working copy HEAD does not hold, a
note a supersede chain names, an INDEX.md not known to be curator's render) is planned from
the loaded palace as before."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from palacehelpers import (
    RunCli,
    copied_once,
    git,
    inbox_ignored,
    new_palace,
    note_text,
    opened,
    run_main,
)

from curator.model.index_md import render_index
from curator.model.palace import INDEX_NAME, Palace
from curator.search.filerecord import FILES_FILE
from curator.search.index import index_dir

TOML = '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[index]\nembedder = "hash"\ndim = 64\n'
TYPES = ("user", "feedback", "project", "reference")
DRAFT = "inbox/zebu-draft.md"


def _files() -> dict[str, str]:
    files = {
        f"notes/{t}/note-{i}.md": note_text(f"Note {i}", type=t, body=f"Body {i}.\n")
        for i, t in enumerate(TYPES * 8)
    }
    # retired: its successor's slug names no note (yet)
    files["notes/project/old-way.md"] = note_text(
        "Old way", extra="status: superseded\nsuperseded_by: future-way\n"
    )
    files[DRAFT] = note_text("Zebu ledger rule", body="Reconcile the zebu ledger daily.\n")
    files["inbox/future-draft.md"] = note_text("Future way", body="The new way.\n")
    return files


def _age(root: Path) -> None:
    """Every file older than the racy window, so the index's record vouches for them."""
    for path in root.rglob("*.md"):
        if ".git" not in path.parts:
            info = path.stat()
            os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns - 60 * 10**9))


def _build(base: Path) -> None:
    """The palace the tests start from: drafts not committed, INDEX.md curator's render
    (remembered), every note older than the racy window, the index built."""
    root = new_palace(base / "palace", _files(), toml=TOML)
    inbox_ignored(root)
    done = run_main(root, "--palace", str(root), "index", "--yes")
    assert done.returncode == 0, done.stderr
    _age(root)


@pytest.fixture
def root(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path, run_cli: RunCli) -> Path:
    """A copy of the palace `_build` made once a run (shared by the xdist workers; its notes'
    mtimes kept, so still aged), made the palace the tests need in it: the render of INDEX.md
    is remembered in the copy's own cache (`index --yes`, which finds INDEX.md current), and
    the index is built in the copy, as its record of the files vouches only for the write of
    state.json its own sync made (a copied state.json is another file: a copied index is
    planned around, never from)."""
    root = copied_once(tmp_path_factory, "promote-from-index", _build, tmp_path / "palace")
    for argv in (("index", "--yes"), ("reindex",)):
        code, _, err = run_cli("--palace", root, *argv)
        assert code == 0, err
    return root


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Path]]:
    """The palaces loaded (`Palace.open`) from now on."""
    found: list[Path] = []
    real = Palace.open.__func__  # type: ignore[attr-defined]

    def counted(cls: type[Palace], root: Path, **kwargs: object) -> Palace:
        found.append(Path(root))
        return real(cls, root, **kwargs)  # type: ignore[no-any-return]

    monkeypatch.setattr(Palace, "open", classmethod(counted))
    yield found


def _current(root: Path) -> None:
    """INDEX.md is byte for byte what a full render of the palace now gives."""
    data = (root / INDEX_NAME).read_bytes()
    assert data.decode("utf-8") == render_index(Palace.open(root), data)


def test_a_promote_and_its_undo_load_no_palace(
    root: Path, run_cli: RunCli, loads: list[Path]
) -> None:
    notes = sorted(str(p) for p in (root / "notes").rglob("*.md"))
    with opened() as read:
        code, out, err = run_cli("--palace", root, "promote", DRAFT, "--yes")
    assert code == 0, err
    assert loads == []
    assert len(set(read).intersection(notes)) < 10  # of 33: the few a bisection looks at
    made = root / "notes/project/zebu-ledger-rule.md"
    assert made.is_file() and not (root / DRAFT).exists()
    _current(root)
    del loads[:]
    code, out, err = run_cli("--palace", root, "undo", "--yes")
    assert code == 0 and "undo: promote" in out, err
    assert loads == []
    assert (root / DRAFT).is_file() and not made.exists()
    _current(root)
    assert git(root, "status", "--porcelain").stdout == ""


def test_a_name_taken_is_refused_from_the_rows(
    root: Path, run_cli: RunCli, loads: list[Path]
) -> None:
    code, _, err = run_cli("--palace", root, "promote", DRAFT, "--name", " note  3", "--yes")
    assert code == 2
    assert "a note named 'note 3' already exists: notes/reference/note-3.md" in err
    assert loads == []


def test_a_note_committed_since_the_index_followed_is_seen(
    root: Path, run_cli: RunCli, loads: list[Path]
) -> None:
    """A note named as the draft, committed by hand since the index last followed: the
    plan sees it (the changed files read first, or the palace loaded), never the stale rows."""
    (root / "notes/user/taken.md").write_text(note_text("Zebu ledger rule", type="user"))
    git(root, "add", "notes/user/taken.md")
    git(root, "commit", "-q", "-m", "by hand")
    code, _, err = run_cli("--palace", root, "promote", DRAFT, "--yes")
    assert code == 2 and "already exists: notes/user/taken.md" in err


def test_an_edit_not_committed_is_seen_and_planned_from_the_palace(
    root: Path, run_cli: RunCli, loads: list[Path]
) -> None:
    """A note renamed by hand and not committed takes the draft's name: refused as the
    loaded palace refuses it; a working copy HEAD does not hold is planned from the palace."""
    path = root / "notes/user/note-0.md"
    path.write_text(note_text("Zebu ledger rule", type="user"))
    code, _, err = run_cli("--palace", root, "promote", DRAFT, "--yes")
    assert code == 2 and "already exists: notes/user/note-0.md" in err
    path.write_text(note_text("Renamed by hand", type="user"))
    code, _, err = run_cli("--palace", root, "promote", DRAFT, "--dry-run")
    assert code == 0, err
    assert loads == [root]


def test_an_index_keeping_no_record_falls_back_to_the_palace(
    root: Path, run_cli: RunCli, loads: list[Path]
) -> None:
    (index_dir(root) / FILES_FILE).unlink()
    code, _, err = run_cli("--palace", root, "promote", DRAFT, "--yes")
    assert code == 0, err
    assert root in loads
    _current(root)


def test_a_note_a_chain_names_is_planned_from_the_palace(
    root: Path, run_cli: RunCli, loads: list[Path]
) -> None:
    """The promoted note's slug is the one a retired note names as its successor: the
    retired note's line changes too, so INDEX.md is rendered from every note."""
    code, _, err = run_cli("--palace", root, "promote", "inbox/future-draft.md", "--yes")
    assert code == 0, err
    assert loads == [root]
    assert "superseded by [Future way](notes/project/future-way.md)" in (
        (root / INDEX_NAME).read_text()
    )
    _current(root)


LOADS_BEFORE_LANCEDB = """
import sys
from curator.cli import main
from curator.model.palace import Palace

real = Palace.open.__func__

def opened(cls, root, **kwargs):
    print("lancedb" in sys.modules, "pyarrow" in sys.modules, file=sys.stderr)
    return real(cls, root, **kwargs)

Palace.open = classmethod(opened)
sys.exit(main(sys.argv[1:]))
"""


def test_an_index_md_never_rendered_loads_the_palace_before_lancedb(
    root: Path, run_cli: RunCli
) -> None:
    """An INDEX.md curator did not render (or not as it is now) is rendered from every
    note: the rows are not read first, so the palace and LanceDB are not held at once (at
    100k notes the first promote's process reached 842 MB so)."""
    data = (root / INDEX_NAME).read_bytes()
    (root / INDEX_NAME).write_bytes(data.replace(b"- [Note 1]", b"- [Note one]"))
    git(root, "commit", "-q", "-am", "INDEX.md by hand")
    argv = [sys.executable, "-c", LOADS_BEFORE_LANCEDB, "--palace", str(root), "promote", DRAFT]
    proc = subprocess.run(argv, capture_output=True, text=True, input="")
    assert proc.stderr.splitlines()[0] == "False False", proc.stderr
    code, _, err = run_cli("--palace", root, "promote", DRAFT, "--yes")
    assert code == 0, err
    _current(root)


def test_the_record_sums_follow_each_commit_without_a_pass_over_every_file(
    root: Path, run_cli: RunCli
) -> None:
    """The sums kept with the record of files (the signature, the files' fingerprint,
    INDEX.md's key) are moved by the files a commit wrote (issue 34: each sync went over
    all 100k entries three times, ~0.3 s), and equal the sums of every entry, and the
    signature a sync from the loaded palace makes."""
    from curator.search.cold import indexed_palace
    from curator.search.filerecord import read_record, sums_of
    from curator.search.index import palace_signature, read_synced

    for argv in (("promote", DRAFT, "--yes"), ("undo", "--yes"), ("promote", DRAFT, "--yes")):
        code, _, err = run_cli("--palace", root, *argv)
        assert code == 0, err
        found = indexed_palace(root)
        assert found is not None
        store = found[1]
        assert store.state is not None
        record = read_record(store.index_dir, store.state, store.tables.seen)
        assert record is not None and record.sums == sums_of(record.files.items())
        loaded = Palace.open(root)
        assert (read_synced(store.index_dir) or {})["signature"] == palace_signature(loaded)
        assert found[0].notes_sum() == loaded.notes_sum()


# -- the notes shown in step by git's status (a commit the rows hold, kept in synced.json) ----


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Each walk of the palace's files from now on: True when it stats the notes too."""
    import curator.search.catchup as catchup

    found: list[bool] = []
    real = catchup.walk_stats

    def counted(*args: Any, notes: bool = True, **kwargs: Any) -> Any:
        found.append(notes)
        return real(*args, notes=notes, **kwargs)

    monkeypatch.setattr(catchup, "walk_stats", counted)
    yield found


def _clean(root: Path) -> object:
    from curator.search.index import read_synced

    return (read_synced(index_dir(root)) or {}).get("clean")


def _head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").stdout.strip()


@pytest.fixture
def vouched(root: Path, run_cli: RunCli) -> Path:
    """The palace after a promote and its undo, its files older than the racy window: the
    index's record keeps HEAD as a commit whose notes the rows hold."""
    for argv in (("promote", DRAFT, "--yes"), ("undo", "--yes")):
        code, _, err = run_cli("--palace", root, *argv)
        assert code == 0, err
    assert _clean(root) == _head(root)
    _age(root)
    return root


def test_a_plan_after_a_followed_commit_walks_no_note(
    root: Path, run_cli: RunCli, walks: list[bool], loads: list[Path]
) -> None:
    """The first plan walks every file (the record keeps no clean commit yet) and keeps
    HEAD as one; each commit's follow moves it, checked against the commit's blobs; the
    next plan then stats the drafts alone: git's status, which the plan reads anyway,
    shows the notes as HEAD holds them (at 100k notes the walk was ~0.9 s of CPU)."""
    code, _, err = run_cli("--palace", root, "promote", DRAFT, "--yes")
    assert code == 0, err
    assert True in walks
    assert _clean(root) == _head(root)
    del walks[:]
    code, out, err = run_cli("--palace", root, "undo", "--yes")
    assert code == 0 and "undo: promote" in out, err
    assert walks == [False]
    assert _clean(root) == _head(root)
    assert loads == []
    _current(root)
    del walks[:], loads[:]
    code, _, err = run_cli("--palace", root, "promote", DRAFT, "--yes")
    assert code == 0, err
    assert walks == [False] and loads == []
    _current(root)


def test_a_clean_commit_is_kept_only_for_files_older_than_the_status(
    root: Path, run_cli: RunCli
) -> None:
    """The first record of a clean commit follows a walk after git's status: a note
    written near that status (its mtime that late) may have changed between the two, so
    none is kept until the files are older."""
    from curator.search.cold import indexed_palace

    (root / "notes/user/fresh.md").write_text(note_text("Fresh", type="user"))
    git(root, "add", "notes/user/fresh.md")
    git(root, "commit", "-q", "-m", "fresh")
    assert indexed_palace(root, snapshot=True, committed=True) is not None
    assert _clean(root) is None
    _age(root)
    assert indexed_palace(root, snapshot=True, committed=True) is not None
    assert _clean(root) == _head(root)


def test_a_note_edited_by_hand_is_seen_though_the_rows_hold_a_clean_commit(
    vouched: Path, run_cli: RunCli
) -> None:
    root = vouched
    (root / "notes/user/note-0.md").write_text(note_text("Zebu ledger rule", type="user"))
    code, _, err = run_cli("--palace", root, "promote", DRAFT, "--yes")
    assert code == 2 and "already exists: notes/user/note-0.md" in err


def test_an_edit_synced_and_then_undone_by_hand_drops_the_clean_commit(
    vouched: Path, run_cli: RunCli
) -> None:
    """A search reads a note edited by hand into the rows; the edit is then checked out
    again, so git's status is clean: the rows no longer hold HEAD's note, and the next plan
    must not take them as if they did (it would refuse the draft's name, taken by the edit)."""
    root = vouched
    path = root / "notes/user/note-0.md"
    path.write_text(note_text("Zebu ledger rule", type="user"))
    code, out, err = run_cli("--palace", root, "search", "zebu ledger", "--json")
    assert code == 0, err
    assert "notes/user/note-0.md" in out  # the rows hold the edit
    assert _clean(root) is None
    git(root, "checkout", "--", "notes/user/note-0.md")
    code, _, err = run_cli("--palace", root, "promote", DRAFT, "--yes")
    assert code == 0, err
    _current(root)


def test_a_draft_dropped_or_edited_in_the_ignored_inbox_is_seen(
    vouched: Path, run_cli: RunCli, walks: list[bool]
) -> None:
    """Git ignores the drafts folder, so its status vouches for no draft: each is stat-ed
    against the record, and one it holds otherwise (dropped by an agent, edited) is read
    and its row written, with no walk of the notes, which git's status vouches for (at 100k
    notes the walk was ~0.5 s of CPU, for every draft an agent drops); the record still
    keeps HEAD as clean, so the next plan walks no note either."""
    from curator.search.cold import indexed_palace

    root = vouched
    (root / "inbox/dropped.md").write_text(note_text("Dropped by an agent"))
    found = indexed_palace(root, snapshot=True, committed=True)
    assert found is not None and "inbox/dropped.md" in found[0].files
    names = dict(zip(*found[0].index_names[:2], strict=True))
    assert names["inbox/dropped.md"] == "Dropped by an agent"
    assert walks == [False] and _clean(root) == _head(root)
    del found, walks[:]
    (root / "inbox/future-draft.md").write_text(note_text("Future way, edited"))
    found = indexed_palace(root, snapshot=True, committed=True)
    assert found is not None
    names = dict(zip(*found[0].index_names[:2], strict=True))
    assert names["inbox/future-draft.md"] == "Future way, edited"
    assert walks == [False] and _clean(root) == _head(root)
    del found, walks[:]
    (root / "inbox/dropped.md").write_text(note_text("Dropped by an agent, edited"))
    code, _, err = run_cli("--palace", root, "promote", "inbox/dropped.md", "--yes")
    assert code == 0, err
    assert True not in walks
    made = root / "notes/project/dropped-by-an-agent-edited.md"
    assert made.is_file()
    _current(root)


def test_a_draft_deleted_from_the_ignored_inbox_is_seen(vouched: Path, walks: list[bool]) -> None:
    """A draft gone from the drafts folder, which git's status cannot vouch for: the record
    holds one draft more than the folder, so its row is removed (the notes not walked) and
    no such draft is planned from; one gone and another dropped (the count the same) too."""
    from curator.search.cold import indexed_palace

    (vouched / "inbox/future-draft.md").unlink()
    found = indexed_palace(vouched, snapshot=True, committed=True)
    assert found is not None and "inbox/future-draft.md" not in found[0].files
    assert DRAFT in found[0].files
    assert "inbox/future-draft.md" not in found[0].index_names[0]
    assert walks == [False]
    del found
    (vouched / DRAFT).rename(vouched / "inbox/renamed.md")
    found = indexed_palace(vouched, snapshot=True, committed=True)
    assert found is not None and DRAFT not in found[0].files
    assert "inbox/renamed.md" in found[0].files
    assert DRAFT not in found[0].index_names[0]
    assert True not in walks


def test_a_promote_of_a_draft_changed_since_decodes_the_record_once(
    vouched: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plan reads the changed draft's row into the index and writes the record of files
    again; the index following the commit reads that record: it is taken as the plan wrote
    it, not decoded again (at 100k files 13 MB, ~0.1 s)."""
    import curator.search.filerecord as filerecord

    decoded: list[int] = []
    real = filerecord._decoded

    def counted(decoder: Any, data: bytes) -> Any:
        if decoder is filerecord._decoder:
            decoded.append(len(data))
        return real(decoder, data)

    monkeypatch.setattr(filerecord, "_decoded", counted)
    (vouched / DRAFT).write_text(note_text("Zebu ledger rule", body="Reconcile it weekly.\n"))
    code, _, err = run_cli("--palace", vouched, "promote", DRAFT, "--yes")
    assert code == 0, err
    assert len(decoded) == 1
    assert "Reconcile it weekly." in (vouched / "notes/project/zebu-ledger-rule.md").read_text()
    _current(vouched)


def test_a_note_git_ignores_is_seen(vouched: Path, run_cli: RunCli) -> None:
    """A note .gitignore hides from git's status as untracked (a pattern added by hand)
    is still shown as ignored, and a load reads it: the plan sees it."""
    root = vouched
    with (root / ".gitignore").open("a") as ignore:
        ignore.write("notes/user/secret.md\n")
    (root / "notes/user/secret.md").write_text(note_text("Zebu ledger rule", type="user"))
    code, _, err = run_cli("--palace", root, "promote", DRAFT, "--yes")
    assert code == 2 and "already exists: notes/user/secret.md" in err


def test_a_teammates_pulled_commit_is_seen(vouched: Path, run_cli: RunCli, tmp_path: Path) -> None:
    root = vouched
    clone = tmp_path / "teammate"
    git(tmp_path, "clone", "-q", str(root), str(clone))
    git(clone, "config", "user.email", "t@example.com")
    git(clone, "config", "user.name", "T")
    (clone / "notes/user/taken.md").write_text(note_text("Zebu ledger rule", type="user"))
    git(clone, "add", "notes/user/taken.md")
    git(clone, "commit", "-q", "-m", "teammate")
    git(root, "pull", "-q", "--ff-only", str(clone), "HEAD")
    code, _, err = run_cli("--palace", root, "promote", DRAFT, "--yes")
    assert code == 2 and "already exists: notes/user/taken.md" in err


def test_lines_spliced_among_names_beyond_ascii_are_a_full_renders_bytes(
    root: Path, run_cli: RunCli, loads: list[Path]
) -> None:
    """INDEX.md is spliced as bytes (never decoded whole): rooms and lines found by byte
    offsets must land where a full render puts them when names are not ASCII."""
    from curator.model.index_md import render_index_hashed

    for i, name in enumerate(("Ærø ledger", "Zürich straße", "日本 notes", "Émile")):
        (root / f"notes/project/wide-{i}.md").write_text(note_text(name), encoding="utf-8")
    git(root, "add", "notes/project")
    git(root, "commit", "-q", "-m", "wide names")
    code, _, err = run_cli("--palace", root, "index", "--yes")  # curator's render, remembered
    assert code == 0, err
    del loads[:]
    (root / "inbox/wide-draft.md").write_text(note_text("Ærø zebu rule"), encoding="utf-8")
    for argv in (("promote", "inbox/wide-draft.md", "--yes"), ("undo", "--yes")):
        code, _, err = run_cli("--palace", root, *argv)
        assert code == 0, err
        _current(root)
    assert loads == [root, root]  # `_current`'s own loads: the commands loaded none
    palace = Palace.open(root)
    data = (root / INDEX_NAME).read_bytes()
    assert render_index_hashed(palace, data)[0] == render_index(palace, data).encode("utf-8")


def test_apply_hashes_each_pre_image_once(
    root: Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pre-image checked against the plan is the one the journal keeps: INDEX.md's bytes
    (25 MB at 100k notes) are hashed once, not again for the journal."""
    import curator.writer.apply as apply

    hashed: list[int] = []
    real = apply.content_hash

    def counted(data: bytes) -> str:
        hashed.append(len(data))
        return real(data)

    monkeypatch.setattr(apply, "content_hash", counted)
    before = len((root / INDEX_NAME).read_bytes())
    code, _, err = run_cli("--palace", root, "promote", DRAFT, "--yes")
    assert code == 0, err
    assert hashed.count(before) == 1


def test_a_draft_named_by_no_path_of_the_palace_is_looked_for_in_the_loaded_palace(
    root: Path, run_cli: RunCli
) -> None:
    """A draft ref that is no path the rows hold (gone, a slug, a name) needs every note to
    be told: the plan falls back to the loaded palace and says what it says, never an
    internal error from the rows' palace."""
    code, _, err = run_cli("--palace", root, "promote", "inbox/gone.md", "--yes")
    assert code == 2 and "no draft matches 'inbox/gone.md'" in err, err
    code, out, err = run_cli("--palace", root, "promote", "zebu-draft", "--dry-run")
    assert code == 0 and "notes/project/zebu-ledger-rule.md" in out, err


SEARCH_MODULES = """
import sys
from curator.cli import main

code = main(sys.argv[1:])
print(sorted(m for m in sys.modules if m.startswith("curator.search.")))
sys.exit(code)
"""


def test_a_promote_and_its_index_following_import_no_ranking(root: Path) -> None:
    """A promote planned from the rows, and the index following its commit, import none of
    the modules that rank a search's candidates: nothing there scores or serves a note."""
    argv = [sys.executable, "-c", SEARCH_MODULES, "--palace", str(root), "promote", DRAFT]
    proc = subprocess.run([*argv, "--yes"], capture_output=True, text=True, input="")
    assert proc.returncode == 0, proc.stderr
    loaded = proc.stdout.splitlines()[-1]
    assert "curator.search.cold" in loaded and "curator.search.writes" in loaded, loaded
    for module in ("searcher", "ranking", "candidates", "values"):
        assert f"curator.search.{module}'" not in loaded
