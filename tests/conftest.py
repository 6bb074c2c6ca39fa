"""Shared fixtures: an isolated environment, real palaces in tmp_path, an in-process CLI."""

from __future__ import annotations

import compileall
import functools
import importlib.util
import shutil
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

import pytest
from hypothesis import settings
from palacehelpers import (
    DEFAULT_TOML,
    SAMPLE,
    MakePalace,
    RunCli,
    build_index,
    built_once,
    committed_once,
    isolate,
    listens,
    new_palace,
    note_text,
)

# Each property test runs hypothesis's default 100 examples in the suite (a test whose example
# is slow asks for fewer itself): every run draws new ones, so the runs add up. For a deeper
# search after a change: `pytest --hypothesis-profile thorough` (1,000 each).
settings.register_profile("thorough", max_examples=1000)


def pytest_configure(config: pytest.Config) -> None:
    """Byte-compile curator/ once, before the workers and the hundreds of `python -m curator`
    processes the tests start import it: with PYTHONDONTWRITEBYTECODE set (as CI images often
    have it) each of them would compile every module it imports again. Only stale files are
    written, into the __pycache__ folders Python itself would write."""
    if not hasattr(config, "workerinput"):  # the controller (or a run without xdist)
        compileall.compile_dir(SAMPLE.parent / "curator", quiet=1)
        cache_rewritten_asserts(config)
    share_cli_parser()


