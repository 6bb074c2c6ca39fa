"""INDEX.md hashed once per version an action checks (issue 34): at 100k notes the file is
25 MB, and a promote's plan and apply hashed its old bytes four times and its new bytes
twice. The plan hashes the bytes it renders from and hands the hash to the render; the render
hands its own to the writer's journal; the apply hashes the file on disk (what it guards).
A plan is read from the index when INDEX.md has the size of a render remembered; whether it
is one is still told by its bytes."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from palacehelpers import MakePalace, RunCli, git, inbox_ignored, note_text

from curator.model.index_md import render_index
from curator.model.palace import INDEX_NAME, Palace

TOML = '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[index]\nembedder = "hash"\ndim = 64\n'
DRAFT = "inbox/zebu-draft.md"


@pytest.fixture
def root(make_palace: MakePalace, run_cli: RunCli) -> Path:
    files = {
        f"notes/{t}/note-{i}.md": note_text(f"Note {i}", type=t)
        for i, t in enumerate(("user", "feedback", "project", "reference") * 4)
    }
    files[DRAFT] = note_text("Zebu ledger rule", body="Reconcile the zebu ledger daily.\n")
    root = make_palace(files, toml=TOML)
    inbox_ignored(root)
    for args in (("index", "--yes"), ("reindex",)):  # curator's render, remembered; an index
        code, _, err = run_cli("--palace", root, *args)
        assert code == 0, err
    return root


@pytest.fixture
def digests(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The sha256 hex digests made from now on (every hashlib.sha256 whose digest is read)."""
    made: list[str] = []
    real = hashlib.sha256

    class Counted:
        def __init__(self, data: bytes = b"") -> None:
            self._hash = real(data)

        def update(self, data: bytes) -> None:
            self._hash.update(data)

        def hexdigest(self) -> str:
            made.append(self._hash.hexdigest())
            return made[-1]

    monkeypatch.setattr(hashlib, "sha256", Counted)
    yield made


def _sha(data: bytes) -> str:
    return hashlib.new("sha256", data).hexdigest()  # not counted


def test_a_promote_hashes_each_index_md_once_in_its_plan_and_once_on_disk(
    root: Path, run_cli: RunCli, digests: list[str]
) -> None:
    before = (root / INDEX_NAME).read_bytes()
    code, _, err = run_cli("--palace", root, "promote", DRAFT, "--yes")
    assert code == 0, err
    after = (root / INDEX_NAME).read_bytes()
    assert after != before
    # the old bytes: the plan's pre-image (and the render's check of it), apply's guard of
    # the file on disk; the new bytes: the render remembered, the journal's
    assert digests.count(_sha(before)) == 2
    assert digests.count(_sha(after)) == 1


def test_an_index_md_edited_to_the_same_size_is_rendered_again(root: Path, run_cli: RunCli) -> None:
    data = (root / INDEX_NAME).read_bytes()
    edited = data.replace(b"About note 3.", b"About note X.")
    assert edited != data and len(edited) == len(data)
    (root / INDEX_NAME).write_bytes(edited)
    git(root, "commit", "-q", "-am", "a hand edit of the generated part")
    code, _, err = run_cli("--palace", root, "promote", DRAFT, "--yes")
    assert code == 0, err
    now = (root / INDEX_NAME).read_bytes()
    assert b"About note 3." in now and b"About note X." not in now
    assert now.decode("utf-8") == render_index(Palace.open(root), now)
    assert git(root, "status", "--porcelain").stdout == ""
