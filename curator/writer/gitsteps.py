"""The git side of an action: is the repository in a state to commit, what git knows of the
touched paths, and the commit itself (``git commit --only``, git's own porcelain).

``git commit --only -- PATHS`` commits exactly those paths as they are in the work tree, on
top of HEAD, through a temporary index: the user's other staged changes stay staged and out of
the commit, and hooks, signing and ``gc --auto`` behave as with any ``git commit``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from curator.errors import WriterError
from curator.writer.git import GitError, IndexLockError, Repo

__all__ = [
    "GitStateError",
    "check_git_state",
    "commit_only",
    "ignored",
    "reset_index",
    "stale_locks",
    "status",
]

# git's own markers of an operation under way, and what to tell the person.
IN_PROGRESS = (
    ("rebase-merge", "a rebase", "git rebase --continue` or `git rebase --abort"),
    ("rebase-apply", "a rebase (or git am)", "git rebase --continue` or `git rebase --abort"),
    ("MERGE_HEAD", "a merge", "git merge --continue` or `git merge --abort"),
    (
        "CHERRY_PICK_HEAD",
        "a cherry-pick",
        "git cherry-pick --continue` or `git cherry-pick --abort",
    ),
    ("REVERT_HEAD", "a revert", "git revert --continue` or `git revert --abort"),
    ("BISECT_LOG", "a bisect", "git bisect reset"),
)
_SUMMARY_SHA = re.compile(r"^\[.*?\b([0-9a-f]{40}|[0-9a-f]{64})\] ")


class GitStateError(WriterError):
    """The repository is in the middle of something; committing now would go astray."""


def stale_locks(repo: Repo) -> list[Path]:
    """git's lock files that block a commit: the index's, HEAD's and the refs'."""
    found = sorted(repo.git_dir.glob("*.lock"))
    refs = repo.git_dir / "refs"
    if refs.is_dir():
        found += sorted(refs.rglob("*.lock"))
    return found


def check_git_state(repo: Repo, head: str | None) -> None:
    """Refuse an operation in progress, a detached HEAD and git's lock files, saying what to do."""
    for marker, what, finish in IN_PROGRESS:
        if (repo.git_dir / marker).exists():
            raise GitStateError(
                f"{what} is in progress in {repo.top}; curator will not commit into it. "
                f"Finish it first (`{finish}`), then try again."
            )
    if head is not None:
        proc = repo.git("symbolic-ref", "-q", "HEAD", check=False)
        if proc.returncode != 0:
            raise GitStateError(
                f"HEAD is detached in {repo.top} (at {head[:10]}): a commit there belongs to no "
                f"branch. Check out a branch first (`git switch <branch>`), then try again."
            )
    locks = stale_locks(repo)
    if locks:
        raise IndexLockError(*locks)


def status(repo: Repo, repo_paths: Sequence[str]) -> dict[str, str]:
    """``{repo_path: XY}`` for the given paths: ``!!`` ignored, ``??`` untracked, else changed."""
    if not repo_paths:
        return {}
    proc = repo.git(
        "status",
        "--porcelain",
        "-z",
        "--ignored=traditional",
        "--untracked-files=all",
        "--no-renames",
        "--ignore-submodules=all",
        "--",
        *repo_paths,
        env={"GIT_OPTIONAL_LOCKS": "0"},
    )
    out: dict[str, str] = {}
    for item in proc.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if len(item) > 3:
            out[item[3:]] = item[:2]
    return out


def ignored(repo: Repo, repo_paths: Sequence[str]) -> set[str]:
    """The paths (that are not tracked) git ignores."""
    if not repo_paths:
        return set()
    # check-ignore refuses literal-pathspec mode; "./" keeps a leading ":" from being magic.
    data = b"".join(("./" + p).encode("utf-8", "surrogateescape") + b"\0" for p in repo_paths)
    proc = repo.git(
        "check-ignore", "-z", "--stdin", input=data, check=False, env={"GIT_LITERAL_PATHSPECS": "0"}
    )
    if proc.returncode not in (0, 1):
        raise GitError(["check-ignore"], proc.returncode, proc.stderr.decode("utf-8", "replace"))
    out = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
    return {p.removeprefix("./") for p in out if p}


def commit_only(
    repo: Repo, commit_paths: Sequence[str], message: str, untracked: Sequence[str] | None = None
) -> str:
    """Commit exactly ``commit_paths`` (palace-relative) on top of HEAD; the new sha.

    Paths git does not know yet (``untracked``; None: all of them, to be safe) are first added
    to the index, as ``--only`` requires.
    """
    rp = [repo.to_repo(p) for p in commit_paths]
    to_add = rp if untracked is None else [repo.to_repo(p) for p in untracked]
    if to_add:
        repo.git("update-index", "--add", "--remove", "--", *to_add)
    args = ["commit", "--only", "--allow-empty", "--no-edit", "--cleanup=whitespace"]
    args += ["--no-status", "-F", "-"]
    if rp:
        args += ["--", *rp]
    # core.abbrev=no: the summary line names the new commit in full ("[main <sha>] subject")
    config = [*repo.identity_config(), ("core.abbrev", "no")]
    proc = repo.git(*args, input=message.encode("utf-8"), config=config)
    first = proc.stdout.decode("utf-8", "replace").split("\n", 1)[0]
    match = _SUMMARY_SHA.match(first)
    if match:
        return match.group(1)
    return repo.git("rev-parse", "--verify", "HEAD^{commit}").stdout.decode().strip()


def reset_index(repo: Repo, paths: Sequence[str], head: str | None) -> None:
    """The index entries of these palace paths as in ``head`` (the work tree is not touched)."""
    rp = [repo.to_repo(p) for p in paths]
    if not rp:
        return
    if head:
        repo.git("reset", "-q", head, "--", *rp, check=False)
    else:
        repo.git("rm", "--cached", "-q", "--ignore-unmatch", "--", *rp, check=False)