def share_cli_parser() -> None:
    """`curator.cli.main` builds the parser of every command on each call (~15 ms of CPU), once
    per process in real use; the tests run main() in their own process over a thousand times
    a run (run_cli, run_main), so each process builds it once and main() parses with that.
    A parse leaves nothing on the parser: argparse makes a new namespace every time, and
    `Parser.wants_json` is set by each call. `python -m curator` still builds its own."""
    import curator.cli

    curator.cli.build_parser = functools.cache(curator.cli.build_parser)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests that listen to audit events (palacehelpers' `opened` and `listed`) last: the
    hook they add stays for the rest of their process and taxes every audited call there,
    `id()` included (see `palacehelpers._listen`). A stable sort: the same order in every
    xdist worker, each module's tests in their own order."""
    items.sort(key=lambda item: listens(getattr(item, "module", None)))


def cache_rewritten_asserts(config: pytest.Config) -> None:
    """PYTHONDONTWRITEBYTECODE also stops pytest caching the test modules and plugins it
    rewrites for their asserts, so each xdist worker would rewrite all of them again (~5 of
    the ~8 CPU-s a worker takes to collect). The plugins are whole packages: pytest rewrites
    every module of a distribution that registers one (hypothesis, anyio, xdist, syrupy...),
    hypothesis's import cost each worker ~0.7 CPU-s so. Written once here, with pytest's own
    rewrite and pyc writer, every worker reads them (pytest reads its cache whatever that
    variable says); a stale or missing one is rewritten as before."""
    from _pytest.assertion import rewrite

    state = config.stash.get(rewrite.assertstate_key, None)
    hook = getattr(state, "hook", None)
    if state is None or hook is None:  # --assert=plain: nothing is rewritten
        return
    tests = Path(__file__).parent
    files = {
        *hook._rewritten_names.values(),
        *tests.rglob("test_*.py"),
        *tests.rglob("conftest.py"),
        *plugin_sources(hook._must_rewrite),
    }
    for source in sorted(files):
        pyc = rewrite.get_cache_dir(source) / (source.name[:-3] + rewrite.PYC_TAIL)
        if rewrite._read_pyc(source, pyc) is None and rewrite.try_makedirs(pyc.parent):
            try:
                source_stat, code = rewrite._rewrite_test(source, config)
            except SyntaxError:  # a plugin's file no import reaches (another Python's)
                continue
            rewrite._write_pyc(state, code, source_stat, pyc)


def plugin_sources(names: Iterable[str]) -> Iterator[Path]:
    """The source files of the modules and packages `names` (found, not imported)."""
    for name in names:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
            continue
        if spec.submodule_search_locations:
            for folder in spec.submodule_search_locations:
                yield from Path(folder).rglob("*.py")
        else:
            yield Path(spec.origin)


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No test sees the real home, caches, git config, editor or CURATOR_PALACE."""
    return isolate(monkeypatch, tmp_path_factory.mktemp("env"))


@pytest.fixture(autouse=True)
def textual_styles_let_go() -> Iterator[None]:
    """After each test, Textual's cache that holds every widget's style cache (and so its
    rendered lines) once the widget is gone: `StylesCache.get_inner_outer` is an lru_cache
    on a method, keyed by the instance (Textualize/textual#6665). In one test process that
    outlives many apps it held ~1,000 dead widgets, ~300k objects, so every full collection
    there (a committing CLI run's `runtime.let_go`, the memory tests') walked them all."""
    yield
    styles = sys.modules.get("textual._styles_cache")
    if styles is not None:  # a test that never imported Textual leaves nothing here
        styles.StylesCache.get_inner_outer.cache_clear()


@pytest.fixture(scope="session")
def sample_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sample_palace/ committed to a repository of its own, once per run."""
    return committed_once(tmp_path_factory, "sample-repo", SAMPLE, keep_index=False)


@pytest.fixture
def sample_palace(sample_repo: Path, tmp_path: Path) -> Path:
    """A git-initialised copy of sample_palace/ (tests never touch the original)."""
    root = tmp_path / "palace"
    shutil.copytree(sample_repo, root, symlinks=True)
    return root


@pytest.fixture(scope="session")
def indexed_sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of sample_palace/ with its search index built, once per run (shared by the xdist
    workers): building it (wordllama and LanceDB, in a child process as the app does) is most
    of an app start. No git: each test's copy gets its own repository."""

    def build(base: Path) -> None:
        root = base / "palace"
        shutil.copytree(SAMPLE, root, symlinks=True, ignore=shutil.ignore_patterns(".curator"))
        build_index(root, base)

    return built_once(tmp_path_factory, "indexed", build) / "palace"


@pytest.fixture(scope="session")
def indexed_repo(tmp_path_factory: pytest.TempPathFactory, indexed_sample: Path) -> Path:
    """`indexed_sample` committed to a repository of its own (.curator/ is ignored), once."""
    return committed_once(tmp_path_factory, "indexed-repo", indexed_sample, keep_index=True)


@pytest.fixture
def indexed_palace(indexed_repo: Path, tmp_path: Path) -> Path:
    """`sample_palace` with its search index already there: the index holds paths relative to
    the palace and content hashes, so the copy's first sync finds every row current and only
    records the commit."""
    root = tmp_path / "palace"
    shutil.copytree(indexed_repo, root, symlinks=True)
    return root


@pytest.fixture(scope="session")
def default_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The .curator/ of a one-note palace with its index built with palace.toml's default
    embedder, once per run: copied into a new palace, the first sync is incremental."""

    def build(base: Path) -> None:
        root = base / "palace"
        (root / "notes").mkdir(parents=True)
        (root / "palace.toml").write_text(DEFAULT_TOML)
        (root / "notes" / "seed.md").write_text(note_text("Seed"))
        build_index(root, base)

    return built_once(tmp_path_factory, "default-index", build) / "palace" / ".curator"


@pytest.fixture
def make_palace(tmp_path: Path) -> MakePalace:
    """Factory: make_palace({rel: text | bytes}, toml=..., commit=True) -> git-initialised root."""
    counter = iter(range(1000))

    def make(
        files: Mapping[str, str | bytes],
        *,
        toml: str | None = DEFAULT_TOML,
        commit: bool = True,
        name: str | None = None,
    ) -> Path:
        root = tmp_path / (name or f"palace{next(counter)}")
        return new_palace(root, files, toml=toml, commit=commit)

    return make


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> RunCli:
    """run_cli(*args, cwd=None) -> (exit code, stdout, stderr), running main() in-process."""
    from curator.cli import main

    def run(*args: str, cwd: Path | None = None) -> tuple[int, str, str]:
        capsys.readouterr()
        with monkeypatch.context() as m:
            if cwd is not None:
                m.chdir(cwd)
            try:
                code = main([str(a) for a in args])
            except SystemExit as exc:  # argparse errors
                code = exc.code if isinstance(exc.code, int) else 2
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run
