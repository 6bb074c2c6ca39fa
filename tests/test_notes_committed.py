"""git's status as the proof that a palace's notes are as HEAD holds them (`notes_committed`,
which a plan from the search index reads) leaves INDEX.md out: at 100k notes git hashed its
25 MB again for it, written in the same second as git's index by the last commit. An INDEX.md
that differs from HEAD is still never committed over: the writer's own status refuses it."""

from __future__ import annotations

from pathlib import Path

import pytest
from palacehelpers import MakePalace, RunCli, git, inbox_ignored, note_text

from curator.model.palace import INDEX_NAME
from curator.writer.committed import notes_committed

TOML = '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[index]\nembedder = "hash"\ndim = 64\n'
DRAFT = "inbox/gnu-draft.md"


@pytest.fixture
def root(make_palace: MakePalace, run_cli: RunCli) -> Path:
    files = {f"notes/project/gnu-{i}.md": note_text(f"Gnu {i}", body="Gnu.\n") for i in range(4)}
    files[DRAFT] = note_text("Gnu draft", body="Drafted.\n")
    root = make_palace(files, toml=TOML)
    inbox_ignored(root)
    code, _, err = run_cli("--palace", root, "index", "--yes")
    assert code == 0, err
    code, _, err = run_cli("--palace", root, "reindex")
    assert code == 0, err
    return root


def _head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").stdout.strip()


def test_the_notes_are_committed_whatever_index_md_holds(root: Path) -> None:
    assert notes_committed(root) == _head(root)
    index = root / INDEX_NAME
    index.write_bytes(index.read_bytes() + b"\nby hand\n")
    assert notes_committed(root) == _head(root)
    (root / "notes/project/gnu-0.md").write_text(note_text("Gnu 0", body="Edited.\n"))
    assert notes_committed(root) is None


def test_a_subfolder_palace_leaves_out_its_own_index_md_only(tmp_path: Path) -> None:
    """A palace in a folder of its repository: the paths given git stay literal (a folder
    named like pathspec magic is a folder), and only the palace's INDEX.md is left out."""
    outer = tmp_path / "repo"
    palace = outer / ":(glob)*"
    palace.mkdir(parents=True)
    (palace / "palace.toml").write_text(TOML)
    (palace / "notes/project").mkdir(parents=True)
    (palace / "notes/project/gnu.md").write_text(note_text("Gnu", body="Gnu.\n"))
    (palace / INDEX_NAME).write_text("# Index\n")
    git(outer, "init", "-q")
    git(outer, "add", "-A")
    git(outer, "commit", "-q", "-m", "a palace in a folder")
    assert notes_committed(palace) == _head(outer)
    (palace / INDEX_NAME).write_text("# Index, by hand\n")
    assert notes_committed(palace) == _head(outer)
    (palace / "notes/project/new.md").write_text(note_text("New", body="New.\n"))
    assert notes_committed(palace) is None


def test_a_promote_over_an_index_md_edited_by_hand_is_refused(root: Path, run_cli: RunCli) -> None:
    index = root / INDEX_NAME
    edited = index.read_bytes() + b"\nby hand\n"
    index.write_bytes(edited)
    head = _head(root)
    code, _, err = run_cli("--palace", root, "promote", DRAFT, "--yes")
    assert code != 0 and INDEX_NAME in err, err
    assert _head(root) == head and index.read_bytes() == edited and (root / DRAFT).is_file()


def test_a_palace_folder_git_ignores_whole_is_not_shown_committed(tmp_path: Path) -> None:
    """git names a folder it ignores whole (or finds untracked whole) by the folder, not by
    what is in it: for a palace in such a folder of its repository it names the palace's own
    folder, which may hold notes (HEAD holds none of them)."""
    outer = tmp_path / "repo"
    palace = outer / "memory"
    (palace / "notes/project").mkdir(parents=True)
    (palace / "palace.toml").write_text(TOML)
    (palace / "notes/project/gnu.md").write_text(note_text("Gnu", body="Gnu.\n"))
    (outer / "README").write_text("a repository\n")
    git(outer, "init", "-q")
    git(outer, "add", "README")
    git(outer, "commit", "-q", "-m", "the repository, not the palace")
    assert notes_committed(palace) is None  # untracked
    (outer / ".gitignore").write_text("memory/\n")
    assert notes_committed(palace) is None  # ignored


def test_files_beside_the_notes_leave_them_committed(root: Path) -> None:
    """git is asked about the notes folder alone: a file beside it, changed or new, tracked,
    untracked or ignored, is no note."""
    (root / "palace.toml").write_text(TOML + "\n# a comment\n")
    (root / "attachments").mkdir()
    (root / "attachments/diagram.txt").write_text("a diagram\n")
    (root / "inbox/other-draft.md").write_text(note_text("Other draft", body="Drafted.\n"))
    assert notes_committed(root) == _head(root)
    (root / "notes/project/new.md").write_text(note_text("New", body="New.\n"))
    assert notes_committed(root) is None
