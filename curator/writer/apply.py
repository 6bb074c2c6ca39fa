"""Apply a Plan: one writer at a time, atomic files, a journal, one git commit.

Order of work in :func:`apply_plan` (all under ``.curator/writer.lock``):

1. finish or roll back an action a crashed process left unfinished (see :func:`recover`);
2. refuse when git's ``index.lock`` exists, when a touched path is unsafe (symlink, folder, or
   resolves outside the palace), when a file differs from what the plan was made against, or
   when a touched tracked file has uncommitted changes;
3. write the journal ``.curator/journal/<id>.json`` (fsynced): every touched path's content
   hash before and after, and its pre-image (copied into ``<id>.blobs``, or, for a clean tracked
   file, the commit HEAD pointed at, which holds it);
4. write every new file atomically (temp file in the same folder, fsync, ``os.replace``, fsync of
   the folder), then delete what goes away (so a moved note always exists somewhere);
5. commit only the plan's paths (git plumbing under git's index.lock, see
   :mod:`curator.writer.fastcommit`; or ``git commit --only -- PATHS`` when hooks, signing or
   the user's own staged changes need porcelain): the user's other staged changes stay staged
   and out of the commit; git-ignored paths (inbox drafts, ``.curator/rejected``) change on
   disk but are not committed;
6. remove the journal, then call ``on_commit(sha)`` while still holding the lock.

A crash anywhere leaves either nothing or a journal; the next writer (or :func:`recover`)
completes the commit when every file already has its post-image, and otherwise restores every
file's pre-image.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import re
import secrets
import shutil
import time
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from curator.model.discovery import ensure_state_dir
from curator.writer.fastcommit import StagedCheck, staged_check, store_blob
from curator.writer.fastcommit import commit_paths as fast_commit
from curator.writer.git import GitError, Repo, discover_with_head
from curator.writer.plan import (
    Delete,
    Move,
    Plan,
    Write,
    WriterError,
    content_hash,
    normalize_rel,
)

__all__ = [
    "Applied",
    "ChangedSincePlanError",
    "CommitFailedError",
    "DirtyFileError",
    "LockTimeoutError",
    "RecoveryError",
    "RecoveryReport",
    "StageHook",
    "UnsafePathError",
    "WriterLock",
    "apply_plan",
    "atomic_write",
    "recover",
]

LOCK_REL = ".curator/writer.lock"
JOURNAL_REL = ".curator/journal"
BIG_BLOB = 256 * 1024  # bytes: larger committed files are compressed into git ahead of staging
TMP_PREFIX = ".curator-tmp-"
JOURNAL_VERSION = 3  # 3: pre-images of clean tracked files come from git, no post-images
READABLE_JOURNALS = (2, 3)  # 2: every pre- and post-image in <id>.blobs

StageHook = Callable[[str], None]
"""Called with a stage name as apply progresses: ``"journaled"``, ``"file-done"`` (after each
file operation), ``"files-done"``, ``"staged"``, ``"committed"``. Tests use it to SIGKILL the
process at a chosen point; production callers leave it None."""


# --------------------------------------------------------------------------- errors


class LockTimeoutError(WriterError):
    def __init__(self, path: Path, holder: str, waited: float) -> None:
        self.path = path
        self.holder = holder
        super().__init__(
            f"another curator writer holds {path} (pid {holder}); waited {waited:.1f}s. "
            f"Wait for it to finish, or check that process."
        )


class DirtyFileError(WriterError):
    """A file the action touches has uncommitted changes made outside curator."""

    def __init__(self, path: str, status: str) -> None:
        self.path = path
        self.status = status
        super().__init__(
            f"{path} has uncommitted changes (git status {status.strip() or status!r}); "
            f"commit or discard them first, then try again"
        )


class ChangedSincePlanError(WriterError):
    """A file differs from what the plan was made against."""

    def __init__(self, path: str, detail: str) -> None:
        self.path = path
        super().__init__(f"{path} changed since the action was planned ({detail}); plan it again")


class UnsafePathError(WriterError):
    def __init__(self, path: str, detail: str) -> None:
        self.path = path
        super().__init__(f"refusing to touch {path}: {detail}")


class CommitFailedError(WriterError):
    """git refused the commit; the files were put back as they were."""


class RecoveryError(WriterError):
    """An unfinished action could be neither completed nor rolled back automatically."""


# --------------------------------------------------------------------------- values


@dataclass(frozen=True)
class RecoveryReport:
    """What :func:`recover` did with an unfinished action, as a sentence for a person."""

    outcome: Literal["completed", "rolled-back", "already-committed"]
    action: str
    subject: str
    paths: tuple[str, ...]
    sha: str | None
    sentence: str

    def __str__(self) -> str:
        return self.sentence


@dataclass(frozen=True)
class Applied:
    sha: str
    message: str
    paths: tuple[str, ...]
    recovered: RecoveryReport | None = None


# --------------------------------------------------------------------------- file primitives


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, never half.

    Uniquely named temp file in the same folder, fsync, ``os.replace``, fsync of the folder.
    """
    _install(write_temp(path, data, mode), path)


