"""A thin wrapper around the ``git`` command line, for what GitPython costs more
(`benchmarks/bench_gitpython.py`: each call named by its row) or would only hand to the same
git command (``repo.git.merge_base(...)`` runs ``git merge-base``; a wrapper adds nothing).
GitPython's own side (in-process discovery, the remote with progress) is :mod:`gitpy`.

Every call is an argument list (never a shell), with ``GIT_TERMINAL_PROMPT=0`` (never ask for a
password), ``LC_ALL=C`` (stable messages) and ``GIT_LITERAL_PATHSPECS=1`` (a note named ``*.md``
or ``:(top)x`` is a file name, not a pattern). Callers put ``--`` before paths; note-derived
text never becomes an option, a ref or a config value.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from curator.errors import WriterError
from curator.gitenv import git_env
from curator.writer import gitpy

__all__ = [
    "DEFAULT_EMAIL",
    "DEFAULT_NAME",
    "MERGE_LABELS",
    "GitError",
    "IndexLockError",
    "NotARepositoryError",
    "Repo",
    "TreeChange",
    "discover",
    "discover_with_head",
    "git_env",
    "merge3",
    "read_blobs",
    "run_git",
    "tree_changes",
]

# The identity used when git has none configured (CI: HOME without .gitconfig). Constants.
DEFAULT_NAME = "curator"
DEFAULT_EMAIL = "curator@localhost"


class GitError(WriterError):
    """A git command failed; the message names the command and quotes git's own words."""

    def __init__(self, args: Sequence[str], returncode: int, stderr: str) -> None:
        self.git_args = list(args)
        self.returncode = returncode
        self.stderr = stderr
        shown = " ".join(self.git_args[:4]) + (" ..." if len(self.git_args) > 4 else "")
        said = stderr.strip().splitlines()
        detail = f": {' | '.join(said[-3:])}" if said else ""
        super().__init__(f"git {shown} failed (exit {returncode}){detail}")


class NotARepositoryError(WriterError):
    pass


class IndexLockError(WriterError):
    """git's lock files exist: another git process is running, or a killed one left them."""

    def __init__(self, path: Path, *more: Path) -> None:
        self.lock_path = path
        self.locks = (path, *more)
        names = ", ".join(str(p) for p in self.locks)
        quoted = " ".join(shlex.quote(str(p)) for p in self.locks)
        super().__init__(
            f"git lock file(s) exist: {names}; another git command may be running. If no git "
            f"process is running, a killed one left them behind: remove them with "
            f"`rm {quoted}` and try again."
        )


