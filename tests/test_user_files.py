"""Files that belong to the user and folders a cloned palace may hold: curator writes only its
own bytes, through symbolic links, and never outside the palace (issue 23)."""

from __future__ import annotations

import os
import subprocess
import tomllib
from pathlib import Path

import pytest
from agenthelpers import run_hook
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from palacehelpers import git, run_main

from curator.agents.context import write_pack
from curator.config import load_config
from curator.errors import CuratorError
from curator.model.layouts.adopt import gitignore, ignored
from curator.writer.init import adopt_palace, init_palace

FIXTURE = {"suppress_health_check": [HealthCheck.function_scoped_fixture], "deadline": None}


def cli(cwd: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """`curator ARGS` in `cwd`, in this process (`run_main`; a hook through
    `agenthelpers.run_hook`, as its process runs it)."""
    if args[0] == "hook":
        tool, event = args[1:]
        return run_hook(None, tool, event, stdin, cwd=cwd)
    return run_main(cwd, *args, stdin=stdin)


# -- .gitignore: any bytes, any line ends, curator's lines anchored --------------------------
@settings(deadline=None)
@given(st.binary(max_size=200) | st.lists(st.sampled_from(
    [b"inbox/", b"/inbox/", b"drafts", b".curator", b"*.pyc", b"caf\xe9", b"\r", b"  /.curator/  "]
)).map(lambda ls: b"\n".join(ls)), st.booleans(), st.sampled_from(["inbox", "drafts"]))  # fmt: skip
def test_gitignore_keeps_every_byte_and_adds_only_anchored_lines(
    data: bytes, crlf: bool, inbox: str
) -> None:
    if crlf:
        data = data.replace(b"\n", b"\r\n")
    out = gitignore(data, inbox)
    assert out.startswith(data)  # not one byte of the user's changes
    assert gitignore(out, inbox) == out  # added once
    lines = {line.strip() for line in out.splitlines()}
    for ours in ignored(inbox):
        bare = ours.strip("/").encode()
        assert lines & {ours.encode(), bare, b"/" + bare, bare + b"/"}
    added = out[len(data) :]
    folder = inbox.encode()
    assert folder + b"/\n" not in added.replace(b"/" + folder + b"/", b"")  # never unanchored
    if b"\r\n" in data:
        assert b"\n" not in added.replace(b"\r\n", b"")


# -- folder names: newlines, escapes, bytes that are not UTF-8 -------------------------------
_names = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="/\0"), min_size=1, max_size=12
).filter(lambda n: n not in (".", "..")) | st.sampled_from(["a\nb", "x\x1b]0;T\x07", "é\t"])


@settings(max_examples=25, **FIXTURE)
@given(name=_names, raw=st.binary(min_size=1, max_size=4))
@example(name="0", raw=b"\x80")  # not UTF-8: the palace's cache key once failed on it
def test_init_any_folder_name_gives_a_palace_that_loads(
    tmp_path_factory: pytest.TempPathFactory, name: str, raw: bytes
) -> None:
    base = tmp_path_factory.mktemp("names")
    for folder in (name, os.fsdecode(b"p" + raw.replace(b"/", b"_").replace(b"\0", b"_"))):
        root = base / folder
        result = init_palace(root)
        config = load_config(result.root)
        assert config.name.encode("utf-8")  # text that can be written anywhere
        tomllib.loads((root / "palace.toml").read_text(encoding="utf-8"))
        assert git(root, "status", "--porcelain").stdout == ""


