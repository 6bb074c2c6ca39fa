"""Commit a few paths on top of HEAD with git's plumbing, holding git's own index lock.

``git commit --only -- PATHS`` costs ~110 ms in a 10k-file repository: it builds a temporary
index from HEAD, refreshes stat data and writes two full indexes. When nothing else is staged
the real index already *is* HEAD's tree, so the same commit needs only: a copy of the index
with the paths updated (``update-index``), ``write-tree``, ``commit-tree`` and a compare-and-swap
``update-ref`` — about 30 ms, the same commit and reflog entry, the same index afterwards.

The copy is written into ``index.lock`` (git's lock file) and renamed onto ``index`` at the
end, git's own protocol: other git commands see the lock and wait or refuse, as they would
during ``git commit``. Whenever the repository needs what only porcelain does (commit hooks,
signing, a merge or rebase in progress, other staged changes, a split or sparse index, an
unborn branch), :func:`commit_paths` returns None and the caller uses ``git commit --only``.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import shutil
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from curator.writer.git import DEFAULT_EMAIL, DEFAULT_NAME, IndexLockError, Repo

__all__ = ["StagedCheck", "cleanup_whitespace", "commit_paths", "staged_check", "store_blob"]

# Hooks `git commit` would run; any one of them present means the porcelain path.
COMMIT_HOOKS = ("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit")
# Files in the git directory that mean an operation is under way.
IN_PROGRESS = (
    "MERGE_HEAD",
    "CHERRY_PICK_HEAD",
    "REVERT_HEAD",
    "BISECT_LOG",
    "rebase-merge",
    "rebase-apply",
)
_SETTINGS = (
    r"^(user\.(name|email)|core\.hookspath|commit\.gpgsign|core\.splitindex|index\.sparse"
    r"|gc\.auto|gc\.autopacklimit|include\.path|includeif\..*\.path"
    r"|extensions\.objectformat|core\.sharedrepository|core\.loosecompression|core\.compression)$"
)
_TRUE = {"true", "yes", "on", "1"}
_FLAGS = ("commit.gpgsign", "core.splitindex", "index.sparse")  # true: porcelain


def cleanup_whitespace(message: str) -> str:
    """What ``git commit --cleanup=whitespace`` makes of ``message``: trailing whitespace
    stripped from every line, runs of blank lines collapsed, no blank lines at either end."""
    lines = [line.rstrip() for line in message.replace("\r\n", "\n").split("\n")]
    out: list[str] = []
    for line in lines:
        if not line and (not out or not out[-1]):
            continue
        out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n" if out else ""


def _config_files(repo: Repo) -> tuple[object, ...]:
    """What git's configuration depends on: the files' stat data and the variables that
    point git elsewhere. While it is unchanged, the settings read last time still hold."""
    home = Path(os.environ.get("HOME", "~")).expanduser()
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    files = [
        _common_dir(repo.git_dir) / "config",
        repo.git_dir / "config.worktree",
        home / ".gitconfig",
        xdg / "git" / "config",
        Path("/etc/gitconfig"),
    ]
    stats: list[object] = [os.environ.get(k) for k in sorted(os.environ) if k.startswith("GIT_")]
    for path in files:
        try:
            st = path.stat()
        except OSError:
            stats.append(None)
        else:
            stats.append((st.st_ino, st.st_size, st.st_mtime_ns))
    return tuple(stats)


_SETTINGS_CACHE: dict[Path, tuple[tuple[object, ...], dict[str, str]]] = {}


def _settings(repo: Repo) -> dict[str, str]:
    """The config keys that decide the path, read once while the config files are unchanged
    (not remembered when the config includes other files)."""
    signature = _config_files(repo)
    cached = _SETTINGS_CACHE.get(repo.git_dir)
    if cached is not None and cached[0] == signature:
        return cached[1]
    proc = repo.git("config", "-z", "--get-regexp", _SETTINGS, check=False)
    out: dict[str, str] = {}
    for item in proc.stdout.decode("utf-8", "replace").split("\0"):
        key, _, value = item.partition("\n")
        if key:
            out[key.lower()] = value
    if not any(key.startswith("include") for key in out):
        _SETTINGS_CACHE[repo.git_dir] = (signature, out)
    return out


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value else default
    except ValueError:
        return default


def _gc_due(repo: Repo, settings: dict[str, str]) -> bool:
    """git gc --auto's own test, without a process: loose objects in objects/17 (a 1/256
    sample) above gc.auto/256, or more packs than gc.autoPackLimit."""
    objects = _common_dir(repo.git_dir) / "objects"
    limit = _int(settings.get("gc.auto"), 6700)
    if limit <= 0:
        return False
    try:
        loose = sum(1 for name in os.listdir(objects / "17") if len(name) >= 38)
    except OSError:
        loose = 0
    if loose > (limit + 255) // 256:
        return True
    packs = _int(settings.get("gc.autopacklimit"), 50)
    try:
        count = sum(1 for name in os.listdir(objects / "pack") if name.endswith(".pack"))
    except OSError:
        count = 0
    return 0 < packs < count


def store_blob(repo: Repo, data: bytes) -> bool:
    """Write `data` into git's object store as a loose blob, as git would (zlib at the loose
    compression level, a temp file in the object's folder linked into place): ~14 ms for
    INDEX.md at 10k notes against ~30 ms for `git hash-object -w`, whose SHA-1 is the slower
    collision-detecting one. False when this repository needs git to do it (SHA-256 objects,
    a shared repository). Staging then finds the object and only hashes the file; should a
    filter (eol, clean) make git's blob differ, this one is unused garbage that gc prunes."""
    settings = _settings(repo)
    if settings.get("extensions.objectformat", "sha1").lower() != "sha1":
        return False
    if settings.get("core.sharedrepository"):
        return False
    level = _int(settings.get("core.loosecompression") or settings.get("core.compression"), 1)
    body = b"blob %d\0" % len(data) + data
    sha = hashlib.sha1(body, usedforsecurity=False).hexdigest()
    folder = _common_dir(repo.git_dir) / "objects" / sha[:2]
    final = folder / sha[2:]
    if final.exists():
        return True
    packed = zlib.compress(body, level if -1 <= level <= 9 else 1)
    folder.mkdir(exist_ok=True)
    tmp = folder / f"tmp_obj_{secrets.token_hex(6)}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
        with os.fdopen(fd, "wb") as out:
            out.write(packed)
            out.flush()
            os.fsync(out.fileno())
        with contextlib.suppress(FileExistsError):
            os.link(tmp, final)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    return True


