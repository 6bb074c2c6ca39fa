"""A shared palace is as safe as a private one (issue 31): nothing a draft holds that must
stay local reaches the remote through the shared inbox, whatever field holds it; clones made
exactly as `git clone` makes them (no inbox/); a hand merge keeps no conflict marker of any
conflictStyle. Real git: a bare remote and its clones."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from palacehelpers import git
from synchelpers import make_team, share_inbox

from curator.writer.capture import capture
from curator.writer.inbox_share import INBOX_REF
from curator.writer.sync import sync
from curator.writer.syncmerge import merge_problems

KEY = "AKIA" + "QWERTYUIOPASDFGH"
HEAD = b"---\nname: X\ndescription: d\ntype: project\n---\n"


def remote_bytes(remote: Path) -> bytes:
    """Every object the remote holds, whole (what a teammate could read)."""
    return subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"],
        cwd=remote, capture_output=True, check=True,
    ).stdout  # fmt: skip


def remote_inbox(remote: Path) -> list[str]:
    proc = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", INBOX_REF], cwd=remote, capture_output=True,
        text=True,
    )  # fmt: skip
    return proc.stdout.split()


@pytest.fixture
def sharing(tmp_path: Path) -> tuple[Path, list[Path]]:
    remote, clones = make_team(tmp_path, clones=2)
    share_inbox(clones)
    return remote, clones


def draft_file(clone: Path, name: str, header: str, body: str = "Text.\n") -> str:
    rel = f"inbox/{name}.md"
    path = clone / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{header}---\n{body}", encoding="utf-8")
    return rel


# where a secret or a hidden draft can sit: every field that leaves with the file
SECRET_PLACES = {
    "description": f"name: In the description\ntype: project\ndescription: the key {KEY}\n",
    "context": f"name: In the context\ntype: project\ncontext: |\n  user: use {KEY}\n",
    "custom field": f"name: In a field of its own\ntype: project\nnotes_for_me: {KEY}\n",
    "name": f"name: Key {KEY}\ntype: project\n",
    "tags": f"name: In the tags\ntype: project\ntags: [{KEY}]\n",
    "unparseable header": f"name: [unclosed {KEY}\ntype: project\n",
}


@pytest.mark.parametrize("place", list(SECRET_PLACES))
def test_no_secret_leaves_through_the_shared_inbox_from_any_field(sharing, place: str) -> None:
    remote, (a, b) = sharing
    rel = draft_file(a, "with-a-key", SECRET_PLACES[place])
    plain = draft_file(a, "plain", "name: Plain\ntype: project\ndescription: Nothing.\n")
    result = sync(a)
    assert result.inbox is not None and result.inbox.kept_local == (rel,)
    assert remote_inbox(remote) == [plain]
    assert KEY.encode() not in remote_bytes(remote)
    assert (a / rel).is_file()  # kept here, never lost
    sync(b)
    assert not (b / rel).exists() and (b / plain).is_file()


def test_an_unparseable_draft_does_not_leave(sharing) -> None:
    remote, (a, _b) = sharing
    rel = draft_file(a, "broken", "name: [unclosed\ntype: project\n")
    result = sync(a)
    assert result.inbox is not None and result.inbox.kept_local == (rel,)
    assert any("does not parse" in line for line in result.inbox.lines())
    assert remote_inbox(remote) == []


@pytest.mark.parametrize(
    "header",
    [
        "name: Private\ntype: project\nsensitive: true\n",
        "name: Private\ntype: project\nsensitive: yes please\n",  # not exactly false: hidden
        "name: Private\ntype: project\nscope: ops\n",  # a sensitive scope
    ],
)
def test_sensitive_drafts_stay_local_unless_the_palace_says_otherwise(sharing, header: str) -> None:
    remote, (a, b) = sharing
    toml = a / "palace.toml"
    toml.write_text(
        toml.read_text(encoding="utf-8") + '\n[scopes.ops]\nroot = "."\nsensitive = true\n',
        encoding="utf-8",
    )
    git(a, "commit", "-q", "-am", "an ops scope, sensitive")
    rel = draft_file(a, "private", header, body="The ops secret plan.\n")
    result = sync(a)
    assert result.inbox is not None and rel in result.inbox.kept_local
    assert b"The ops secret plan" not in remote_bytes(remote)
    text = toml.read_text(encoding="utf-8")
    assert "share_sensitive = false" in text  # init writes every table with its defaults
    toml.write_text(text.replace("share_sensitive = false", "share_sensitive = true", 1))
    git(a, "commit", "-q", "-am", "share sensitive drafts too")
    sync(a)
    assert rel in remote_inbox(remote)
    sync(b)
    assert (b / rel).is_file()


def test_a_fresh_clone_without_an_inbox_folder_syncs(tmp_path: Path) -> None:
    """git keeps no empty folder: a clone has no inbox/; a teammate's draft in inbox/sub/."""
    _remote, (a, b) = make_team(tmp_path, clones=2)
    assert not (a / "inbox").exists() and not (b / "inbox").exists()
    share_inbox([a, b])  # (syncs both: the first sync of a clone with no inbox/)
    nested = draft_file(a, "sub/nested", "name: Nested\ntype: project\ndescription: d\n")
    top = capture(a, type="project", name="Top draft", body="Text.\n", description="d").path
    sync(a)
    result = sync(b)
    assert result.inbox is not None and set(result.inbox.received) == {nested, top}
    assert (b / nested).read_bytes() == (a / nested).read_bytes()
    assert sync(b).inbox is not None  # and every later sync


