"""Apply a Plan: one writer at a time, a journal, files installed whole, one git commit.

Order of work in :func:`apply_plan` (all under the writer lock, :mod:`curator.writer.lock`):

1. finish or roll back an action a killed process left unfinished
   (:mod:`curator.writer.recovery`);
2. refuse when git is in the middle of an operation, HEAD is detached or git's lock files
   exist; when a touched path is unsafe (symlink, folder, outside the palace); when a file
   differs from what the plan was made against, a file rendered from HEAD (INDEX.md) was
   rendered from another commit, or a touched tracked file has uncommitted changes;
3. write every new content to a temp file under ``.curator/tmp/`` (a full disk refuses the
   action here, with nothing changed);
4. write the journal (:mod:`curator.writer.journal`): pre-images reserved as hard links, then
   the fsynced json;
5. install the new files by rename, then delete what goes away (a moved note always exists
   somewhere); :mod:`curator.writer.install`;
6. commit only the plan's paths with git's own ``git commit`` (:mod:`curator.writer.gitsteps`;
   ``--only`` when the user has staged work of their own, which stays staged and out of the
   commit); git-ignored paths (inbox drafts, ``.curator/rejected``) change on disk but are not
   committed;
7. remove the journal, then run the after-commit callbacks while still holding the lock.

A failure at any step leaves the tree as it was, with a one-line error; a kill leaves either
nothing or a journal, which the next writer (or ``curator recover``) completes or rolls back.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from curator.errors import WriterError
from curator.fsutil import atomic_write, read_or_none
from curator.model.discovery import in_inbox, inbox_of
from curator.writer.git import GitError, Repo, discover_with_head
from curator.writer.gitsteps import (
    anything_staged,
    check_branch,
    check_git_state,
    commit_only,
    ignored,
    reset_index,
    status,
)
from curator.writer.install import Temps, UnsafePathError, check_path_safe, file_mode, install_files
from curator.writer.journal import Entry, Journal, RecoveryError, rollback_files
from curator.writer.lock import LockTimeoutError, WriterLock
from curator.writer.plan import Delete, Move, Plan, Write, content_hash
from curator.writer.recovery import TMP_REL, RecoveryReport, recover, recover_locked

__all__ = [
    "Applied",
    "ChangedSincePlanError",
    "CommitFailedError",
    "DirtyFileError",
    "DiskError",
    "LockTimeoutError",
    "RecoveryError",
    "RecoveryReport",
    "UnsafePathError",
    "WriterLock",
    "apply_plan",
    "atomic_write",
    "recover",
]


class DirtyFileError(WriterError):
    """A file the action touches has uncommitted changes made outside curator."""

    def __init__(self, path: str, status: str) -> None:
        self.status = status
        super().__init__(
            f"uncommitted changes (git status {status.strip() or status!r}); commit or "
            f"discard them first, then try again",
            path=path,
        )


class ChangedSincePlanError(WriterError):
    """A file differs from what the plan was made against."""

    def __init__(self, path: str, detail: str) -> None:
        super().__init__(
            f"changed since the action was planned ({detail}); plan it again", path=path
        )


class CommitFailedError(WriterError):
    """git refused the commit; the files were put back as they were."""


class DiskError(WriterError):
    """The file system refused a write (full disk, read-only folder, file size limit)."""


@dataclass(frozen=True)
class Applied:
    sha: str
    message: str
    paths: tuple[str, ...]
    recovered: RecoveryReport | None = None
    warnings: tuple[str, ...] = ()


@dataclass
class _Files:
    """What the plan does to each touched path, checked against the disk."""

    pre: dict[str, bytes | None]
    post: dict[str, bytes | None]
    modes: dict[str, int]
    # the `content_hash` of each pre-image checked (INDEX.md's is 25 MB at 100k notes)
    hashed: dict[str, str | None] = field(default_factory=dict)
    # the `content_hash` of each new content its Write already knew (INDEX.md's render)
    post_hashed: dict[str, str] = field(default_factory=dict)

    def pre_hash(self, path: str) -> str | None:
        if path not in self.hashed:
            self.hashed[path] = _hash(self.pre[path])
        return self.hashed[path]

    def post_hash(self, path: str) -> str | None:
        known = self.post_hashed.get(path)
        return known if known is not None else _hash(self.post[path])


def _read_plan(root: Path, plan: Plan, head: str | None) -> _Files:
    real_root = root.resolve()
    expected: dict[str, str | None] = {}
    files = _Files({}, {}, {})
    pre, post, modes = files.pre, files.post, files.modes
    for ch in plan.changes:
        for p in ch.touched():
            check_path_safe(root, real_root, p)
            pre[p] = read_or_none(root / p)
        if isinstance(ch, Write):
            expected[ch.path], post[ch.path] = ch.before, ch.data
            modes[ch.path] = file_mode(root / ch.path)
        elif isinstance(ch, Delete):
            expected[ch.path], post[ch.path], modes[ch.path] = ch.before, None, 0o644
        elif isinstance(ch, Move):
            expected[ch.src], expected[ch.dst] = ch.before, ch.dst_before
            post[ch.src], modes[ch.src] = None, 0o644
            post[ch.dst] = ch.data if ch.data is not None else pre[ch.src]
            modes[ch.dst] = file_mode(root / ch.src)
    for ch in plan.changes:  # the hash a Write knows, of the very bytes the path ends with
        if isinstance(ch, Write) and ch.data_sha is not None and post[ch.path] is ch.data:
            files.post_hashed[ch.path] = ch.data_sha
    for p, want in expected.items():
        have = pre[p]
        if files.pre_hash(p) != want:
            if want is None:
                detail = "it exists now but the plan expected no file there"
            else:
                detail = "it no longer exists" if have is None else "its content is different"
            raise ChangedSincePlanError(p, detail)
    for ch in plan.changes:  # after every pre-image matched: only the renders are out of date
        if isinstance(ch, Write) and ch.rendered_at not in (None, head):
            raise ChangedSincePlanError(ch.path, "another commit landed since it was rendered")
    return files


def _commit_paths(
    repo: Repo, files: _Files, codes: dict[str, str], ignored_paths: set[str]
) -> list[str]:
    """The paths to commit: the touched ones git does not ignore."""
    commit_paths: list[str] = []
    for p in files.post:
        code = codes.get(repo.to_repo(p))
        if code is not None and code != "??":
            raise DirtyFileError(p, code)
    for p in files.post:
        rp = repo.to_repo(p)
        if rp in ignored_paths:
            continue  # drafts, git-ignored files (.curator/rejected): never committed
        if codes.get(rp) == "??" and files.post[p] is None:
            continue  # an untracked file that goes away: git never knew it
        if files.pre[p] is None and files.post[p] is None:
            continue
        commit_paths.append(p)
    return commit_paths


def _hash(data: bytes | None) -> str | None:
    return None if data is None else content_hash(data)


def _disk_error(root: Path, plan: Plan, exc: OSError) -> DiskError:
    """One line for a write the file system refused; names the palace file, not a temp file."""
    target = exc.filename2 or exc.filename  # a rename names its destination second
    where = ""
    if target:
        path = Path(os.fsdecode(target))
        where = f" ({path.relative_to(root) if path.is_relative_to(root) else path})"
    why = exc.strerror or errno.errorcode.get(exc.errno or 0, str(exc))
    return DiskError(
        f"the {plan.action} could not write its files{where}: {why}; nothing was changed"
    )


def apply_plan(
    palace_root: Path,
    plan: Plan,
    *,
    on_commit: Callable[[str], None] | None = None,
    lock_timeout: float = 10.0,
) -> Applied:
    """Perform ``plan`` on the palace at ``palace_root`` and record it as one git commit.

    ``on_commit(sha)`` runs after the commit, still holding the writer lock (it must not call
    apply_plan itself). Raises a WriterError, with the files as they were, when the plan cannot
    be applied; ``Applied.recovered`` reports an earlier interrupted action that had to be
    finished or rolled back first.
    """
    root = Path(palace_root).absolute()
    with WriterLock(root, lock_timeout):
        repo, head = discover_with_head(root)
        check_git_state(repo)
        recovered = recover_locked(root, repo)
        if recovered is not None:
            repo, head = discover_with_head(root)
        try:
            sha, paths = _apply_locked(root, repo, head, plan)
        except OSError as exc:
            raise _disk_error(root, plan, exc) from None
        if on_commit is not None:
            on_commit(sha)
        return Applied(sha, plan.message, paths, recovered)


def _apply_locked(
    root: Path, repo: Repo, head: str | None, plan: Plan
) -> tuple[str, tuple[str, ...]]:
    touched = list(dict.fromkeys(p for ch in plan.changes for p in ch.touched()))
    repo_paths = [repo.to_repo(p) for p in touched]
    with ThreadPoolExecutor(max_workers=3) as pool:  # git answers while the files are read
        asking = pool.submit(status, repo, repo_paths)
        ignoring = pool.submit(ignored, repo, repo_paths)
        staging = pool.submit(anything_staged, repo, head)
        try:
            files = _read_plan(root, plan, head)
        finally:
            (branch, codes), ignored_new = asking.result(), ignoring.result()
            others_staged = staging.result()
    check_branch(repo, branch)
    # drafts never enter the branch, whether .gitignore says so or not; one a palace already
    # tracks (made before its drafts were ignored) may leave it, so git status stays clean
    inbox = inbox_of(root)
    ignored_new |= {
        rp
        for p, rp in zip(touched, repo_paths, strict=True)
        if in_inbox(p, inbox)
        and (files.pre.get(p) is None or codes.get(rp) == "??" or rp in ignored_new)
    }
    commit_paths = _commit_paths(repo, files, codes, ignored_new)
    temps = Temps(root, root / TMP_REL, files.post, files.modes)
    journal = Journal.new(root, plan.action, plan.message, head)
    journal.commit_paths = commit_paths
    journal.entries = [
        Entry(p, files.pre_hash(p), files.post_hash(p), files.modes[p]) for p in files.post
    ]
    try:
        temps.write()  # every byte the action needs, before anything changes
        journal.write(root)
    except BaseException:
        temps.discard()
        journal.remove()
        raise
    try:
        install_files(root, journal.entries, files.post, temps)
        sha = commit_only(repo, commit_paths, plan.message, others_staged)
    except BaseException as exc:
        _roll_back(root, repo, journal, temps, plan, exc)
        if isinstance(exc, (WriterError, GitError)):
            raise CommitFailedError(
                f"git did not record the {plan.action}; the files were put back as they were. {exc}"
            ) from exc
        raise
    journal.remove()
    return sha, tuple(files.post)


def _roll_back(
    root: Path, repo: Repo, journal: Journal, temps: Temps, plan: Plan, exc: BaseException
) -> None:
    """Files first (that frees the disk space the action took), then git's index; when git
    still cannot write its index the journal stays, so `curator recover` finishes the job."""
    rollback_files(root, journal)
    temps.discard()
    try:
        reset_index(repo, journal.commit_paths, journal.head_before)
    except GitError as failed:
        raise CommitFailedError(
            f"git did not record the {plan.action} and could not unstage it ({failed}); the "
            "files were put back, git's index was not: run 'curator recover' once git can "
            f"write again. {exc}"
        ) from exc
    journal.remove()
