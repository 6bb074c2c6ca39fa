"""Drafts an action took, on a team (issue 31): a draft is taken by its text, not its name, so
a new draft reusing a taken draft's name is neither set aside nor overwritten; a draft set
aside never overwrites one set aside before; an undo of a teammate's promote brings the
draft back to the inbox of the clone that parked it, and from there to every inbox."""

from __future__ import annotations

from pathlib import Path

import pytest
from synchelpers import make_team, promote_new, share_inbox

from curator.model.palace import Palace
from curator.writer.actions.promote import plan_promote
from curator.writer.actions.reject import plan_reject
from curator.writer.actions.undo import undo
from curator.writer.inbox_share import TAKEN_DIR
from curator.writer.session import commit
from curator.writer.sync import sync


@pytest.fixture
def sharing(tmp_path: Path) -> tuple[Path, list[Path]]:
    remote, clones = make_team(tmp_path, clones=2)
    share_inbox(clones)
    return remote, clones


def _draft(clone: Path, rel: str, text: str) -> None:
    path = clone / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    header = "---\nname: Retry policy\ndescription: d\ntype: project\nstatus: draft\n---\n"
    path.write_text(header + text, encoding="utf-8")


def _take(clone: Path, rel: str, how: str) -> None:
    palace = Palace.open(clone)
    if how == "reject":
        plan = plan_reject(palace, rel, "wrong")
    else:
        plan = plan_promote(palace, rel, confidence=0.8)
    commit(clone, plan, palace=palace)


def _texts(clone: Path) -> list[str]:
    """Every draft text this clone holds: its inbox and what it set aside or parked."""
    found = []
    for folder in (clone / "inbox", clone / ".curator"):
        if folder.is_dir():
            found += [p.read_text() for p in folder.rglob("*.md") if p.is_file()]
    return found


@pytest.mark.parametrize("how", ["reject", "promote"])
@pytest.mark.parametrize("where", ["here", "teammate"])
def test_a_new_draft_reusing_a_taken_name_is_kept(sharing, how: str, where: str) -> None:
    _remote, (a, b) = sharing
    rel = "inbox/retry-policy.md"
    _draft(a, rel, "First text, wrong.\n")
    sync(a)
    sync(b)
    taker, writer = (a, a) if where == "here" else (b, a)
    _take(taker, rel, how)
    sync(taker)
    sync(a)
    sync(b)
    for n in range(2):  # a corrected draft under the same name, twice over
        _draft(writer, rel, f"Corrected text {n}.\n")
        for _round in range(2):
            for clone in (a, b):
                sync(clone)
        for clone in (a, b):
            assert (clone / rel).read_text().endswith(f"Corrected text {n}.\n"), (n, clone)
        if n == 0:
            _take(writer, rel, "reject")
            sync(writer)
            sync(b if writer == a else a)
    for text in ("First text", "Corrected text 0", "Corrected text 1"):
        assert any(text in t for t in _texts(a) + _texts(b)), text


def test_undoing_a_teammates_promote_brings_the_draft_back(sharing) -> None:
    _remote, (a, b) = sharing
    rel = "inbox/retry-policy.md"
    promote_new(a, "Other fact")  # the index keeps a note when the promote is undone
    _draft(a, rel, "Retry three times.\n")
    sync(a)
    sync(b)
    _take(b, rel, "promote")  # b parks the draft in its .curator/promoted/
    sync(b)
    sync(a)
    assert not (a / rel).exists() and (a / TAKEN_DIR / "retry-policy.md").is_file()
    palace = Palace.open(a)
    commit(a, undo(a, palace=palace), palace=palace)  # a undoes b's promote
    sync(a)
    sync(b)  # the draft parked on b goes back to b's inbox, and is shared from there
    sync(a)
    for clone in (a, b):
        assert (clone / rel).read_text().endswith("Retry three times.\n"), clone
