"""GitPython's side of the writer: the repository found in-process, and the remote's fetch and
push with git's progress.

GitPython is imported inside these functions, never at module level: a fresh interpreter pays
more to import it than a git process costs (bench_gitpython rows "import, fresh process" and
"discover+head, fresh process"), and capture and `curator hook` are fresh processes. Where
it is loaded already (the app, the MCP server, a sync) an in-process read beats starting git
("discover+head, warm"), so discovery asks it first (:func:`work_tree`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator.gitenv import git_env

if TYPE_CHECKING:
    import git

__all__ = ["OnTransfer", "Transfer", "TransferError", "fetch", "loaded", "push", "work_tree"]


#: environment git's own discovery obeys and GitPython's does not: git answers when one is set
GIT_SAYS = (
    "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
)  # fmt: skip


def loaded() -> bool:
    """Whether this process has imported GitPython already (then its in-process reads are the
    cheaper way; before, importing it costs more than the git process it would save)."""
    return "git" in sys.modules


def work_tree(palace_root: Path) -> tuple[str, str, str, str | None] | None:
    """(top, absolute git dir, palace prefix, HEAD's commit or None when unborn) of the work
    tree holding ``palace_root``, read in-process by GitPython; None when GitPython cannot say
    for sure (not a work tree, GIT_DIR or GIT_WORK_TREE set, refs it does not read): the git
    command line answers then, with its own words."""
    import git
    from git.refs.symbolic import SymbolicReference

    if any(os.environ.get(name) for name in GIT_SAYS):
        return None
    real = Path(palace_root).resolve()  # as git's getcwd() sees it: through symlinks
    try:
        # a folder named `$X` is that folder: GitPython would open the one $X names
        repo = git.Repo(real, search_parent_directories=True, expand_vars=False)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None
    with repo:
        if repo.working_tree_dir is None:
            return None
        config = repo.config_reader("repository")
        if str(config.get_value("extensions", "refstorage", "files")).lower() != "files":
            return None  # reftable: GitPython reads only files and packed-refs
        top = Path(repo.working_tree_dir).resolve()
        if top.stat().st_uid != os.getuid():
            return None  # git's safe.directory rule decides about another user's repository
        try:
            rel = real.relative_to(top)
        except ValueError:
            return None
        if ".git" in rel.parts:
            return None
        prefix = "" if rel == Path(".") else rel.as_posix() + "/"
        try:
            head: str | None = SymbolicReference.dereference_recursive(repo, "HEAD")
        except ValueError:  # an unborn branch: HEAD names a ref that does not exist yet
            head = None
        return str(top), str(Path(repo.git_dir).resolve()), prefix, head


@dataclass(frozen=True)
class Transfer:
    """One progress report of a fetch or a push: its direction ("fetch" / "push"), git's
    stage ("receiving objects", ...), how far it is, and of how much (None: git did not say)."""

    direction: str
    stage: str
    done: int
    total: int | None

    @property
    def fraction(self) -> float | None:
        return None if not self.total else min(1.0, self.done / self.total)

    def line(self) -> str:
        of = f"/{self.total}" if self.total else ""
        return f"{self.direction}: {self.stage} {self.done}{of}"


OnTransfer = Callable[[Transfer], None]


class TransferError(Exception):
    """git refused the fetch or push; ``said`` is git's own words (its stderr lines)."""

    def __init__(self, said: list[str]) -> None:
        self.said = said
        super().__init__(" ".join(said))


def _progress(direction: str, on: OnTransfer | None) -> Any:
    """A `git.RemoteProgress` that hands each of git's progress lines to ``on``."""
    import git

    stages = {
        git.RemoteProgress.COUNTING: "counting objects",
        git.RemoteProgress.COMPRESSING: "compressing objects",
        git.RemoteProgress.WRITING: "writing objects",
        git.RemoteProgress.RECEIVING: "receiving objects",
        git.RemoteProgress.RESOLVING: "resolving deltas",
        git.RemoteProgress.FINDING_SOURCES: "finding sources",
        git.RemoteProgress.CHECKING_OUT: "checking out",
    }

    class Progress(git.RemoteProgress):
        def update(
            self,
            op_code: int,
            cur_count: str | float,
            max_count: str | float | None = None,
            message: str = "",
        ) -> None:
            if on is None:
                return
            stage = stages.get(op_code & self.OP_MASK, "working")
            total = int(float(max_count)) if max_count not in (None, "") else None
            on(Transfer(direction, stage, int(float(cur_count or 0)), total))

    return Progress()


def _remote(top: Path, name: str) -> tuple[git.Repo, git.Remote]:
    import git

    repo = git.Repo(top, expand_vars=False)  # the folder itself, as in `work_tree`
    # its command runner would expand them in the folder's name again: given a Path, it
    # takes the folder as it is
    repo.git = git.Git(Path(repo.working_dir))
    base = os.environ
    # the environment every git command of curator's gets (never a prompt, C messages)
    repo.git.update_environment(**{k: v for k, v in git_env().items() if base.get(k) != v})
    return repo, repo.remote(name)


def _said(exc: Exception) -> list[str]:
    """git's stderr lines from a GitCommandError (GitPython quotes them as `stderr: '...'`)."""
    text = str(getattr(exc, "stderr", "") or exc).strip()
    if text.startswith("stderr: '") and text.endswith("'"):
        text = text[len("stderr: '") : -1]
    return [line.strip() for line in text.splitlines() if line.strip()]


def fetch(top: Path, remote: str, refspec: str, on: OnTransfer | None = None) -> None:
    """`git fetch --no-tags REMOTE REFSPEC` with git's progress handed to ``on``; raises
    TransferError with git's words when it fails. (bench_gitpython "fetch from a bare
    remote": 0.9-2.3x the bare CLI across loaded runs, tens of ms on a network operation:
    the price of git's progress read line by line by RemoteProgress.)"""
    import git

    repo, origin = _remote(top, remote)
    with repo:
        try:
            origin.fetch(refspec, progress=_progress("fetch", on), no_tags=True)
        except git.GitCommandError as exc:
            raise TransferError(_said(exc)) from None


def push(top: Path, remote: str, refspec: str, on: OnTransfer | None = None) -> None:
    """`git push REMOTE REFSPEC` (never forced) with git's progress handed to ``on``; raises
    TransferError with git's words when it is refused or fails."""
    import git

    repo, origin = _remote(top, remote)
    with repo:
        try:
            infos = origin.push(refspec, progress=_progress("push", on))
        except git.GitCommandError as exc:
            raise TransferError(_said(exc)) from None
        refused = [i for i in infos if i.flags & (i.ERROR | i.REJECTED | i.REMOTE_REJECTED)]
        said = [f"{i.remote_ref_string}: {i.summary.strip()}" for i in refused]
        if not said and infos.error is not None:
            said = _said(infos.error) or ["git push failed"]
        if said:
            raise TransferError(said)
