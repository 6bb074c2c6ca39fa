"""Helpers the tests import by name (conftest.py only holds fixtures: two conftest modules
exist, and `from conftest import` would pick whichever was imported first)."""

from __future__ import annotations

import contextlib
import gc
import io
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

SAMPLE = Path(__file__).parent.parent / "sample_palace"

# The git config every test runs with (conftest's isolated_env), and the template repositories
# below are committed with.
GITCONFIG = (
    "[user]\n\tname = Test\n\temail = test@example.com\n"
    "[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n"
)

DEFAULT_TOML = '[palace]\nname = "test palace"\ntaxonomy = "palace"\n'

# What git would take an author or committer from besides its config (tests of "no identity").
IDENTITY_VARS = (
    "EMAIL",
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
)

MakePalace = Callable[..., Path]
RunCli = Callable[..., tuple[int, str, str]]


def isolate(m: pytest.MonkeyPatch, base: Path) -> Path:
    """Through `m`, the environment every test runs in (conftest's `isolated_env`), its home,
    caches and git config in `base`: no test sees the real home, caches, git config, editor or
    CURATOR_PALACE. Module- and session-scoped fixtures run before `isolated_env`: one that
    builds a palace takes the same environment with this."""
    for sub in ("home", "cache", "xdg-config", "xdg-cache"):
        (base / sub).mkdir(exist_ok=True)
    gitconfig = base / "gitconfig"
    gitconfig.write_text(GITCONFIG)
    m.setenv("HOME", str(base / "home"))
    m.setenv("CURATOR_CACHE_HOME", str(base / "cache"))
    m.setenv("XDG_CONFIG_HOME", str(base / "xdg-config"))
    m.setenv("XDG_CACHE_HOME", str(base / "xdg-cache"))
    m.delenv("CURATOR_PALACE", raising=False)
    m.setenv("GIT_CONFIG_NOSYSTEM", "1")
    m.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "VISUAL", "EDITOR"):
        m.delenv(var, raising=False)  # the editor tests set their own
    return base


def new_palace(
    root: Path,
    files: Mapping[str, str | bytes],
    *,
    toml: str | None = DEFAULT_TOML,
    commit: bool = True,
) -> Path:
    """A palace at `root`: notes/, inbox/, palace.toml (unless `toml` is None) and `files`
    ({rel: text | bytes}), committed to git unless `commit` is False."""
    (root / "notes").mkdir(parents=True)
    (root / "inbox").mkdir()
    if toml is not None:
        (root / "palace.toml").write_text(toml)
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    if commit:
        git_init_commit(root)
    return root


def git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)


def inbox_ignored(root: Path) -> None:
    """Commit the palace at `root` with its inbox taken out of git and ignored, as a palace
    keeps its drafts (they are never committed)."""
    git(root, "rm", "-q", "--cached", "-r", "inbox")
    (root / ".gitignore").write_text("inbox/\n")
    git(root, "add", ".gitignore")
    git(root, "commit", "-q", "-m", "drafts are not committed")


def git_init_commit(root: Path, message: str = "initial") -> None:
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "-m", message)