def write_temp(path: Path, data: bytes, mode: int = 0o644) -> Path:
    """The first half of :func:`atomic_write`: ``data`` in a fresh fsynced temp file next to
    ``path``, to be installed with ``os.replace``."""
    tmp = path.parent / f"{TMP_PREFIX}{secrets.token_hex(8)}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        try:
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                view = view[n:]
            os.fchmod(fd, mode & 0o7777)
            os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


def _install(tmp: Path, path: Path) -> None:
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def _remove(path: Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        return
    _fsync_dir(path.parent)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _hash_of(path: Path) -> str | None:
    data = _read(path)
    return None if data is None else content_hash(data)


# --------------------------------------------------------------------------- lock


class WriterLock:
    """``.curator/writer.lock`` held with ``flock``: one writer at a time, across processes.

    The file is never deleted (deleting a flock file lets two holders in); it holds the pid of
    the current holder for the error message of whoever waits too long.
    """

    def __init__(self, palace_root: Path, timeout: float = 10.0) -> None:
        self.path = Path(palace_root) / LOCK_REL
        self.timeout = timeout
        self._fd: int | None = None

    def acquire(self) -> None:
        ensure_state_dir(self.path.parent.parent)  # .curator/ with its .gitignore
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        start = time.monotonic()
        delay = 0.005
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    os.close(fd)
                    raise
            waited = time.monotonic() - start
            if waited >= self.timeout:
                try:
                    holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "unknown"
                finally:
                    os.close(fd)
                raise LockTimeoutError(self.path, holder, waited)
            time.sleep(delay)
            delay = min(delay * 2, 0.1)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def __enter__(self) -> WriterLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


# --------------------------------------------------------------------------- journal


@dataclass
class _Entry:
    path: str  # palace-relative
    before: str | None
    after: str | None
    old: str | None  # blob name (pre-image) in <id>.blobs, None if absent or in git
    mode: int
    # repo path of a clean tracked file: its pre-image is that path in head_before (not copied:
    # INDEX.md alone is megabytes at 10k notes, and fsyncing a copy of it cost ~15 ms)
    git_old: str | None = None


@dataclass
class _Journal:
    id: str
    folder: Path  # .curator/journal/ (holds <id>.json and <id>.blobs)
    action: str
    message: str
    head_before: str | None
    entries: list[_Entry]
    commit_paths: list[str]  # palace-relative paths git knows about after the action
    offsets: dict[str, tuple[int, int]] = field(default_factory=dict)  # blob -> (start, length)

    @property
    def json_path(self) -> Path:
        return self.folder / f"{self.id}.json"

    @property
    def blobs_path(self) -> Path:
        return self.folder / f"{self.id}.blobs"

    def to_json(self) -> dict[str, Any]:
        return {
            "version": JOURNAL_VERSION,
            "id": self.id,
            "pid": os.getpid(),
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "action": self.action,
            "message": self.message,
            "head_before": self.head_before,
            "entries": [e.__dict__ for e in self.entries],
            "commit_paths": self.commit_paths,
            "blobs": {name: list(span) for name, span in self.offsets.items()},
        }

    @classmethod
    def load(cls, json_path: Path) -> _Journal:
        raw = json.loads(json_path.read_text("utf-8"))
        if raw.get("version") not in READABLE_JOURNALS:
            raise RecoveryError(f"{json_path}: unknown journal version {raw.get('version')!r}")
        fields = set(_Entry.__dataclass_fields__)
        entries = [_Entry(**{k: v for k, v in e.items() if k in fields}) for e in raw["entries"]]
        for e in entries:
            normalize_rel(e.path)
        return cls(
            id=raw["id"],
            folder=json_path.parent,
            action=raw["action"],
            message=raw["message"],
            head_before=raw["head_before"],
            entries=entries,
            commit_paths=[normalize_rel(p) for p in raw["commit_paths"]],
            offsets={name: (int(a), int(b)) for name, (a, b) in raw.get("blobs", {}).items()},
        )

    def blob(self, name: str) -> bytes:
        start, length = self.offsets[name]
        with open(self.blobs_path, "rb") as handle:
            handle.seek(start)
            data = handle.read(length)
        if len(data) != length:
            raise RecoveryError(f"{self.blobs_path}: truncated journal copy of {name}")
        return data

    def remove(self) -> None:
        # first: without its json the journal is finished. Not fsynced: should the removal
        # be lost in a power cut, recovery finds the commit made and removes it again.
        for path in (self.json_path, self.blobs_path):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)