def run_git(
    cwd: Path,
    args: Sequence[str],
    *,
    input: bytes | None = None,
    check: bool = True,
    config: Sequence[tuple[str, str]] = (),
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``git [-c k=v ...] ARGS`` in ``cwd`` and return the completed process (bytes).

    ``config`` pairs become ``-c key=value``; they must be constants, never note-derived text.
    With ``check`` a non-zero exit raises GitError (IndexLockError when git says index.lock).
    """
    argv = ["git"]
    for key, value in config:
        argv += ["-c", f"{key}={value}"]
    argv += list(args)
    proc = subprocess.run(
        argv,
        cwd=str(cwd),
        input=input if input is not None else b"",
        capture_output=True,
        env=git_env(env),
        check=False,
    )
    if check and proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace")
        if "index.lock" in err and "File exists" in err:
            for line in err.splitlines():
                if "index.lock" in line and "'" in line:
                    raise IndexLockError(Path(line.split("'")[1]))
        raise GitError(list(args), proc.returncode, err)
    return proc


@dataclass(frozen=True)
class Repo:
    """Where a palace sits in its git repository.

    ``top`` is the work tree root, ``git_dir`` the (absolute) git directory, ``prefix`` the
    palace's folder relative to ``top`` in posix form with a trailing slash ("" at the root).
    """

    top: Path
    git_dir: Path
    prefix: str

    def to_repo(self, rel: str) -> str:
        """Palace-relative path -> repo-relative path."""
        return self.prefix + rel

    def to_palace(self, repo_rel: str) -> str | None:
        """Repo-relative path -> palace-relative path, or None when outside the palace."""
        if repo_rel.startswith(self.prefix):
            return repo_rel[len(self.prefix) :]
        return None

    def git(
        self,
        *args: str,
        input: bytes | None = None,
        check: bool = True,
        config: Sequence[tuple[str, str]] = (),
        env: Mapping[str, str] | None = None,
    ) -> subprocess.CompletedProcess[bytes]:
        """Run git at the top of the work tree (paths given to it are repo-relative)."""
        return run_git(self.top, args, input=input, check=check, config=config, env=env)

    def head(self) -> str | None:
        """The commit HEAD points at, or None on an unborn branch."""
        proc = self.git("rev-parse", "-q", "--verify", "HEAD^{commit}", check=False)
        out = proc.stdout.decode().strip()
        return out if proc.returncode == 0 and out else None

    def identity_config(self) -> list[tuple[str, str]]:
        """``-c`` pairs for the default identity, only for the parts git config lacks.

        bench_gitpython "identity from config": GitPython's config reader is cheaper once
        loaded, but this runs in every commit, capture's too, where importing it costs more
        ("import, fresh process"); and git reads every scope (includes, GIT_CONFIG_*)."""
        proc = self.git("config", "--get-regexp", r"^user\.(name|email)$", check=False)
        have = {
            line.split(" ", 1)[0].lower()
            for line in proc.stdout.decode("utf-8", "replace").splitlines()
            if " " in line and line.split(" ", 1)[1].strip()
        }
        out: list[tuple[str, str]] = []
        if "user.name" not in have:
            out.append(("user.name", DEFAULT_NAME))
        if "user.email" not in have:
            out.append(("user.email", DEFAULT_EMAIL))
        return out


def discover(palace_root: Path) -> Repo:
    """Find the git repository holding ``palace_root`` (its own root or a folder inside)."""
    return discover_with_head(palace_root)[0]


def discover_with_head(palace_root: Path) -> tuple[Repo, str | None]:
    """:func:`discover` plus the commit HEAD points at (None on an unborn branch), one git call."""
    root = Path(palace_root)
    if not root.is_dir():
        raise NotARepositoryError(f"palace folder {root} does not exist")
    # bench_gitpython "discover+head, warm": once GitPython is loaded, in-process is cheaper
    found = gitpy.work_tree(root) if gitpy.loaded() else None
    if found is not None:
        top, git_dir, prefix, head = found
        return Repo(Path(top), Path(git_dir), prefix), head
    return discover_cli(root)


def discover_cli(root: Path) -> tuple[Repo, str | None]:
    """:func:`discover_with_head` by one `git rev-parse` (bench_gitpython "discover+head, fresh
    process": in a process without GitPython, importing it costs more than this git call)."""
    proc = run_git(
        root,
        [
            "rev-parse",
            "--show-toplevel",
            "--absolute-git-dir",
            "--show-prefix",
            "--verify",
            "-q",
            "HEAD^{commit}",
        ],
        check=False,
    )
    found = _rev_parse(root, proc.stdout.decode("utf-8", "surrogateescape"))
    if proc.returncode not in (0, 1) or found is None:
        raise NotARepositoryError(
            f"{root} is not inside a git work tree (curator keeps every change as a git commit; "
            f"run `git init` there first)"
        )
    top, git_dir, prefix, head = found
    return Repo(Path(top), Path(git_dir), prefix), head


def _rev_parse(root: Path, text: str) -> tuple[str, str, str, str | None] | None:
    """(top, git dir, prefix, HEAD) from rev-parse's lines. A folder name may hold a newline,
    so the top is the ancestor of the palace folder the text starts with, not the first line."""
    match = re.search(r"(?:^|\n)([0-9a-f]{40}|[0-9a-f]{64})\n$", text)
    head = match.group(1) if match else None
    body = text[: match.start() + 1] if match else text
    real = root.resolve()
    for folder in (real, *real.parents):
        rel = real.relative_to(folder).as_posix()
        prefix = "" if rel == "." else rel + "/"
        top, tail = str(folder) + "\n", "\n" + prefix + "\n"
        if body.startswith(top) and body.endswith(tail) and len(body) > len(top) + len(tail):
            return str(folder), body[len(top) : len(body) - len(tail)], prefix, head
    lines = text.split("\n")
    if len(lines) < 3 or not lines[0]:
        return None
    prefix = lines[2] if not lines[2] or lines[2].endswith("/") else lines[2] + "/"
    return lines[0], lines[1], prefix, head


NULL_OID = "0" * 40


def read_blobs(repo: Repo, ids: Sequence[str]) -> dict[str, bytes]:
    """``{blob id: bytes}`` for the given blob ids, one ``git cat-file --batch`` (what
    GitPython's object database runs too, one object per round trip)."""
    if not ids:
        return {}
    proc = repo.git("cat-file", "--batch", input=("\n".join(ids) + "\n").encode())
    data = proc.stdout
    out: dict[str, bytes] = {}
    pos = 0
    for blob_id in ids:
        nl = data.index(b"\n", pos)
        header = data[pos:nl].decode().split()
        if len(header) < 3 or header[1] != "blob":
            raise WriterError(f"git object {blob_id} is missing or not a file")
        size = int(header[2])
        out[blob_id] = data[nl + 1 : nl + 1 + size]
        pos = nl + 1 + size + 1
    return out


@dataclass(frozen=True)
class TreeChange:
    """One file a commit (or the step between two trees) changed: repo path, the modes and
    blob ids before and after (``NULL_OID`` / mode ``000000``: no file)."""

    path: str
    old_mode: str
    new_mode: str
    old: str
    new: str


def tree_changes(repo: Repo, *revs: str) -> list[TreeChange]:
    """``git diff-tree -r`` of one commit (against its parent, or the empty tree for a root
    commit) or between two commits, renames off (bench_gitpython "changed files of a commit":
    no clear gain, and GitPython's diff of two trees runs `git diff-tree` itself)."""
    args = ["diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", "--no-ext-diff"]
    if len(revs) == 1:
        args.append("--root")
    proc = repo.git(*args, *revs)
    items = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
    out: list[TreeChange] = []
    i = 0
    while i + 1 < len(items):
        meta, path = items[i], items[i + 1]
        i += 2
        if not meta.startswith(":"):
            continue
        fields = meta[1:].split()
        if len(fields) >= 5:
            out.append(TreeChange(path, fields[0], fields[1], fields[2], fields[3]))
    return out


#: how git's three-way merge names the sides in its conflict markers: this clone's text, the
#: common ancestor's, the remote's
MERGE_LABELS = ("this clone", "before", "the remote")


def merge3(repo: Repo, mine: bytes, base: bytes, theirs: bytes) -> tuple[bytes, int] | None:
    """git's three-way merge of `base` changed into `mine` and into `theirs`: (the text, how
    many conflicts it holds between markers); None when git could not merge them."""
    with tempfile.TemporaryDirectory(prefix="curator-merge-") as folder:
        files = []
        for name, data in (("mine", mine), ("base", base), ("theirs", theirs)):
            path = Path(folder) / name
            path.write_bytes(data)
            files.append(str(path))
        labels = [arg for label in MERGE_LABELS for arg in ("-L", label)]
        # exit status: the number of conflicts (0..127), negative on an error
        proc = repo.git("merge-file", "-p", *labels, *files, check=False)
    if not 0 <= proc.returncode < 128:
        return None
    return proc.stdout, proc.returncode
