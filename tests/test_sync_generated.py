"""Generated files (INDEX.md, Claude Code's MEMORY.md) through a sync's replay and an undo
(issue 31): rendered from what the commit holds, never from the working copy; a person's lines
in them (INDEX.md's preamble, MEMORY.md's lines but its entries) arrive byte for byte; a note
over the size limit renders the same whether it was read from the disk or from git."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from layouthelpers import FIXTURES, adopt_copy
from palacehelpers import git, note_text
from synchelpers import clean, make_team, promote_new, remote_head

from curator.model.index_md import MARKER, index_is_current, render_index
from curator.model.note import MAX_BYTES
from curator.model.palace import Palace
from curator.writer.actions.index import plan_index
from curator.writer.actions.promote import plan_promote
from curator.writer.actions.undo import undo
from curator.writer.capture import capture
from curator.writer.session import commit
from curator.writer.sync import SyncConflictError, sync


def show(repo: Path, spec: str) -> bytes:
    """A file of a commit, its bytes as git holds them (text mode would turn CRLF into LF)."""
    return subprocess.run(["git", "show", spec], cwd=repo, capture_output=True, check=True).stdout


def fresh_clone(remote: Path, dest: Path) -> Path:
    git(remote.parent, "clone", "-q", str(remote), str(dest))
    return dest


def assert_current(clone: Path) -> None:
    """The clone's generated files equal a fresh render of its committed notes."""
    palace = Palace.open(clone)
    assert index_is_current(palace), render_index(palace, (clone / "INDEX.md").read_bytes())


# -- rendered from committed content -----------------------------------------------------------
def _untracked(root: Path) -> str:
    (root / "notes/project").mkdir(parents=True, exist_ok=True)
    (root / "notes/project/hand-made.md").write_text(note_text("Hand made", description="HIDDEN"))
    return "hand-made"


def _ignored(root: Path) -> str:
    (root / ".git/info/exclude").write_text("notes/private/\n")
    (root / "notes/private").mkdir(parents=True)
    (root / "notes/private/mine.md").write_text(note_text("Ignored mine", description="HIDDEN"))
    return "Ignored mine"


def _edited(root: Path) -> str:
    rel = "notes/project/base-fact.md"
    path = root / rel
    path.write_text(path.read_text().replace("About Base fact.", "HIDDEN uncommitted words"))
    return "HIDDEN"


def test_a_replay_renders_index_md_from_committed_notes_only(tmp_path: Path) -> None:
    """Notes the working copy holds and HEAD does not: untracked, ignored, edited."""
    remote, (a, b) = make_team(tmp_path, 2)
    promote_new(a, "Base fact")
    sync(a)
    sync(b)
    hidden = [dirty(b) for dirty in (_untracked, _ignored, _edited)]
    promote_new(a, "From a")
    sync(a)
    promote_new(b, "From b")
    sync(b)  # replays b's promote onto a's: INDEX.md is rendered for the replayed commit
    pushed = git(remote, "show", "main:INDEX.md").stdout
    assert "From a" in pushed and "From b" in pushed and "About Base fact." in pushed
    assert not [h for h in hidden if h in pushed]
    assert_current(fresh_clone(remote, tmp_path / "fresh"))


def test_undo_renders_index_md_from_committed_notes_only(tmp_path: Path) -> None:
    """An undo given a palace loaded before (the app's), with hand-added notes on disk."""
    _remote, (a,) = make_team(tmp_path, 1)
    promote_new(a, "Base fact")
    promote_new(a, "Second fact")
    stale = Palace.open(a)
    promote_new(a, "Third fact")  # committed after the palace was loaded
    for i in range(4):
        (a / f"notes/project/hand-{i}.md").write_text(note_text(f"Hand {i}", description="HIDDEN"))
    plan = undo(a, None, palace=stale)
    commit(a, plan, palace=stale)
    index = git(a, "show", "HEAD:INDEX.md").stdout
    assert "HIDDEN" not in index and "Hand 0" not in index
    assert "Second fact" in index and "Third fact" not in index  # the undo took Third back
    for i in range(4):
        (a / f"notes/project/hand-{i}.md").unlink()
    assert_current(a)


# -- a person's lines survive ------------------------------------------------------------------
HAND_EDITS = [
    # (what the person does to the preamble, a line to find afterwards)
    lambda pre: pre.replace("One line per note", "ONE LINE PER NOTE (hand)\r\nsecond"),
    lambda pre: pre + "ünïcödé — trailing line without end",
]