def _write_journal(journal: _Journal, blobs: dict[str, bytes]) -> None:
    """The copied pre-images in one file, fsynced once, then the json (the commit point)."""
    fd = os.open(journal.blobs_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        offset = 0
        for name, data in blobs.items():
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            journal.offsets[name] = (offset, len(data))
            offset += len(data)
        os.fsync(fd)
    finally:
        os.close(fd)
    payload = json.dumps(journal.to_json(), indent=1).encode("utf-8")
    atomic_write(journal.json_path, payload, 0o600)  # the commit point of the journal


# --------------------------------------------------------------------------- git steps


def _status(repo: Repo, repo_paths: Sequence[str]) -> dict[str, str]:
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


def _ignored(repo: Repo, repo_paths: Sequence[str]) -> set[str]:
    """The paths (that are not tracked) git ignores."""
    if not repo_paths:
        return set()
    # check-ignore refuses literal-pathspec mode; "./" keeps a leading ":" from being magic.
    data = b"".join(("./" + p).encode("utf-8", "surrogateescape") + b"\0" for p in repo_paths)
    proc = repo.git(
        "check-ignore",
        "-z",
        "--stdin",
        input=data,
        check=False,
        env={"GIT_LITERAL_PATHSPECS": "0"},
    )
    if proc.returncode not in (0, 1):
        raise GitError(["check-ignore"], proc.returncode, proc.stderr.decode("utf-8", "replace"))
    out = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
    return {p.removeprefix("./") for p in out if p}


_SUMMARY_SHA = re.compile(r"^\[.*?\b([0-9a-f]{40}|[0-9a-f]{64})\] ")


def _stage_and_commit(
    repo: Repo,
    head: str | None,
    commit_paths: Sequence[str],
    message: str,
    untracked: Sequence[str] | None = None,
    staged: StagedCheck | None = None,
) -> str:
    """Commit exactly ``commit_paths`` (palace-relative) on top of ``head``; the new sha.

    The plumbing path of :mod:`curator.writer.fastcommit` when the repository allows it; else
    ``git commit --only -- PATHS``, which commits those paths as they are in the work tree on
    top of HEAD through a temporary index (the user's other staged changes stay staged and out
    of the commit) and updates the real index for them. Paths git does not know yet
    (``untracked``; None: all of them, to be safe) are first added to the index, as ``--only``
    requires.
    """
    rp = [repo.to_repo(p) for p in commit_paths]
    sha = fast_commit(repo, head, rp, message, staged)
    if sha is not None:
        return sha
    to_add = rp if untracked is None else [repo.to_repo(p) for p in untracked]
    if to_add:
        repo.git("update-index", "--add", "--remove", "--", *to_add)
    args = [
        "commit",
        "--only",
        "--allow-empty",
        "--no-edit",
        "--cleanup=whitespace",
        "--no-status",
        "-F",
        "-",
    ]
    if rp:
        args += ["--", *rp]
    # core.abbrev=no: the summary line names the new commit in full ("[main <sha>] subject"),
    # which saves a rev-parse process per action
    config = [*repo.identity_config(), ("core.abbrev", "no")]
    proc = repo.git(*args, input=message.encode("utf-8"), config=config)
    first = proc.stdout.decode("utf-8", "replace").split("\n", 1)[0]
    match = _SUMMARY_SHA.match(first)
    if match:
        return match.group(1)
    proc = repo.git("rev-parse", "--verify", "HEAD^{commit}")
    return proc.stdout.decode().strip()


def _unstage(repo: Repo, commit_paths: Sequence[str], head: str | None) -> None:
    rp = [repo.to_repo(p) for p in commit_paths]
    if not rp:
        return
    if head:
        repo.git("reset", "-q", head, "--", *rp, check=False)
    else:
        repo.git("rm", "--cached", "-q", "--ignore-unmatch", "--", *rp, check=False)


# --------------------------------------------------------------------------- apply


def _check_path_safe(root: Path, real_root: Path, rel: str) -> None:
    path = root / rel
    parent = path.parent
    # The deepest existing ancestor must resolve inside the palace.
    probe = parent
    while not probe.exists() and probe != root:
        probe = probe.parent
    try:
        probe.resolve().relative_to(real_root)
    except ValueError:
        detail = "its folder resolves outside the palace (symbolic link)"
        raise UnsafePathError(rel, detail) from None
    if path.is_symlink():
        raise UnsafePathError(rel, "it is a symbolic link")
    if path.exists() and not path.is_file():
        raise UnsafePathError(rel, "it is not a regular file")


def _file_mode(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return 0o644


def apply_plan(
    palace_root: Path,
    plan: Plan,
    *,
    on_commit: Callable[[str], None] | None = None,
    lock_timeout: float = 10.0,
    stage_hook: StageHook | None = None,
    public: Collection[str] = (),
) -> Applied:
    """Perform ``plan`` on the palace at ``palace_root`` and record it as one git commit.

    ``on_commit(sha)`` runs after the commit, still holding the writer lock (it must not call
    apply_plan itself). ``public`` names paths whose new content holds nothing that must stay
    out of git (a generated index): large ones are stored in git's object store from the
    start, before the checks, so that the commit finds them there.

    Raises a WriterError subclass, with the files unchanged, when the plan cannot be applied;
    ``Applied.recovered`` reports an earlier interrupted action that had to be finished or
    rolled back first.
    """
    root = Path(palace_root).absolute()
    hook = stage_hook or (lambda stage: None)
    with WriterLock(root, lock_timeout):
        repo, head = discover_with_head(root)
        recovered = _recover_locked(root, repo)
        if recovered is not None:
            repo, head = discover_with_head(root)
        repo.check_index_lock()

        # What git is asked does not depend on the files' contents: ask it at once (status,
        # what it ignores, whether anything is staged) and store INDEX.md's blob meanwhile,
        # while the plan is checked against the files and the new contents go to fsynced temp
        # files (INDEX.md is megabytes at 10k notes). The slow steps overlap.
        touched = list(dict.fromkeys(p for ch in plan.changes for p in ch.touched()))
        to_repo = {p: repo.to_repo(p) for p in touched}
        early = [
            (to_repo[ch.path], ch.data)
            for ch in plan.changes
            if isinstance(ch, Write) and ch.path in public and len(ch.data) >= BIG_BLOB
        ]
        pool = ThreadPoolExecutor(max_workers=4)
        temps: _Temps | None = None
        try:
            asking = pool.submit(_status, repo, list(to_repo.values()))
            ignoring = pool.submit(_ignored, repo, list(to_repo.values()))
            asked_staged = pool.submit(staged_check, repo, head)
            stored_early = pool.submit(_store_blobs, repo, early)

            real_root = root.resolve()
            expected: dict[str, str | None] = {}
            post: dict[str, bytes | None] = {}
            modes: dict[str, int] = {}
            pre: dict[str, bytes | None] = {}
            for ch in plan.changes:
                for p in ch.touched():
                    _check_path_safe(root, real_root, p)
                    pre[p] = _read(root / p)
                if isinstance(ch, Write):
                    expected[ch.path], post[ch.path] = ch.before, ch.data
                    modes[ch.path] = _file_mode(root / ch.path)
                elif isinstance(ch, Delete):
                    expected[ch.path], post[ch.path] = ch.before, None
                    modes[ch.path] = 0o644
                elif isinstance(ch, Move):
                    expected[ch.src], expected[ch.dst] = ch.before, ch.dst_before
                    src_bytes = pre[ch.src]
                    post[ch.src] = None
                    post[ch.dst] = ch.data if ch.data is not None else src_bytes
                    modes[ch.src] = 0o644
                    modes[ch.dst] = _file_mode(root / ch.src)
            for p, want in expected.items():
                have = pre[p]
                have_hash = None if have is None else content_hash(have)
                if have_hash != want:
                    if want is None:
                        detail = "it exists now but the plan expected no file there"
                    elif have is None:
                        detail = "it no longer exists"
                    else:
                        detail = "its content is different"
                    raise ChangedSincePlanError(p, detail)

            paths = list(post)
            repo_paths = [to_repo[p] for p in paths]
            _sweep_temp_files(root, paths)
            temps = _Temps(root, post, modes)
            staging = pool.submit(temps.write)
            try:
                status = asking.result()
                # check-ignore never names a tracked file: this is what git ignores of the rest
                ignored_new = ignoring.result()
            finally:
                staging.result()  # raises what writing a temp file raised
            for p, rp in zip(paths, repo_paths, strict=True):
                code = status.get(rp)
                if code is not None and code not in ("!!", "??"):
                    raise DirtyFileError(p, code)
            commit_paths: list[str] = []
            untracked: list[str] = []  # committed paths git does not know yet
            for p, rp in zip(paths, repo_paths, strict=True):
                code = status.get(rp)
                if code == "!!" or rp in ignored_new:
                    continue  # git-ignored (inbox drafts, .curator/rejected): not committed
                if code == "??" and post[p] is None:
                    continue  # an untracked file that goes away: git never knew it
                if pre[p] is None and post[p] is None:
                    continue
                commit_paths.append(p)
                if pre[p] is None or code == "??":
                    untracked.append(p)

            # git compresses a large changed file (INDEX.md) when it is staged: have that done
            # now, beside the journal and the renames (only files git already tracks: an
            # ignored draft's text never becomes a git object)
            big = [
                (rp, data)
                for p, rp in zip(paths, repo_paths, strict=True)
                if p in commit_paths
                and (data := post[p]) is not None
                and len(data) >= BIG_BLOB
                and pre[p] is not None
                and rp not in status
                and p not in public
            ]
            storing = pool.submit(_store_blobs, repo, big)

            def _clean_in_head(p: str, rp: str) -> bool:
                """Tracked, unchanged in the work tree and the index: HEAD holds the pre-image."""
                return head is not None and pre[p] is not None and rp not in status

            # ---- journal
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
            jid = f"{stamp}-{os.getpid()}-{secrets.token_hex(3)}"
            jfolder = root / JOURNAL_REL
            blobs: dict[str, bytes] = {}
            entries: list[_Entry] = []
            in_git = {rp for p, rp in zip(paths, repo_paths, strict=True) if _clean_in_head(p, rp)}
            for i, (p, rp) in enumerate(zip(paths, repo_paths, strict=True)):
                old, new = pre[p], post[p]
                old_name = None
                if old is not None and rp not in in_git:
                    old_name = f"old-{i}"
                    blobs[old_name] = old
                entries.append(
                    _Entry(
                        path=p,
                        before=expected[p],  # checked above: the hash of `old`
                        after=None if new is None else content_hash(new),
                        old=old_name,
                        mode=modes[p],
                        git_old=rp if rp in in_git else None,
                    )
                )
            journal = _Journal(jid, jfolder, plan.action, plan.message, head, entries, commit_paths)
            (root / JOURNAL_REL).mkdir(parents=True, exist_ok=True)
            _write_journal(journal, blobs)
            hook("journaled")

            # ---- files
            try:
                _apply_files(root, entries, post, temps, hook)
            except BaseException:
                _rollback_files(root, repo, journal)
                journal.remove()
                raise
            hook("files-done")

            # ---- git
            storing.result()
            stored_early.result()
            try:
                sha = _stage_and_commit(
                    repo, head, commit_paths, plan.message, untracked, asked_staged.result()
                )
            except WriterError as exc:
                _unstage(repo, untracked, head)
                _rollback_files(root, repo, journal)
                journal.remove()
                raise CommitFailedError(
                    f"git did not record the {plan.action}; the files were put back as they "
                    f"were. {exc}"
                ) from exc
            hook("committed")
            journal.remove()
            if on_commit is not None:
                on_commit(sha)
            return Applied(sha, plan.message, tuple(paths), recovered)
        finally:
            pool.shutdown(wait=True)
            if temps is not None:
                temps.discard()


class _Temps:
    """The plan's new contents in fsynced temp files next to their targets, written while git
    answers the status questions; installed by rename once the journal is written. Whatever is
    not installed (a refused or failed action) is removed, with the folders made for it."""

    def __init__(self, root: Path, post: dict[str, bytes | None], modes: dict[str, int]) -> None:
        self.root = root
        self.jobs = [(p, data, modes[p]) for p, data in post.items() if data is not None]
        self.made: dict[str, Path] = {}
        self.new_dirs: list[Path] = []

    def write(self) -> None:
        for rel, data, mode in self.jobs:
            target = self.root / rel
            missing = []
            folder = target.parent
            while not folder.exists():
                missing.append(folder)
                folder = folder.parent
            for folder in reversed(missing):
                folder.mkdir(exist_ok=True)
                self.new_dirs.append(folder)
            self.made[rel] = write_temp(target, data, mode)

    def install(self, rel: str) -> None:
        _install(self.made.pop(rel), self.root / rel)

    def discard(self) -> None:
        for tmp in self.made.values():
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        self.made.clear()
        for folder in reversed(self.new_dirs):
            with contextlib.suppress(OSError):
                folder.rmdir()  # only when empty: an installed file keeps its folder


def _store_blobs(repo: Repo, items: list[tuple[str, bytes]]) -> None:
    """Write these contents into git's object store; staging them later finds the objects
    there and only hashes. A failure here costs nothing: staging writes them itself."""
    for repo_path, data in items:
        if not store_blob(repo, data):
            repo.git("hash-object", "-w", "--stdin", f"--path={repo_path}", input=data, check=False)


def _sweep_temp_files(root: Path, paths: Sequence[str]) -> None:
    """Remove temp files a killed writer left before its journal existed (only a writer holding
    the lock makes them, so none in the plan's folders can be live)."""
    for folder in {(root / p).parent for p in paths}:
        with contextlib.suppress(OSError):
            for entry in os.scandir(folder):
                if entry.name.startswith(TMP_PREFIX):
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)


def _apply_files(
    root: Path,
    entries: list[_Entry],
    post: dict[str, bytes | None],
    temps: _Temps,
    hook: StageHook,
) -> None:
    # Writes first, deletes after: a moved note exists somewhere at every instant.
    for e in entries:
        if post[e.path] is not None:
            temps.install(e.path)
            hook("file-done")
    for e in entries:
        if post[e.path] is None:
            _remove(root / e.path)
            hook("file-done")


def _pre_image(repo: Repo, journal: _Journal, e: _Entry) -> bytes:
    if e.old is not None:
        return journal.blob(e.old)
    # as checkout would write it (eol and smudge filters applied); the revision is a full sha
    proc = repo.git("cat-file", "--filters", f"{journal.head_before}:{e.git_old}", check=False)
    if proc.returncode != 0 or content_hash(proc.stdout) != e.before:
        raise RecoveryError(
            f"the pre-image of {e.path} could not be read back from commit "
            f"{journal.head_before}; the journal stays in {journal.json_path}"
        )
    return proc.stdout


def _rollback_files(root: Path, repo: Repo, journal: _Journal) -> list[str]:
    """Put every touched path back to its pre-image. Returns the paths that changed."""
    restored: list[str] = []
    # Restore pre-images before removing new files (a moved note is never lost).
    for e in journal.entries:
        if e.before is None:
            continue
        path = root / e.path
        if _hash_of(path) == e.before:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, _pre_image(repo, journal, e), e.mode)
        restored.append(e.path)
    for e in journal.entries:
        if e.before is None and (root / e.path).exists():
            _remove(root / e.path)
            restored.append(e.path)
    return restored