def test_a_latin1_gitignore_and_crlf_keep_their_bytes(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    original = b"# caf\xe9\r\nnode_modules\r\n"
    (root / ".gitignore").write_bytes(original)
    init_palace(root)
    data = (root / ".gitignore").read_bytes()
    assert data.startswith(original) and b"/inbox/\r\n" in data


def test_a_failed_init_leaves_nothing_behind(tmp_path: Path) -> None:
    for bad in ("notes", ".curator"):
        root = tmp_path / bad.strip(".")
        root.mkdir()
        (root / bad).write_text("a file, not a folder")
        with pytest.raises(CuratorError, match="not a folder"):
            init_palace(root)
        assert sorted(p.name for p in root.iterdir()) == [bad]  # no .git, no notes/, ...


def test_init_beside_a_file_called_inbox_keeps_it_and_drafts_elsewhere(tmp_path: Path) -> None:
    (tmp_path / "inbox").write_text("a file of the user's, not a folder")
    init_palace(tmp_path)
    assert (tmp_path / "inbox").read_text() == "a file of the user's, not a folder"
    assert load_config(tmp_path).inbox == "curator-inbox"
    assert (tmp_path / "curator-inbox").is_dir()


def test_init_writes_a_symlinked_gitignore_through_the_link(tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "ignore").write_bytes(b"*.log\n")
    for adopt in (False, True):
        root = tmp_path / f"p{adopt}"
        root.mkdir()
        (root / ".gitignore").symlink_to(dotfiles / "ignore")
        if adopt:
            (root / "note.md").write_text("---\nname: n\n---\nbody\n")
            adopt_palace(root)
        else:
            init_palace(root)
        assert (root / ".gitignore").is_symlink()
        assert (dotfiles / "ignore").read_bytes().startswith(b"*.log\n")
        assert b"/inbox/" in (dotfiles / "ignore").read_bytes()


# -- adopt and inbox/ ------------------------------------------------------------------------
def test_adopt_plans_drafts_beside_an_inbox_that_holds_notes(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    (root / "inbox").mkdir(parents=True)
    (root / "inbox" / "idea.md").write_text("my own note\n")
    proc = cli(tmp_path, "init", "--adopt", str(root), "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert "drafts: curator-inbox/" in proc.stdout and "1 markdown file(s) read" in proc.stdout
    assert sorted(p.name for p in root.iterdir()) == ["inbox"]  # nothing written


def test_adopt_reads_lists_and_keeps_in_git_a_nested_inbox(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    (root / "projects" / "inbox").mkdir(parents=True)
    (root / "projects" / "inbox" / "later.md").write_text("---\nname: later\n---\nbody\n")
    (root / "top.md").write_text("---\nname: top\n---\nbody\n")
    result = adopt_palace(root, layout="folder")
    assert result.plan.note_count == 2 and not result.plan.unread
    tracked = git(root, "ls-files").stdout.splitlines()
    assert "projects/inbox/later.md" in tracked


# -- every writer of a user's file writes through a link -------------------------------------
def test_a_pack_into_claude_md_linking_to_agents_md_keeps_the_link(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_bytes(b"# Agents\r\nmine\r\n")
    (tmp_path / "CLAUDE.md").symlink_to("AGENTS.md")
    write_pack(tmp_path / "CLAUDE.md", "pack body\n", cap=200)
    assert (tmp_path / "CLAUDE.md").is_symlink()
    text = (tmp_path / "AGENTS.md").read_bytes()
    assert text.startswith(b"# Agents\r\nmine\r\n") and b"pack body" in text


# -- state folders in a cloned palace --------------------------------------------------------
STATE = [".curator", "tasks", ".curator/tmp", ".curator/tasks-tmp", ".curator/index",
         ".curator/tasks-seen", "inbox"]  # fmt: skip


@pytest.mark.parametrize("rel", STATE)
def test_a_state_folder_that_is_a_symlink_is_refused(tmp_path: Path, rel: str) -> None:
    root = tmp_path / "palace"
    init_palace(root)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("x")
    link = root / rel
    if link.exists():
        import shutil

        shutil.rmtree(link)
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside, target_is_directory=True)
    runs = [
        cli(root, "capture", "--type", "project", "--name", "n", stdin="body\n"),
        cli(root, "task", "new", "t1", "--objective", "g"),
        cli(root, "task", "list"),
        cli(root, "hook", "claude-code", "Stop"),
    ]
    for proc in runs:
        assert proc.returncode in (0, 2), proc.stderr  # a clear refusal, never exit 3
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]
    assert any("symbolic link" in p.stderr or "not a plain folder" in p.stderr for p in runs)


def test_a_symlinked_memory_md_is_refused_and_stays_a_link(tmp_path: Path) -> None:
    """MEMORY.md is written by the palace's writer, which never writes through a link (the
    target would escape the commit): the promote is refused, the link and its target stay."""
    import shutil

    root = tmp_path / "memory"
    shutil.copytree(Path(__file__).parent / "fixtures" / "claude-code" / "memory", root)
    elsewhere = tmp_path / "MEMORY.md"
    (root / "MEMORY.md").rename(elsewhere)
    (root / "MEMORY.md").symlink_to(elsewhere)
    before = elsewhere.read_bytes()
    assert cli(tmp_path, "init", "--adopt", str(root), "--yes").returncode == 0
    made = cli(root, "capture", "--type", "project", "--name", "new fact", stdin="body\n")
    draft = made.stdout.splitlines()[0]
    proc = cli(root, "promote", draft, "--description", "a fact", "--yes")
    assert proc.returncode == 2 and "symbolic link" in proc.stderr
    assert (root / "MEMORY.md").is_symlink() and elsewhere.read_bytes() == before


def test_an_init_whose_commit_is_refused_leaves_nothing_behind(tmp_path: Path) -> None:
    """The repository around the folder refuses the commit (a pre-commit hook): the palace
    folder, notes/, inbox/ and .curator/ that init made are gone again."""
    repo = tmp_path / "repo"
    (repo / "hooks").mkdir(parents=True)
    git(repo, "init", "-q")
    hook = repo / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho refused >&2\nexit 1\n")
    hook.chmod(0o755)
    git(repo, "config", "core.hooksPath", "hooks")
    (repo / "existing").mkdir()
    for target in (repo / "new", repo / "existing"):
        proc = cli(tmp_path, "init", str(target))
        assert proc.returncode == 2 and "refused" in proc.stderr
    assert not (repo / "new").exists()
    assert list((repo / "existing").iterdir()) == []