def run_main(
    cwd: Path, *args: str, stdin: str | bytes = "", env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`curator ARGS` run as its process would run it (curator.cli.main in `cwd`, with `env`
    added, stdin a file holding `stdin`: no terminal), in this process: a `python -m curator`
    pays curator's import for what main() does the same here. What it wrote and its exit
    code come back as subprocess.run's would. Not for `curator hook`: a hook that runs out of
    time ends its process (os._exit)."""
    from curator.cli import main

    out, err = io.StringIO(), io.StringIO()
    frozen = gc.get_freeze_count()
    with pytest.MonkeyPatch.context() as m, tempfile.TemporaryFile() as f:
        f.write(stdin.encode() if isinstance(stdin, str) else stdin)
        f.seek(0)
        for key, value in (env or {}).items():
            m.setenv(key, value)
        m.chdir(cwd)
        m.setattr(sys, "stdin", io.TextIOWrapper(f, encoding="utf-8"))
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse's refusals
                code = exc.code if isinstance(exc.code, int) else 2
    if gc.get_freeze_count() > frozen:  # a command freezes what it loaded for its own process's
        gc.unfreeze()  # life (`runtime.freeze_loaded`): this one goes on to the next test
    return subprocess.CompletedProcess(["curator", *args], code, out.getvalue(), err.getvalue())


def installed(root: Path, files: Mapping[str, bytes | None]) -> list[str]:
    """A plan's files (`Plan.effects`) written or removed as apply installs them, and not
    committed: another writer caught between its files and its commit. The paths written."""
    for rel, data in files.items():
        if data is None:
            (root / rel).unlink()
        else:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(data)
    return [rel for rel, data in files.items() if data is not None]


def index_now(root: Path) -> None:
    """The palace's search index built now, in this process, by the job the app runs in a
    child process (its `main`: a child pays curator's, LanceDB's and the embedder's imports
    again). An app opened on the palace then finds it and syncs in its own process, where
    without it the app builds one in a child (tests/test_index_progress.py's subject)."""
    from curator.search.indexjob import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([str(root)])
    assert code == 0 and '"stats"' in out.getvalue(), out.getvalue()


def build_index(root: Path, scratch: Path) -> None:
    """`index_now`, with the home and caches in `scratch` (for session fixtures, which run
    before `isolated_env`)."""
    with pytest.MonkeyPatch.context() as m:
        m.setenv("HOME", str(scratch / "home"))
        m.setenv("CURATOR_CACHE_HOME", str(scratch / "cache"))
        m.setenv("XDG_CACHE_HOME", str(scratch / "xdg-cache"))
        index_now(root)


def built_once(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """A folder `build` makes once per test run, shared by every xdist worker: the first to
    take the lock (filelock, as the writer's lock) builds it, the others wait, then find it
    built (`.built` is written last, so a build that failed is done again)."""
    base = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's folder, above each worker's own
    target = base / name
    with FileLock(base / f"{name}.lock"):
        if not (target / ".built").exists():
            if target.exists():
                shutil.rmtree(target)
            target.mkdir()
            build(target)
            (target / ".built").touch()
    return target


def copied_once(
    factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None], to: Path
) -> Path:
    """A copy at `to` (symlinks and mtimes kept) of the palace `build(base)` makes at
    base/palace once a run (`built_once`): a test's own palace, without making it again."""
    shutil.copytree(built_once(factory, name, build) / "palace", to, symlinks=True)
    return to


def committed_once(
    factory: pytest.TempPathFactory,
    name: str,
    source: Path,
    *,
    keep_index: bool,
    env: Mapping[str, str] | None = None,
) -> Path:
    """A copy of `source` committed to a new repository (as `git_init_commit`, with the tests'
    git config and `env`), once per run: a test copies the whole folder, .git included, which
    costs less than the three git processes of a commit of its own. Its objects are packed:
    copying a pack instead of a loose file per blob and tree (in the sample palace 39 files
    under .git instead of 191) costs less than half the CPU. Without `keep_index` the copy
    leaves `.curator/` out."""

    def build(base: Path) -> None:
        root = base / "palace"
        skip = None if keep_index else shutil.ignore_patterns(".curator")
        shutil.copytree(source, root, symlinks=True, ignore=skip)
        (base / "gitconfig").write_text(GITCONFIG)
        with pytest.MonkeyPatch.context() as m:
            m.setenv("HOME", str(base))
            m.setenv("GIT_CONFIG_NOSYSTEM", "1")
            m.setenv("GIT_CONFIG_GLOBAL", str(base / "gitconfig"))
            for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", *IDENTITY_VARS):
                m.delenv(var, raising=False)
            for key, value in (env or {}).items():
                m.setenv(key, value)
            git_init_commit(root)
            git(root, "repack", "-a", "-d", "-q")
            git(root, "prune-packed", "-q")

    return built_once(factory, name, build) / "palace"


def note_text(
    name: str,
    *,
    type: str = "project",
    description: str | None = None,
    body: str = "Body.\n",
    extra: str = "",
) -> str:
    """A valid note's text; `extra` is raw header lines added after the type."""
    desc = description if description is not None else f"About {name.lower()}."
    return f"---\nname: {name}\ndescription: {desc}\ntype: {type}\n{extra}---\n{body}"


def reject_plan(root: Path, reason: str, draft: str = "inbox/d.md") -> Any:
    """The plan of rejecting `draft` (moved to .curator/rejected/, restorable by undo), built by
    hand for writer tests that run without the planners."""
    from curator.writer.plan import Move, Plan, encode_restore

    name = Path(draft).name
    kept = f".curator/rejected/{name}"
    return Plan(
        "reject",
        (draft,),
        reason,
        Path(draft).stem,
        (Move.from_disk(root, draft, kept),),
        trailers=(("Curator-Restore", encode_restore(draft, kept)),),
        root=root,
    )


_OPENED: list[str] | None = None  # the files opened while a test listens (see `opened`)
_LISTED: list[str] | None = None  # the folders listed while a test listens (see `listed`)
_HOOKED = False


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _OPENED is not None and event == "open" and isinstance(args[0], str | os.PathLike):
        _OPENED.append(os.fspath(args[0]))
    if _LISTED is not None and event == "os.scandir" and isinstance(args[0], str | os.PathLike):
        _LISTED.append(os.fspath(args[0]))


def _listen() -> None:
    """The audit hook, added by the first test that listens, not on import: Python calls every
    hook on every audited event, `id()` included, which Textual calls ~180k times an app run
    (~0.24 µs each through a Python hook), and a hook cannot be removed. The tests that listen
    run last (conftest's `pytest_collection_modifyitems`), so the rest never pay for it."""
    global _HOOKED
    if not _HOOKED:
        sys.addaudithook(_audit)
        _HOOKED = True


def listens(module: object) -> bool:
    """Whether a test module uses `opened` or `listed` (and so adds the audit hook)."""
    return any(getattr(module, name, None) in (opened, listed) for name in ("opened", "listed"))


@contextlib.contextmanager
def opened() -> Iterator[list[str]]:
    """The paths of the files Python opened inside the block, in order (its audit events:
    what a step read, without wrapping what it reads with)."""
    global _OPENED
    _listen()
    _OPENED = found = []
    try:
        yield found
    finally:
        _OPENED = None


@contextlib.contextmanager
def listed() -> Iterator[list[str]]:
    """The folders Python listed (`os.scandir`) inside the block, in order: a walk of the
    palace lists its notes folder once."""
    global _LISTED
    _listen()
    _LISTED = found = []
    try:
        yield found
    finally:
        _LISTED = None