def _clean_temp_files(root: Path, journal: _Journal) -> None:
    for folder in {(root / e.path).parent for e in journal.entries}:
        if folder.is_dir():
            for leftover in folder.glob(TMP_PREFIX + "*"):
                with contextlib.suppress(OSError):
                    leftover.unlink()


# --------------------------------------------------------------------------- recovery


def recover(palace_root: Path, *, lock_timeout: float = 10.0) -> RecoveryReport | None:
    """Finish or roll back an action a crashed writer left unfinished; None when there was none.

    When every touched file already has its post-image the commit is completed (or found already
    made); otherwise every file is put back to its pre-image. The report says which.
    """
    root = Path(palace_root).absolute()
    jdir = root / JOURNAL_REL
    if not jdir.is_dir() or not any(jdir.iterdir()):
        return None
    with WriterLock(root, lock_timeout):
        repo, _ = discover_with_head(root)
        return _recover_locked(root, repo)


def _recover_locked(root: Path, repo: Repo) -> RecoveryReport | None:
    jdir = root / JOURNAL_REL
    if not jdir.is_dir():
        return None
    reports: list[RecoveryReport] = []
    for json_path in sorted(jdir.glob("*.json")):
        if json_path.name.startswith(TMP_PREFIX):
            continue
        reports.append(_recover_one(root, repo, _Journal.load(json_path)))
    # Leftovers: blob files without a json (crash while writing the journal: no file had
    # been touched yet), journal folders of version 1, and temp files of a journal write.
    for leftover in jdir.iterdir():
        if leftover.is_dir() and not (jdir / f"{leftover.name}.json").exists():
            shutil.rmtree(leftover, ignore_errors=True)
            continue
        orphan_blobs = leftover.suffix == ".blobs" and not leftover.with_suffix(".json").exists()
        if orphan_blobs or leftover.name.startswith(TMP_PREFIX):
            with contextlib.suppress(OSError):
                leftover.unlink()
    if not reports:
        return None
    if len(reports) == 1:
        return reports[0]
    last = reports[-1]
    return RecoveryReport(
        last.outcome,
        last.action,
        last.subject,
        tuple(p for r in reports for p in r.paths),
        last.sha,
        " ".join(r.sentence for r in reports),
    )