def test_hand_lines_in_index_md_survive_a_replay_and_a_pull(tmp_path: Path) -> None:
    remote, (a, b) = make_team(tmp_path, 2)
    promote_new(a, "Base fact")
    sync(a)
    sync(b)
    for n, edit in enumerate(HAND_EDITS):
        data = (b / "INDEX.md").read_bytes()
        pre, rest = data.split(MARKER.encode(), 1)
        mine = edit(pre.decode()).encode()
        (b / "INDEX.md").write_bytes(mine + MARKER.encode() + rest)
        git(b, "commit", "-qam", f"hand edit {n}")
        promote_new(a, f"Teammate fact {n}")
        sync(a)
        sync(b)  # the hand edit is replayed onto the teammate's promote
        pushed = show(remote, "main:INDEX.md")
        assert pushed.split(MARKER.encode(), 1)[0] == mine  # byte for byte
        assert f"Teammate fact {n}".encode() in pushed
        sync(a)  # and pulled by the teammate as it is
        assert (a / "INDEX.md").read_bytes() == pushed
        for clone in (a, b):
            assert clean(clone)
            assert_current(clone)


def test_a_preamble_edited_on_both_sides_is_merged_or_a_conflict(tmp_path: Path) -> None:
    remote, (a, b) = make_team(tmp_path, 2)
    promote_new(a, "Base fact")
    sync(a)
    sync(b)
    for clone, top, bottom in ((a, "Alpha's top line\n", ""), (b, "", "Beta's bottom line\n")):
        text = (clone / "INDEX.md").read_text()
        pre, rest = text.split(MARKER, 1)
        (clone / "INDEX.md").write_text(top + pre + bottom + MARKER + rest)
        git(clone, "commit", "-qam", "hand edit")
    sync(a)
    sync(b)  # different lines: git merges both
    pushed = git(remote, "show", "main:INDEX.md").stdout
    assert pushed.startswith("Alpha's top line\n") and "Beta's bottom line\n" + MARKER in pushed
    sync(a)
    for clone in (a, b):  # the same line, differently: a conflict, nothing moves
        text = (clone / "INDEX.md").read_text()
        (clone / "INDEX.md").write_text(text.replace("Alpha's top line", f"{clone.name} top"))
        git(clone, "commit", "-qam", "hand edit again")
    sync(a)
    before = remote_head(remote)
    with pytest.raises(SyncConflictError) as caught:
        sync(b)
    assert [(c.path, c.kind) for c in caught.value.plan.conflicts] == [("INDEX.md", "edited-both")]
    assert remote_head(remote) == before
    sync(b, resolutions={"INDEX.md": "mine"})
    assert git(remote, "show", "main:INDEX.md").stdout.startswith(f"{b.name} top\n")
    assert_current(b)


def claude_team(base: Path) -> tuple[Path, list[Path]]:
    """A Claude Code memory folder as the team's palace: a bare remote and two clones."""
    seed = adopt_copy(FIXTURES / "claude-code" / "memory", base / "seed", "claude-code")
    git(seed, "branch", "-M", "main")
    remote = base / "remote.git"
    git(base, "clone", "-q", "--bare", str(seed), str(remote))
    clones = []
    for i in range(2):
        clone = base / f"clone{i}"
        git(base, "clone", "-q", str(remote), str(clone))
        git(clone, "config", "user.name", f"reviewer{i}")
        git(clone, "config", "user.email", f"reviewer{i}@host{i}")
        clones.append(clone)
    return remote, clones


def _around(data: bytes) -> bytes:
    return b"# How I work\r\nRead the feedback first.\r\n" + data + b"Notes end here, by hand."


def _entries_reworded_and_moved(data: bytes) -> bytes:
    lines = data.splitlines(keepends=True)
    reworded = lines[1].replace(b"never mocks", b"no mocks, ever (the March outage)")
    return b"".join([lines[3], lines[0], reworded, *lines[2:3], *lines[4:]])