def _common_dir(git_dir: Path) -> Path:
    """The git directory shared by every worktree (where hooks and objects live)."""
    try:
        pointer = (git_dir / "commondir").read_text().strip()
    except OSError:
        return git_dir
    return (git_dir / pointer).resolve()


def _has_hooks(repo: Repo, settings: dict[str, str]) -> bool:
    configured = settings.get("core.hookspath")
    if configured:
        folder = Path(os.path.expanduser(configured))
        folder = folder if folder.is_absolute() else repo.top / folder
    else:
        folder = _common_dir(repo.git_dir) / "hooks"
    return any(os.access(folder / name, os.X_OK) for name in COMMIT_HOOKS)


def _porcelain_needed(repo: Repo, settings: dict[str, str]) -> bool:
    if any(settings.get(key, "").lower() in _TRUE for key in _FLAGS):
        return True
    if any((repo.git_dir / name).exists() for name in IN_PROGRESS):
        return True
    if not (repo.git_dir / "index").is_file():
        return True
    if any(p.name.startswith("sharedindex.") for p in repo.git_dir.iterdir()):
        return True  # a split index: the copy would not stand on its own
    return _has_hooks(repo, settings)


def _identity(settings: dict[str, str]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if not settings.get("user.name", "").strip():
        out.append(("user.name", DEFAULT_NAME))
    if not settings.get("user.email", "").strip():
        out.append(("user.email", DEFAULT_EMAIL))
    return out


def _subject(message: str) -> str:
    first = message.split("\n", 1)[0]
    return re.sub(r"[\x00-\x1f\x7f]", " ", first)


@dataclass(frozen=True)
class StagedCheck:
    """Whether the index held staged changes against HEAD, and the index file it was read from
    (its stat data), so the answer can be asked early and trusted while the file is the same."""

    index: tuple[int, int, int] | None
    any_staged: bool


def _index_stat(repo: Repo) -> tuple[int, int, int] | None:
    try:
        st = (repo.git_dir / "index").stat()
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def staged_check(repo: Repo, head: str | None) -> StagedCheck | None:
    """Ask git now whether anything is staged (for :func:`commit_paths`, later); None when the
    index changed while git read it, or there is no HEAD."""
    if head is None:
        return None
    before = _index_stat(repo)
    proc = repo.git(
        "diff-index", "--cached", "--name-only", "-z", head, env={"GIT_OPTIONAL_LOCKS": "0"}
    )
    if before is None or _index_stat(repo) != before:
        return None
    return StagedCheck(before, bool(proc.stdout.strip(b"\0")))


def commit_paths(
    repo: Repo,
    head: str | None,
    repo_paths: Sequence[str],
    message: str,
    staged: StagedCheck | None = None,
) -> str | None:
    """Commit ``repo_paths`` (repo-relative) as they are in the work tree on top of ``head``.

    Returns the new commit's sha, or None when this repository needs ``git commit --only``
    (nothing has been changed then). Raises IndexLockError when git's index.lock exists and
    GitError when a git step fails (HEAD and the index are then as they were). ``staged`` is
    an answer of :func:`staged_check` for this `head`, used if the index is still that file.
    """
    if head is None:
        return None
    settings = _settings(repo)
    if _porcelain_needed(repo, settings):
        return None
    index = repo.git_dir / "index"
    lock = repo.index_lock
    try:
        fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        raise IndexLockError(lock) from None
    installed = False
    try:
        with os.fdopen(fd, "wb") as out, open(index, "rb") as src:
            shutil.copyfileobj(src, out)
        # under git's lock now: the index cannot change; an earlier answer holds if it is the
        # same file as then
        if staged is None or staged.index != _index_stat(repo):
            staged = staged_check(repo, head)
        if staged is None or staged.any_staged:
            return None  # the user has staged changes of their own: porcelain keeps them out
        env = {"GIT_INDEX_FILE": str(lock)}
        if repo_paths:
            repo.git("update-index", "--add", "--remove", "--", *repo_paths, env=env)
        tree = repo.git("write-tree", env=env).stdout.decode().strip()
        commit = (
            repo.git(
                "commit-tree",
                tree,
                "-p",
                head,
                "-F",
                "-",
                input=cleanup_whitespace(message).encode("utf-8"),
                config=_identity(settings),
            )
            .stdout.decode()
            .strip()
        )
        # compare-and-swap: refused when HEAD moved since `head` was read
        repo.git("update-ref", "-m", f"commit: {_subject(message)}", "HEAD", commit, head)
        os.replace(lock, index)  # the index for the new HEAD, and git's lock released
        installed = True
    finally:
        if not installed:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(lock)
    if _gc_due(repo, settings):  # what `git commit` does after committing
        repo.git("gc", "--auto", "--quiet", check=False)
    return commit
