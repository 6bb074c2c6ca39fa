"""Drafts on a team: local and git-ignored by default; with `[team] share_inbox = true` they
travel on refs/curator/inbox (never the main branch), a flagged draft is never pushed, and a
draft promoted on one clone leaves every other inbox at its next sync (issue 22)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from palacehelpers import git
from synchelpers import make_team, share_inbox, tree

from curator.model.palace import Palace
from curator.writer.actions.promote import plan_promote
from curator.writer.capture import capture
from curator.writer.inbox_share import INBOX_REF, TAKEN_DIR
from curator.writer.session import commit
from curator.writer.sync import sync

SECRET = "The key is AKIA" + "ABCDEFGHIJKLMNOP" + " for the deploy bucket.\n"


def _remote_inbox(remote: Path) -> list[str]:
    proc = git(remote, "ls-tree", "-r", "--name-only", INBOX_REF)
    return proc.stdout.split()


@pytest.fixture
def sharing(tmp_path: Path) -> tuple[Path, list[Path]]:
    remote, clones = make_team(tmp_path)
    share_inbox(clones)
    return remote, clones


def test_drafts_stay_local_by_default(tmp_path: Path) -> None:
    remote, (a, b, _c) = make_team(tmp_path)
    draft = capture(a, type="project", name="Local draft", body="Text.\n").path
    sync(a)
    sync(b)
    assert not (b / draft).exists()
    assert git(remote, "show-ref").stdout.count(INBOX_REF) == 0
    assert not any(p.startswith("inbox/") for p in tree(a))


def test_shared_drafts_travel_and_a_promoted_one_leaves_every_inbox(sharing) -> None:
    remote, (a, b, c) = sharing
    draft = capture(a, type="project", name="Shared draft", body="Text.\n", description="d").path
    result = sync(a)
    assert result.inbox is not None and result.inbox.shared == 1
    assert _remote_inbox(remote) == [draft]
    assert not any(p.startswith("inbox/") for p in tree(a))  # never on the main branch
    result = sync(b)
    assert result.inbox is not None and result.inbox.received == (draft,)
    assert (b / draft).read_bytes() == (a / draft).read_bytes()
    sync(c)
    palace = Palace.open(b)
    commit(b, plan_promote(palace, draft, confidence=0.8), palace=palace)
    sync(b)
    assert _remote_inbox(remote) == []
    result = sync(a)
    assert result.inbox is not None and result.inbox.taken == (draft,)
    assert not (a / draft).exists() and (a / TAKEN_DIR / Path(draft).name).is_file()
    sync(c)
    assert not (c / draft).exists()
    assert [d.rel for d in Palace.open(c).drafts] == []


def test_a_flagged_draft_is_never_pushed(sharing) -> None:
    remote, (a, b, _c) = sharing
    flagged = capture(a, type="project", name="Deploy key", body=SECRET).path
    plain = capture(a, type="project", name="Plain draft", body="Nothing secret.\n").path
    result = sync(a)
    assert result.inbox is not None and result.inbox.kept_local == (flagged,)
    assert _remote_inbox(remote) == [plain]
    every = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"],
        cwd=remote, capture_output=True, check=True,
    ).stdout  # fmt: skip
    assert b"AKIA" not in every
    sync(b)
    assert (b / plain).is_file() and not (b / flagged).exists()