def _recover_one(root: Path, repo: Repo, journal: _Journal) -> RecoveryReport:
    repo.check_index_lock()
    _clean_temp_files(root, journal)
    subject = journal.message.split("\n", 1)[0]
    paths = tuple(e.path for e in journal.entries)
    current = {e.path: _hash_of(root / e.path) for e in journal.entries}
    for e in journal.entries:
        if current[e.path] not in (e.before, e.after):
            raise RecoveryError(
                f"an interrupted {journal.action} ({subject!r}) left {e.path} in a state that "
                f"is neither before nor after the action (changed by hand since?). Compare it "
                f"with the copies in {journal.folder}, fix it, then remove {journal.json_path}."
            )
    all_after = all(current[e.path] == e.after for e in journal.entries)
    if all_after:
        head = repo.head()
        if head and head != journal.head_before and _is_journal_commit(repo, head, journal):
            journal.remove()
            return RecoveryReport(
                "already-committed",
                journal.action,
                subject,
                paths,
                head,
                f"An interrupted {journal.action} ({subject}) had already been committed as "
                f"{head[:10]}; curator removed its leftover journal.",
            )
        try:
            sha = _stage_and_commit(repo, repo.head(), journal.commit_paths, journal.message)
        except WriterError as exc:
            raise RecoveryError(
                f"an interrupted {journal.action} ({subject}) had written all its files but "
                f"git refused to commit them: {exc}. The journal stays in {journal.json_path}."
            ) from exc
        journal.remove()
        return RecoveryReport(
            "completed",
            journal.action,
            subject,
            paths,
            sha,
            f"An interrupted {journal.action} ({subject}) had written all its files; curator "
            f"completed it and committed {sha[:10]}.",
        )
    restored = _rollback_files(root, repo, journal)
    journal.remove()
    what = (
        f"{len(restored)} file(s) put back as they were ({', '.join(restored)})"
        if restored
        else "no file had been changed yet"
    )
    return RecoveryReport(
        "rolled-back",
        journal.action,
        subject,
        paths,
        None,
        f"An interrupted {journal.action} ({subject}) was rolled back: {what}; "
        f"nothing was committed.",
    )


def _is_journal_commit(repo: Repo, sha: str, journal: _Journal) -> bool:
    proc = repo.git("log", "-1", "--format=%P%x00%B", sha, check=False)
    if proc.returncode != 0:
        return False
    parents, _, body = proc.stdout.decode("utf-8", "replace").partition("\0")
    return parents.split() == ([journal.head_before] if journal.head_before else []) and (
        body.strip() == journal.message.strip()
    )
