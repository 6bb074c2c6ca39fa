"""The git side of an action: is the repository in a state to commit, what git knows of the
touched paths, and the commit itself, always git's own porcelain (no code of ours writes git
objects, refs or index files).

The action's paths are staged and committed with ``git commit``, as ``git add && git commit``
would; when the user has staged work of their own, ``git commit --only -- PATHS`` commits
exactly the action's paths through a temporary index and their work stays staged and out of
the commit. Hooks, signing and ``gc --auto`` behave as with any ``git commit``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from curator.errors import WriterError
from curator.writer.git import GitError, IndexLockError, Repo

__all__ = [
    "GitStateError",
    "check_branch",
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


class GitStateError(WriterError):
    """The repository is in the middle of something; committing now would go astray."""


# the lock files in .git/ itself that stop what curator asks of git (staging, committing,
# moving HEAD or a ref, fetching into a shallow clone); every lock under refs/ is a ref's.
# Others are git's own housekeeping and never block a commit: `gc.log.lock` (auto-gc's log,
# left after a background gc), and the locks under objects/ (commit-graph, multi-pack-index)
BLOCKING_LOCKS = ("index.lock", "HEAD.lock", "ORIG_HEAD.lock", "packed-refs.lock", "shallow.lock")


def stale_locks(repo: Repo) -> list[Path]:
    """git's lock files that block a commit: the index's, HEAD's and the refs'."""
    found = [repo.git_dir / name for name in BLOCKING_LOCKS if (repo.git_dir / name).exists()]
    refs = repo.git_dir / "refs"
    if refs.is_dir():
        found += sorted(refs.rglob("*.lock"))
    return found


def check_git_state(repo: Repo) -> None:
    """Refuse an operation in progress and git's lock files, saying what to do."""
    for marker, what, finish in IN_PROGRESS:
        if (repo.git_dir / marker).exists():
            raise GitStateError(
                f"{what} is in progress in {repo.top}; curator will not commit into it. "
                f"Finish it first (`{finish}`), then try again."
            )
    locks = stale_locks(repo)
    if locks:
        raise IndexLockError(*locks)


def check_branch(repo: Repo, branch: str) -> None:
    """Refuse a detached HEAD (``branch`` is the ``## ...`` line of ``git status --branch``)."""
    if branch.startswith("HEAD (no branch)"):
        raise GitStateError(
            f"HEAD is detached in {repo.top}: a commit there belongs to no branch. Check out a "
            f"branch first (`git switch <branch>`), then try again."
        )


def status(repo: Repo, repo_paths: Sequence[str]) -> tuple[str, dict[str, str]]:
    """(the branch line, ``{repo_path: XY}`` for the given paths: ``??`` untracked, else
    changed; ignored and clean tracked paths are not listed). The branch line is what ``## ``
    heads: ``main``, or ``HEAD (no branch)`` when detached."""
    if not repo_paths:  # no pathspec would mean the whole tree: ask only for the branch
        detached = repo.git("symbolic-ref", "-q", "HEAD", check=False).returncode != 0
        return ("HEAD (no branch)" if detached else "", {})
    proc = repo.git(
        "status",
        "--porcelain",
        "--branch",
        "-z",
        "--untracked-files=all",
        "--no-renames",
        "--ignore-submodules=all",
        "--",
        *repo_paths,
        env={"GIT_OPTIONAL_LOCKS": "0"},
    )
    out: dict[str, str] = {}
    branch = ""
    for item in proc.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if item.startswith("## "):
            branch = item[3:]
        elif len(item) > 3:
            out[item[3:]] = item[:2]
    return branch, out


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


def anything_staged(repo: Repo, head: str | None) -> bool:
    """Whether the index holds changes against HEAD (the user's own staged work)."""
    if head is None:
        return True  # an unborn branch: let `commit --only` sort it out
    proc = repo.git(
        "diff-index",
        "--cached",
        "--quiet",
        head,
        "--",
        check=False,
        env={"GIT_OPTIONAL_LOCKS": "0"},
    )
    return proc.returncode != 0


def commit_only(
    repo: Repo, commit_paths: Sequence[str], message: str, others_staged: bool = True
) -> str:
    """Commit exactly ``commit_paths`` (palace-relative) on top of HEAD; the new sha.

    The paths are staged first. When nothing else was staged (``others_staged`` False, asked
    with :func:`anything_staged` before), a plain ``git commit`` of the index commits exactly
    them, as ``git add && git commit`` would; otherwise ``git commit --only -- PATHS`` keeps
    the user's staged work out of the commit (and staged), at the cost of a second index.
    """
    rp = [repo.to_repo(p) for p in commit_paths]
    if rp:
        repo.git("update-index", "--add", "--remove", "--", *rp)
    # --quiet: no summary (its diffstat, with rename detection, cost more than the commit)
    args = ["commit", "--quiet", "--allow-empty", "--no-edit", "--cleanup=whitespace"]
    args += ["--no-status"]
    args += ["-F", "-"]
    if others_staged:
        args += ["--only", "--", *rp] if rp else ["--only"]
    # bench_gitpython "commit one file": GitPython's index.commit costs more, and it would
    # skip git's hooks, signing and `gc --auto`, which a person's own commit runs
    # useConfigOnly: no identity configured is an error, not a guess, and then curator's own
    config = [("user.useConfigOnly", "true")]
    try:
        repo.git(*args, input=message.encode("utf-8"), config=config)
    except GitError as exc:
        if "auto-detection is disabled" not in exc.stderr and "empty ident" not in exc.stderr:
            raise
        repo.git(*args, input=message.encode("utf-8"), config=repo.identity_config())
    return repo.git("rev-parse", "--verify", "HEAD^{commit}").stdout.decode().strip()


def reset_index(repo: Repo, paths: Sequence[str], head: str | None) -> None:
    """The index entries of these palace paths as in ``head`` (the work tree is not touched).
    GitError when git cannot (a full disk refuses its new index): never a silent half-reset."""
    rp = [repo.to_repo(p) for p in paths]
    if not rp:
        return
    if head:
        repo.git("reset", "-q", head, "--", *rp)
    else:
        repo.git("rm", "--cached", "-q", "--ignore-unmatch", "--", *rp)
