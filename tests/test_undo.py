"""Undo keeps a reviewer's work (issue 11): older actions can be undone although INDEX.md
changed since (it is rendered again), the commit `curator init` made is not an action to
undo, a draft's edit keeps its previous text for undo, and `curator init` leaves files it did
not create alone. Real palaces, real git, the real CLI."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from palacehelpers import MakePalace, RunCli, git, note_text

from curator.model.palace import Palace
from curator.writer.actions.edit import plan_edit
from curator.writer.actions.promote import plan_promote
from curator.writer.actions.reject import plan_reject
from curator.writer.actions.undo import UndoError, undo
from curator.writer.history import history
from curator.writer.session import commit

STRIPE = "inbox/2026-11-24-stripe-retries-webhooks-three-days.md"
LINT = "inbox/2026-11-25-make-lint-runs-mypy-on-billing.md"


def do(root: Path, planner, *args, **kw):  # type: ignore[no-untyped-def]
    palace = Palace.open(root)
    return commit(root, planner(palace, *args, **kw), palace=palace)


def index_check(run_cli: RunCli, root: Path) -> None:
    code, out, err = run_cli("--palace", root, "index", "--check")
    assert code == 0, out + err


def test_an_older_action_is_undone_although_index_md_changed_since(
    sample_palace: Path, run_cli: RunCli
) -> None:
    first = do(sample_palace, plan_promote, STRIPE, confidence=0.8)
    do(sample_palace, plan_reject, LINT, "duplicate")  # changes INDEX.md after the promote
    note = next(p for p in first.paths if p.startswith("notes/"))
    assert (sample_palace / note).exists()
    applied = commit(sample_palace, undo(sample_palace, first.sha))
    assert not (sample_palace / note).exists()
    assert (sample_palace / STRIPE).exists()  # the draft is back in the inbox
    assert not (sample_palace / LINT).exists()  # the later reject stands
    index_check(run_cli, sample_palace)  # INDEX.md rendered for the palace as it is now
    assert git(sample_palace, "status", "--porcelain").stdout == ""
    assert history(sample_palace, limit=1)[0].undoes == first.sha
    assert applied.sha


def test_the_init_commit_is_not_an_action_to_undo(tmp_path: Path, run_cli: RunCli) -> None:
    root = tmp_path / "memory"
    code, _, err = run_cli("init", root)
    assert code == 0, err
    init_sha = git(root, "rev-parse", "HEAD").stdout.strip()
    (entry,) = history(root)
    assert entry.action == "init" and not entry.undoable  # the app offers no undo on it
    with pytest.raises(UndoError, match="nothing to undo"):
        undo(root)
    code, _, err = run_cli("--palace", root, "undo", init_sha, "--yes")
    assert code == 2 and "cannot be undone" in err and "Traceback" not in err
    assert (root / "palace.toml").exists() and (root / ".gitignore").exists()
    assert git(root, "rev-parse", "HEAD").stdout.strip() == init_sha


def test_editing_a_draft_keeps_its_text_and_undo_restores_it(sample_palace: Path) -> None:
    draft = sample_palace / STRIPE
    original = draft.read_bytes()
    edited = original.replace(b"three days", b"five days")
    assert edited != original
    applied = do(sample_palace, plan_edit, STRIPE, edited)
    assert draft.read_bytes() == edited
    kept = [p for p in (sample_palace / ".curator/edited").iterdir()]
    assert [p.read_bytes() for p in kept] == [original]
    assert git(sample_palace, "status", "--porcelain").stdout == ""  # nothing of it in git
    commit(sample_palace, undo(sample_palace, applied.sha))
    assert draft.read_bytes() == original
    assert not any((sample_palace / ".curator/edited").iterdir())


def test_the_cli_and_the_app_undo_through_one_function(
    sample_palace: Path, run_cli: RunCli
) -> None:
    """`curator undo` gives what `undo()` plans: the same files, the same trailers."""
    first = do(sample_palace, plan_reject, LINT, "duplicate")
    planned = undo(sample_palace)
    code, _, err = run_cli("--palace", sample_palace, "undo", "--yes")
    assert code == 0, err
    last = history(sample_palace, limit=1)[0]
    assert last.undoes == first.sha
    assert set(last.trailers) >= set(planned.trailers)
    assert (sample_palace / LINT).exists()


def test_init_never_overwrites_a_file_it_did_not_create(tmp_path: Path, run_cli: RunCli) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    (root / "INDEX.md").write_text("# my own index\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    code, _, err = run_cli("init", root)
    assert code == 0, err
    assert (root / "INDEX.md").read_text(encoding="utf-8") == "# my own index\n"
    assert "INDEX.md" not in git(root, "show", "--name-only", "--format=", "HEAD").stdout


def test_undo_in_another_tools_layout_renders_its_index_again(tmp_path: Path) -> None:
    """Claude Code's MEMORY.md is derived like INDEX.md: an older promote is undone although
    a later one changed MEMORY.md, and MEMORY.md lists exactly what is left."""
    import shutil

    from layouthelpers import FIXTURES
    from palacehelpers import git_init_commit

    from curator.model.layouts.claude_code import parse_index
    from curator.writer.capture import capture

    root = tmp_path / "claude"
    shutil.copytree(FIXTURES / "claude-code/memory", root)
    (root / "palace.toml").write_text(
        '[palace]\nlayout = "claude-code"\n[index]\nembedder = "hash"\n'
    )
    (root / ".gitignore").write_text("inbox/\n.curator/\n")
    git_init_commit(root)
    listed_before = [e.href for e in parse_index((root / "MEMORY.md").read_text())]
    shas, rels = [], []
    for name in ("Deploy day", "Freeze week"):
        draft = capture(root, type="project", name=name, body="Tuesdays.\n", description=name)
        palace = Palace.open(root, cache=False)
        plan = plan_promote(palace, draft.path, confidence=0.8)
        shas.append(commit(root, plan, palace=palace).sha)
        rels.append(plan.notes[0])
    commit(root, undo(root, shas[0]))
    listed = [e.href for e in parse_index((root / "MEMORY.md").read_text())]
    assert listed == [*listed_before, rels[1]]
    assert not (root / rels[0]).exists() and (root / rels[1]).exists()
    assert git(root, "status", "--porcelain").stdout == ""


def test_a_task_checkpoint_commit_is_not_undone(make_palace: MakePalace, run_cli: RunCli) -> None:
    root = make_palace({"notes/project/a.md": note_text("A")})
    code, _, err = run_cli(
        "--palace", root, "task", "new", "fix-it", "--objective", "Fix it", "--as", "agent-1"
    )
    assert code == 0, err
    code, _, err = run_cli("--palace", root, "task", "release", "fix-it", "--as", "agent-1")
    assert code == 0, err
    sha = git(root, "rev-parse", "HEAD").stdout.strip()
    assert history(root)[0].action.startswith("task-")
    revisions = sorted(p.name for p in (root / "tasks" / "fix-it").iterdir())
    code, _, err = run_cli("--palace", root, "undo", sha, "--yes")
    assert code == 2 and "task checkpoint" in err
    assert sorted(p.name for p in (root / "tasks" / "fix-it").iterdir()) == revisions