@pytest.mark.parametrize("style", ["merge", "diff3", "zdiff3"])
def test_a_hand_merge_with_markers_of_any_conflict_style_is_refused(
    tmp_path: Path, style: str
) -> None:
    """The text git writes for a conflict, in each conflictStyle, is refused as a merge."""
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "merge.conflictStyle", style)
    files = {}
    for name, text in (
        ("base", "a\nb\nc\n"),
        ("mine", "a\nMINE\nc\n"),
        ("theirs", "a\nTHEIRS\nc\n"),
    ):
        files[name] = repo / name
        files[name].write_text(text)
    proc = subprocess.run(
        ["git", "merge-file", "-p", f"--{style}" if style != "merge" else "--stdout",
         str(files["mine"]), str(files["base"]), str(files["theirs"])],
        cwd=repo, capture_output=True,
    )  # fmt: skip
    merged = proc.stdout
    assert b"<<<<<<<" in merged
    for marker in (b"<<<<<<<", b"|||||||", b">>>>>>>"):
        # each marker line alone is refused too (a person may delete the others)
        lines = [line for line in merged.splitlines(keepends=True) if line.startswith(marker)]
        if lines:
            assert merge_problems("notes/x.md", HEAD + b"text\n" + lines[0] + b"more\n")
    assert merge_problems("notes/x.md", HEAD + merged)
    assert merge_problems("notes/x.md", HEAD + b"A heading\n=======\n\nText.\n") == []


@pytest.mark.parametrize(
    "forced",
    [
        ".curator/journal/0001-promote.json",
        "inbox/2026-12-01-mine.md",
        ".curator/rejected/2026-12-01-old.md",
        "inbox/sub/x.md",
    ],
)
def test_machine_state_and_drafts_from_a_remote_are_refused(
    tmp_path: Path, run_cli, forced: str
) -> None:
    """A teammate force-adds a journal entry or a draft and pushes: this clone's sync refuses
    the commit by name with nothing changed, its own drafts untouched; check reports it."""
    from curator.writer.git import discover

    _remote, (a, b) = make_team(tmp_path, clones=2)
    mine = draft_file(b, "2026-12-01-mine", "name: Mine\ntype: project\ndescription: d\n")
    other = draft_file(b, "2026-12-02-other", "name: Other\ntype: project\ndescription: d\n")
    before = {rel: (b / rel).read_bytes() for rel in (mine, other)}
    path = a / forced
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"action": "promote", "drafts": ["inbox/2026-12-01-mine.md"]}\n')
    git(a, "add", "-f", forced)
    git(a, "commit", "-q", "-m", "oops: machine state")
    git(a, "push", "-q", "origin", "HEAD")
    code, out, err = run_cli("--palace", a, "check")
    assert code == 1 and forced in out + err and "git.local-only-tracked" in out + err
    head = discover(b).git("rev-parse", "HEAD").stdout
    code, _, stderr = run_cli("--palace", b, "sync", "--yes")
    assert code == 2 and forced in stderr and "never taken from a remote" in stderr, stderr
    sha = git(a, "rev-parse", "HEAD").stdout.strip()
    assert sha[:10] in stderr
    assert discover(b).git("rev-parse", "HEAD").stdout == head  # nothing moved
    assert {rel: (b / rel).read_bytes() for rel in (mine, other)} == before
    assert not (b / forced).exists() or forced in before


