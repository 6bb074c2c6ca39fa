"""`curator sync` on a real team: a bare repository as the remote and clones of it (issue 22)."""

from __future__ import annotations

from pathlib import Path

import pytest
from palacehelpers import RunCli, git
from synchelpers import (
    clean,
    edit_body,
    edited_on_both,
    head,
    make_team,
    promote_new,
    remote_head,
    tree,
)

from curator.model.index_md import index_is_current
from curator.model.palace import Palace
from curator.writer.actions.retire import plan_retire
from curator.writer.actions.supersede import plan_supersede
from curator.writer.session import commit
from curator.writer.sync import SyncConflictError, SyncError, plan_sync, sync


@pytest.fixture
def team(tmp_path: Path) -> tuple[Path, list[Path]]:
    return make_team(tmp_path)


def synced_everywhere(remote: Path, clones: list[Path]) -> None:
    for clone in clones:
        sync(clone)
    for clone in clones:
        sync(clone)
    tip = remote_head(remote)
    for clone in clones:
        assert head(clone) == tip
        assert clean(clone)
        ok = index_is_current(Palace.open(clone))
        assert ok


def test_two_reviewers_promote_and_index_md_is_rendered_not_merged(team, run_cli: RunCli) -> None:
    remote, (a, b, c) = team
    pa = promote_new(a, "Alpha fact")
    pb = promote_new(b, "Beta fact")
    synced_everywhere(remote, [a, b, c])
    index = (c / "INDEX.md").read_text()
    assert pa in index and pb in index
    assert tree(a) == tree(b) == tree(c)
    code, _, stderr = run_cli("--palace", c, "check")
    assert code == 0, stderr
    authors = git(c, "log", "--format=%an", "-2").stdout.split()
    assert sorted(authors) == ["reviewer0", "reviewer1"]


def test_same_note_edited_on_both_sides_stops_with_both_shown(team, run_cli: RunCli) -> None:
    remote, (a, b, _c) = team
    rel = edited_on_both(a, b)
    before, files = head(b), (b / rel).read_bytes()
    code, stdout, stderr = run_cli("--palace", b, "sync", "--yes")
    assert code == 1
    assert "Alpha's text." in stdout and "Beta's text." in stdout
    assert stdout.count("changed here by") == 1 and f"Both sides of {rel}" in stdout
    assert "--keep-mine" in stderr
    assert head(b) == before and (b / rel).read_bytes() == files and clean(b)
    code, _, stderr = run_cli("--palace", b, "sync", "--yes", "--keep-mine", rel)
    assert code == 0, stderr
    assert head(b) == remote_head(remote)
    assert (b / rel).read_text().endswith("Beta's text.\n")
    message = git(b, "log", "-1", "--format=%B").stdout
    assert f"Curator-Resolved: {rel} (kept this clone's)" in message
    sync(a)
    assert (a / rel).read_text().endswith("Beta's text.\n")


def test_merged_text_settles_a_conflict_as_one_commit(team, run_cli: RunCli, tmp_path) -> None:
    _remote, (a, b, _c) = team
    rel = edited_on_both(a, b)
    merged = (b / rel).read_text().replace("Beta's text.", "Alpha's and Beta's text.")
    (tmp_path / "merged.md").write_text(merged)
    count = len(git(b, "rev-list", "HEAD").stdout.split())
    code, _, stderr = run_cli(
        "--palace", b, "sync", "--yes", "--merged", f"{rel}={tmp_path / 'merged.md'}"
    )
    assert code == 0, stderr
    assert (b / rel).read_text() == merged
    assert len(git(b, "rev-list", "HEAD").stdout.split()) == count + 1  # theirs + the merged one


def test_name_taken_there_is_refused_and_keep_theirs_returns_the_draft(
    team, run_cli: RunCli
) -> None:
    remote, (a, b, _c) = team
    rel = promote_new(a, "Same name", body="Alpha wrote this.\n")
    sync(a)
    promote_new(b, "Same name", body="Beta wrote this.\n")
    code, stdout, _ = run_cli("--palace", b, "sync", "--yes")
    assert code == 1
    assert "the remote took that name already" in stdout
    assert "Alpha wrote this." in stdout and "Beta wrote this." in stdout
    code, _, stderr = run_cli("--palace", b, "sync", "--yes", "--keep-theirs", rel)
    assert code == 0, stderr
    assert tree(b) == tree(a) and head(b) == remote_head(remote)
    drafts = [d.rel for d in Palace.open(b).drafts]
    assert len(drafts) == 1 and "Beta wrote this." in (b / drafts[0]).read_text()


def test_retire_here_supersede_there_is_a_conflict(team) -> None:
    _remote, (a, b, _c) = team
    old = promote_new(a, "Old fact")
    new = promote_new(a, "New fact")
    sync(a)
    sync(b)
    palace = Palace.open(a)
    commit(a, plan_supersede(palace, old, new, reason="newer"), palace=palace)
    sync(a)
    palace = Palace.open(b)
    commit(b, plan_retire(palace, old, "gone"), palace=palace)
    before = head(b)
    with pytest.raises(SyncConflictError) as info:
        sync(b)
    assert [c.path for c in info.value.plan.conflicts] == [old]
    assert info.value.plan.conflicts[0].theirs is not None
    assert head(b) == before and clean(b)