@pytest.mark.parametrize("edit", [_around, _entries_reworded_and_moved])
def test_hand_edits_of_memory_md_survive_a_replay(
    tmp_path: Path, edit: Callable[[bytes], bytes]
) -> None:
    """A person's lines around the entries, and the entries Claude Code reads reworded or
    moved by hand, arrive byte for byte after a teammate's promote and both syncs; the new
    entry is there once, and a promote afterwards keeps them too."""
    remote, (a, b) = claude_team(tmp_path)
    mine = edit((b / "MEMORY.md").read_bytes())
    (b / "MEMORY.md").write_bytes(mine)
    git(b, "commit", "-qam", "hand edit of MEMORY.md")
    draft = capture(a, type="project", name="Teammate memory", body="B.\n", description="D.")
    palace = Palace.open(a)
    commit(a, plan_promote(palace, draft.path, confidence=0.8), palace=palace)
    sync(a)
    sync(b)
    pushed = show(remote, "main:MEMORY.md")
    body = mine.removesuffix(b"Notes end here, by hand.")
    assert pushed.startswith(body) and pushed.count(b"Teammate memory") == 1
    assert all(line in pushed for line in mine.splitlines())
    draft = capture(b, type="project", name="Local memory", body="C.\n", description="E.")
    palace = Palace.open(b)
    commit(b, plan_promote(palace, draft.path, confidence=0.8), palace=palace)
    assert (b / "MEMORY.md").read_bytes().startswith(body)
    assert_current(fresh_clone(remote, tmp_path / "fresh"))


# -- a note over the size limit ------------------------------------------------------------------
@pytest.mark.parametrize("size", [MAX_BYTES + 1, MAX_BYTES + 2, 2 * MAX_BYTES, 3 * 1024 * 1024])
def test_a_note_over_the_limit_reads_the_same_from_disk_and_whole(
    tmp_path: Path, size: int
) -> None:
    """The loader reads a file up to the limit; a replay reads it whole from git."""
    root = tmp_path / "palace"
    (root / "notes/project").mkdir(parents=True)
    (root / "palace.toml").write_text('[palace]\nname = "p"\n')
    text = note_text("Big one")
    data = (text + "x" * (size - len(text))).encode()
    (root / "notes/project/big.md").write_bytes(data)
    from_disk = Palace.open(root, cache=False)
    whole = Palace(root, from_disk.config, [], []).replaced({"notes/project/big.md": data})
    assert render_index(from_disk, None) == render_index(whole, None)
    assert f"file is {size} bytes" in render_index(from_disk, None)


def test_a_replay_over_a_teammates_3_mb_note_leaves_index_md_current(tmp_path: Path) -> None:
    remote, (a, b) = make_team(tmp_path, 2)
    promote_new(a, "Base fact")
    sync(a)
    sync(b)
    size = 3 * 1024 * 1024
    text = note_text("Big one")
    (a / "notes/project/big.md").write_text(text + "x" * (size - len(text)))
    git(a, "add", "notes/project/big.md")
    git(a, "commit", "-qm", "a teammate's big note")
    palace = Palace.open(a)
    commit(a, plan_index(palace), palace=palace)
    sync(a)
    promote_new(b, "From b")
    sync(b)  # replayed: the big note read whole from git
    assert f"file is {size} bytes".encode() in show(remote, "main:INDEX.md")
    assert_current(b)
    shutil.rmtree(b)
    assert_current(fresh_clone(remote, b))


@pytest.mark.parametrize("action", ["promote", "retire", "index"])
def test_an_action_never_names_a_note_left_uncommitted(tmp_path: Path, run_cli, action) -> None:
    """Found by tests/test_sync_stateful.py: a retire wrote INDEX.md naming a note a person had
    left in notes/ uncommitted. Every action renders from what its commit holds."""
    _remote, (a,) = make_team(tmp_path, 1)
    base = promote_new(a, "Base fact")
    promote_new(a, "Other fact")
    _untracked(a)
    if action == "promote":
        promote_new(a, "Third fact")
    elif action == "retire":
        from curator.writer.actions.retire import plan_retire

        palace = Palace.open(a)
        commit(a, plan_retire(palace, base, "gone"), palace=palace)
    else:
        (a / "INDEX.md").write_text((a / "INDEX.md").read_text().replace("About Other", "x"))
        git(a, "commit", "-qam", "INDEX.md out of date")
        assert run_cli("index", "--check", cwd=a)[0] == 1
        assert run_cli("index", "--yes", cwd=a)[0] == 0
    assert "hand-made" not in git(a, "show", "HEAD:INDEX.md").stdout
    (a / "notes/project/hand-made.md").unlink()
    assert_current(a)
    assert run_cli("index", "--check", cwd=a)[0] == 0
