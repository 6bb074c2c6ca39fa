"""`curator init`: a new palace as one commit (git init first when there is no repository).

What init makes (the repository, notes/, the inbox, .curator/) it takes away again when it
fails, so a refused init leaves the folder as it was. The user's own files (.gitignore, an
INDEX.md) keep every byte but curator's added lines, and a .gitignore that is a symbolic
link is written through it.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from curator.config import CONFIG_NAME, TAXONOMIES, default_config, name_text, render_config
from curator.errors import CuratorError
from curator.fsutil import read_or_none, remove_user_file, write_user_file
from curator.model.discovery import state_folder
from curator.model.index_md import read_index, render_index
from curator.model.layouts import get_layout
from curator.model.layouts.adopt import AdoptPlan, free_inbox, gitignore, plan_adopt
from curator.model.layouts.walk import outside
from curator.model.palace import (
    INDEX_NAME,
    NOTES_DIR,
    STATE_DIR,
    Palace,
    ensure_state_dir,
)
from curator.model.text import with_article
from curator.writer.apply import apply_plan
from curator.writer.git import GitError, git_env, run_git
from curator.writer.plan import Plan, Write


@dataclass(frozen=True)
class InitResult:
    root: Path
    commit: str
    kept: tuple[str, ...] = ()  # files that existed and were left as they were
    unread: tuple[str, ...] = ()  # markdown files outside notes/: the palace will not read them


@contextlib.contextmanager
def _undo_on_failure(root: Path, inbox: str | None = None) -> Iterator[None]:
    """Remove what init made in `root` (the folder itself, .git, notes/, the inbox, .curator/)
    when the block fails; what was there before stays."""
    folders = [root / d for d in (NOTES_DIR, inbox, STATE_DIR) if d]
    made = [p for p in (root, root / ".git", *folders) if not p.exists() and not p.is_symlink()]
    try:
        yield
    except BaseException:
        for path in reversed(made):
            shutil.rmtree(path, ignore_errors=True)
        raise


def _in_repository(root: Path) -> bool:
    inside = subprocess.run(
        ["git", "rev-parse", "--is-inside-work-tree"], cwd=root, capture_output=True, env=git_env()
    )
    return inside.returncode == 0


def _split_linked(root: Path, files: dict[str, bytes]) -> dict[str, bytes]:
    """Take out of `files` those that are symbolic links (a .gitignore kept in a dotfiles
    repository): the writer never writes through a link, so they are written on their own,
    through it, after the commit (git records the link, not what it points at)."""
    return {rel: files.pop(rel) for rel in list(files) if (root / rel).is_symlink()}


def init_palace(path: Path, *, taxonomy: str = "palace", name: str | None = None) -> InitResult:
    if taxonomy not in TAXONOMIES:
        raise CuratorError(f"unknown taxonomy {taxonomy!r} (known: {', '.join(TAXONOMIES)})")
    root = Path(path).resolve()
    if (root / CONFIG_NAME).exists():
        raise CuratorError(f"{root / CONFIG_NAME} already exists: this is a palace already")
    if (root / NOTES_DIR).is_dir() and any((root / NOTES_DIR).iterdir()):
        raise CuratorError(
            f"{root / NOTES_DIR} already holds files; refusing to initialise over them"
        )
    # a folder of the user's called inbox keeps its files: the drafts go elsewhere
    inbox = free_inbox(root) if root.is_dir() else default_config(root).inbox
    for rel in (NOTES_DIR, inbox, STATE_DIR):
        state_folder(root, rel)  # a file or a symbolic link there is refused, naming it
    with _undo_on_failure(root, inbox):
        root.mkdir(parents=True, exist_ok=True)
        if not _in_repository(root):
            subprocess.run(
                ["git", "init", "-q", "--", str(root)], check=True, capture_output=True,
                env=git_env(),
            )  # fmt: skip
        (root / NOTES_DIR).mkdir(exist_ok=True)
        (root / inbox).mkdir(exist_ok=True)
        ensure_state_dir(root)
        palace_name = name_text(name) if name else name_text(root.name)
        config = replace(default_config(root, taxonomy), name=palace_name, inbox=inbox)
        index = render_index(Palace(root, config, [], []), None)
        try:
            old_ignore = (root / ".gitignore").read_bytes()
        except FileNotFoundError:
            old_ignore = None
        files = {
            CONFIG_NAME: render_config(palace_name, taxonomy, inbox=inbox).encode("utf-8"),
            ".gitignore": gitignore(old_ignore, inbox),
            f"{NOTES_DIR}/.gitkeep": b"",
            INDEX_NAME: index.encode("utf-8"),
        }
        if old_ignore is not None and files[".gitignore"] == old_ignore:
            del files[".gitignore"]
        # never overwrite a file init did not create (an INDEX.md of the user's own stays)
        kept = tuple(rel for rel in files if rel != ".gitignore" and (root / rel).exists())
        for rel in kept:
            del files[rel]
        linked = _split_linked(root, files)
        plan = Plan(
            action="init",
            notes=(),
            reason=f"New palace with the {taxonomy} taxonomy.",
            summary=palace_name,
            changes=tuple(Write.from_disk(root, rel, data) for rel, data in files.items()),
            root=root,
        )
        unread = tuple(outside(root, get_layout("curator", inbox=inbox)))
        applied = apply_plan(root, plan)
    for rel, data in linked.items():
        write_user_file(root / rel, data)
    return InitResult(root, applied.sha, kept, unread)


def init_copy(source: Path, target: Path, *, author: tuple[str, str], message: str) -> Path:
    """A palace copied from the one at `source` (`curator demo`'s sample palace) into the new
    or empty folder `target`, INDEX.md rendered for today (its flags depend on the date), as
    the one commit of a new repository, by `author` (name, email)."""
    root = Path(target).resolve()
    if root.is_dir() and any(root.iterdir()):
        raise CuratorError(f"{root} is not empty; give an empty or new folder")
    with _undo_on_failure(root):
        shutil.copytree(
            source,
            root,
            dirs_exist_ok=True,
            ignore=shutil.ignore_patterns(".curator", "__pycache__", "__init__.py"),
        )
        palace = Palace.open(root, cache=False)
        index = render_index(palace, read_index(palace))
        (root / INDEX_NAME).write_text(index, encoding="utf-8")
        name, email = author
        for cmd in (
            ["init", "-q", "-b", "main"],
            ["config", "user.name", name],
            ["config", "user.email", email],
            ["config", "commit.gpgsign", "false"],
            ["add", "-A"],
            ["commit", "-q", "--no-verify", "-m", message],
        ):
            try:
                run_git(root, cmd)
            except GitError as exc:
                raise CuratorError(f"could not set up the palace in {root}: {exc}") from None
    return root


@dataclass(frozen=True)
class AdoptResult:
    plan: AdoptPlan
    commit: str
    new_repository: bool
    untracked: tuple[str, ...] = ()  # notes git does not track yet: their changes have no before


def adopt_palace(
    path: Path,
    *,
    layout: str | None = None,
    name: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> AdoptResult:
    """Make a folder of memory a palace in place (`curator init --adopt`): palace.toml and the
    .gitignore lines, nothing else; no note is moved or rewritten. A folder that is no git
    repository becomes one, with everything in it as its first commit (so every later change
    has a before); in a repository only the two files are committed. (H-layouts, issue 12.)"""
    plan = plan_adopt(path, layout=layout, name=name, progress=progress)
    root = plan.root
    files = dict(plan.files)
    with _undo_on_failure(root):
        in_repository = _in_repository(root)
        ensure_state_dir(root)
        if in_repository:
            linked = _split_linked(root, files)
            changes = tuple(Write.from_disk(root, rel, data) for rel, data in files.items())
            summary = f"adopt as {with_article(plan.layout)} palace"
            applied = apply_plan(
                root, Plan(action="init", notes=(), reason=plan.reason, summary=summary,
                           changes=changes, root=root)
            )  # fmt: skip
            for rel, data in linked.items():
                write_user_file(root / rel, data)
            others = run_git(root, ["ls-files", "--others", "--exclude-standard", "-z"])
            names = others.stdout.decode("utf-8", "replace").split("\0")
            untracked = tuple(p for p in names if p.lower().endswith(".md"))
            return AdoptResult(plan, applied.sha, False, untracked)
        run_git(root, ["init", "-q"])
        before = {rel: read_or_none(root / rel) for rel in files}
        try:
            for rel, data in files.items():
                write_user_file(root / rel, data)
            run_git(root, ["add", "-A"])
            kind = with_article(plan.layout)
            message = f"curator: adopt this folder as {kind} palace\n\n{plan.reason}.\n"
            run_git(root, ["commit", "-q", "-m", message])
        except BaseException:
            for rel, old in before.items():  # the folder as it was: no palace.toml, the
                if old is None:  # user's .gitignore byte for byte
                    remove_user_file(root / rel)
                else:
                    write_user_file(root / rel, old)
            raise
        sha = run_git(root, ["rev-parse", "HEAD"]).stdout.decode().strip()
        return AdoptResult(plan, sha, True)