def test_dry_run_and_check(team, run_cli: RunCli) -> None:
    remote, (a, b, _c) = team
    code, stdout, _ = run_cli("--palace", a, "sync", "--check")
    assert code == 0 and "Up to date" in stdout
    promote_new(a, "Alpha fact")
    code, stdout, _ = run_cli("--palace", a, "sync", "--check")
    assert code == 1 and "to push" in stdout
    before = remote_head(remote)
    code, stdout, _ = run_cli("--palace", a, "sync", "--dry-run")
    assert code == 0 and "promote: Alpha fact" in stdout and remote_head(remote) == before
    code, _, stderr = run_cli("--palace", a, "sync")  # no terminal to ask on, no --yes
    assert code == 2 and "--yes" in stderr and remote_head(remote) == before
    sync(a)
    code, stdout, _ = run_cli("--palace", b, "sync", "--check")
    assert code == 1 and "to pull" in stdout
    code, stdout, _ = run_cli("--palace", b, "--json", "sync", "--dry-run")
    assert code == 0 and '"incoming"' in stdout and head(b) != remote_head(remote)
    promote_new(b, "Beta fact")
    code, stdout, _ = run_cli("--palace", b, "sync", "--yes")  # the plan, then the result line
    assert code == 0 and stdout.strip().splitlines()[-1] == "Synced: 1 pulled, 1 pushed.", stdout
    code, stdout, _ = run_cli("--palace", b, "sync", "--yes")
    assert code == 0 and stdout.strip().splitlines() == ["Up to date with origin/main."], stdout


def test_the_plan_names_no_commit_that_will_not_exist(team, run_cli: RunCli) -> None:
    """A commit to be replayed gets its id when the sync makes it: the plan shows none (the
    dry run's would never exist); the result shows the ids the sync made, which exist."""
    import json
    import re

    _remote, (a, b, _c) = team
    promote_new(a, "Alpha fact")
    sync(a)
    promote_new(b, "Beta fact")
    code, stdout, _ = run_cli("--palace", b, "sync", "--dry-run")
    outgoing = [line for line in stdout.splitlines() if line.startswith("  > ")]
    assert code == 0 and outgoing and not any(re.search(r"[0-9a-f]{10}", x) for x in outgoing)
    code, stdout, _ = run_cli("--palace", b, "--json", "sync", "--dry-run")
    assert [c["commit"] for c in json.loads(stdout)["outgoing"]] == [None]
    code, stdout, _ = run_cli("--palace", b, "sync", "--yes")
    shown = [line.split()[1] for line in stdout.splitlines() if line.startswith("  > ")]
    assert code == 0 and shown
    for sha in shown:
        assert git(b, "cat-file", "-t", sha).stdout.strip() == "commit"


def test_unreachable_remote_is_one_line_and_nothing_changes(team, run_cli: RunCli) -> None:
    _remote, (a, _b, _c) = team
    promote_new(a, "Alpha fact")
    git(a, "remote", "set-url", "origin", str(a.parent / "nowhere.git"))
    before = head(a)
    code, stdout, stderr = run_cli("--palace", a, "sync", "--yes")
    assert code == 2 and stdout == ""
    assert len(stderr.strip().splitlines()) == 1 and "cannot reach the remote 'origin'" in stderr
    # git's whole reason, not its last line ("and the repository exists.")
    assert "nowhere.git" in stderr and "does not appear to be a git repository" in stderr, stderr
    assert head(a) == before and clean(a)


def test_rewritten_remote_is_refused(team, run_cli: RunCli) -> None:
    _remote, (a, b, _c) = team
    promote_new(a, "Alpha fact")
    sync(a)
    sync(b)
    git(a, "reset", "-q", "--hard", "HEAD~1")
    git(a, "push", "-q", "--force", "origin", "main")
    promote_new(b, "Beta fact")
    before = head(b)
    code, _, stderr = run_cli("--palace", b, "sync", "--yes")
    assert code == 2 and "was rewritten" in stderr and "fresh clone" in stderr
    assert head(b) == before


def test_push_beaten_by_a_teammate_replays_again(team) -> None:
    remote, (a, b, _c) = team
    promote_new(b, "Beta fact")
    promote_new(a, "Alpha fact")
    # b's pre-push hook lets a push first, once: b's push is then rejected, as when a
    # teammate's push lands between b's fetch and b's push
    hook = b / ".git" / "hooks" / "pre-push"
    hook.write_text(
        "#!/bin/sh\n"
        f'if [ ! -e "{b}/.git/raced" ]; then touch "{b}/.git/raced"; '
        f'git -C "{a}" push -q origin main >/dev/null 2>&1; fi\n'
    )
    hook.chmod(0o755)
    result = sync(b)
    assert result.attempts == 2 and result.pushed
    sync(a)
    assert head(a) == head(b) == remote_head(remote)
    assert {"promote: Alpha fact", "promote: Beta fact"} <= set(
        git(a, "log", "--format=%s").stdout.splitlines()
    )