def trailers(root: Path, key: str) -> list[tuple[str, str]]:
    """(commit, value) of each `key:` trailer in the history."""
    out = git(root, "log", f"--format=%H%x00%(trailers:key={key},valueonly)%x1e").stdout
    found = []
    for record in filter(str.strip, out.split("\x1e")):
        sha, _, values = record.strip().partition("\x00")
        found += [(sha, v.strip()) for v in values.splitlines() if v.strip()]
    return found


def test_a_replayed_undo_names_the_replayed_commit(tmp_path: Path, run_cli) -> None:
    """A promote and its undo, made while a teammate pushed, are replayed onto the remote's
    tip: the undo's trailer and its reason name the promote's new commit, and history says
    the replayed promote was undone."""
    from synchelpers import promote_new

    remote, (a, b) = make_team(tmp_path, clones=2)
    promote_new(a, "Base fact")
    sync(a)
    sync(b)
    promote_new(a, "Alpha fact")
    first = git(a, "rev-parse", "HEAD").stdout.strip()
    code, _, stderr = run_cli("--palace", a, "undo", first, "--yes")
    assert code == 0, stderr
    promote_new(b, "Beta fact")
    sync(b)  # the remote moves on: a's two commits are replayed
    sync(a)
    shared = set(git(remote, "rev-list", "HEAD").stdout.split())
    undos = trailers(a, "Curator-Undo")
    assert undos and all(value in shared for _sha, value in undos), undos
    (undo_sha, undone), *_ = undos
    assert undone != first and git(a, "log", "-1", "--format=%s", undone).stdout.startswith(
        "promote"
    )
    body = git(a, "log", "-1", "--format=%B", undo_sha).stdout
    assert first[:10] not in body and undone[:10] in body
    from curator.writer.history import history

    entries = {e.sha: e for e in history(a)}
    assert entries[undo_sha].undoes == undone and entries[undone].action == "promote"


@pytest.mark.parametrize("conflict", ["name-taken", "edited-both"])
def test_keep_theirs_is_recorded_in_the_shared_history(
    tmp_path: Path, run_cli, conflict: str
) -> None:
    """The action given up for the remote's version leaves a commit in the shared history
    whose message holds what it did (its message and its diff): the text is never lost."""
    from synchelpers import edit_body, promote_new

    from curator.writer.history import history

    remote, (a, b) = make_team(tmp_path, clones=2)
    if conflict == "name-taken":
        rel = promote_new(a, "Same name", body="Alpha wrote this.\n")
        sync(a)
        promote_new(b, "Same name", body="Beta wrote this.\n")
    else:
        rel = promote_new(a, "Shared fact")
        sync(a)
        sync(b)
        edit_body(a, rel, "Alpha's text.\n")
        sync(a)
        edit_body(b, rel, "Beta wrote this.\n")
    code, _, stderr = run_cli("--palace", b, "sync", "--yes", "--keep-theirs", rel)
    assert code == 0, stderr
    shared = git(remote, "log", "--format=%H%x00%B%x1e").stdout
    records = [r for r in shared.split("\x1e") if "Curator-Action: settle" in r]
    assert len(records) == 1 and "Beta wrote this." in records[0], shared
    entry = next(e for e in history(b) if e.action == "settle")
    assert entry.subject.startswith("settle: gave up") and not entry.undoable