def test_local_changes_in_the_way_refuse_with_nothing_changed(team) -> None:
    remote, (a, b, _c) = team
    rel = promote_new(a, "Alpha fact")
    sync(a)
    (b / rel).parent.mkdir(parents=True, exist_ok=True)
    (b / rel).write_text("my own file\n")
    with pytest.raises(SyncError, match="in the way"):
        sync(b)
    assert (b / rel).read_text() == "my own file\n" and head(b) != remote_head(remote)


def test_undo_across_machines(team, run_cli: RunCli) -> None:
    remote, (a, b, _c) = team
    promote_new(a, "Base fact")  # the index guard refuses to empty INDEX.md
    sync(a)
    rel = promote_new(b, "Beta fact")
    sync(b)
    sync(a)
    sha = git(a, "log", "-1", "--format=%H").stdout.strip()
    code, _, stderr = run_cli("--palace", a, "undo", sha, "--yes")
    assert code == 0, stderr
    assert not (a / rel).exists()
    sync(a)
    sync(b)
    assert not (b / rel).exists() and head(b) == remote_head(remote)
    # an undo that no longer applies: b edits a note a pulled; undoing its promote is refused
    rel2 = promote_new(b, "Gamma fact")
    sha2 = git(b, "log", "-1", "--format=%H").stdout.strip()
    edit_body(b, rel2, "Edited later.\n")
    sync(b)
    sync(a)
    code, _, stderr = run_cli("--palace", a, "undo", sha2, "--yes")
    assert code == 2 and "later commits touched the same files" in stderr


def test_history_shows_and_filters_by_reviewer(team, run_cli: RunCli) -> None:
    _remote, (a, b, _c) = team
    promote_new(a, "Alpha fact")
    promote_new(b, "Beta fact")
    sync(a)
    sync(b)
    code, stdout, _ = run_cli("--palace", b, "history", "--author", "reviewer0")
    assert code == 0 and "Alpha fact" in stdout and "Beta fact" not in stdout
    assert "reviewer0 <reviewer0@host0>" in stdout
    code, stdout, _ = run_cli("--palace", b, "--json", "history", "--author", "HOST1")
    assert code == 0 and "Beta fact" in stdout and "Alpha fact" not in stdout


def test_plan_sync_makes_no_ref_move(team) -> None:
    _remote, (a, b, _c) = team
    promote_new(a, "Alpha fact")
    sync(a)
    promote_new(b, "Beta fact")
    before = head(b)
    plan = plan_sync(b)
    assert len(plan.incoming) == 1 and len(plan.outgoing) == 1
    assert plan.new_head != before and head(b) == before
    assert git(b, "cat-file", "-t", plan.new_head).stdout.strip() == "commit"


def _index_rows(root: Path) -> tuple[str, dict[str, int]]:
    """The clone's search index table and its {path: row id}, read with LanceDB itself. A row
    written again (re-embedded) gets a new id; a row left alone keeps its own."""
    import json

    import lancedb

    folder = root / ".curator" / "index"
    state = json.loads((folder / "state.json").read_text())
    table = lancedb.connect(str(folder)).open_table(state["table"])
    rows = table.search().with_row_id(True).select(["path"]).limit(None).to_arrow()
    ids = zip(rows.column("path").to_pylist(), rows.column("_rowid").to_pylist(), strict=True)
    return state["table"], dict(ids)


def test_the_search_index_follows_the_pull_re_embedding_only_the_changed_notes(
    tmp_path: Path,
) -> None:
    import json

    from curator.search.index import sync_index
    from curator.session import Session

    remote, (a, b) = make_team(tmp_path, clones=2, embedder="hash")
    kept = [promote_new(a, f"Base fact {i}") for i in range(6)]
    sync(a)
    sync(b)
    sync_index(Palace.open(b))  # b has a search index
    table, before = _index_rows(b)
    assert sorted(before) == sorted(kept)
    edit_body(a, kept[2], "Zebras migrate in the spring.\n")
    added = promote_new(a, "Zebra migration fact")
    sync(a)
    result = Session.open(b).sync()
    assert {added, kept[2]} <= set(result.changed) and not result.warnings
    table_after, after = _index_rows(b)
    assert table_after == table  # synced in place, not rebuilt
    rewritten = sorted(p for p, row in after.items() if before.get(p) != row)
    assert rewritten == sorted([added, kept[2]])  # 2 rows re-embedded, the other 5 kept
    state = json.loads((b / ".curator" / "index" / "state.json").read_text())
    assert state["commit"] == head(b) == remote_head(remote)
    assert state["doc_count"] == 7
