"""GitPython against the git command line, one row per job the writer asks of git (issue 32):
`python benchmarks/bench_gitpython.py [--commits 1000] [--runs 5]`.

Each row times the same job both ways in the same run on the same repository and prints the
medians and the ratio GitPython / CLI (above 1: GitPython costs more). The writer keeps the
command line exactly where a row's ratio is above 1; the comment beside each such call names
its row (`bench_gitpython: <row>`).

Rows:
- `import, fresh process`: `python -c "import git"` against `python -c "import subprocess"`,
  what capture and `curator hook` would pay to load GitPython;
- `discover+head, fresh process`: find the repository of a palace folder and its HEAD in a new
  interpreter (GitPython's `Repo(search_parent_directories=True)` against one `git rev-parse`);
- `discover+head, warm`: the same in a process that already imported both;
- `log N commits with trailers`: curator's history read (`git log` with
  `%(trailers:only,unfold)`) against GitPython's `iter_commits` + `Commit.trailers_list`;
- `one commit's trailers`: one entry (`entry_at`), both ways;
- `changed files of a commit`: `git show --name-only` against `Commit.stats.files`;
- `identity from config`: `git config --get-regexp` against `Repo.config_reader()`;
- `commit one file`: `git add && git commit` against GitPython's `index.add` + `index.commit`;
- `fetch from a bare remote`: `git fetch` against `Remote.fetch(progress=...)`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from benchutil import timed  # noqa: E402

ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@localhost",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@localhost",
}


def _git(cwd: Path, *args: str, stdin: bytes | None = None) -> str:
    proc = subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, input=stdin, env=ENV
    )
    return proc.stdout.decode()


def _history(root: Path, commits: int) -> None:
    """`commits` curator-like commits (a note each, Curator-* trailers), made by fast-import."""
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.name", "bench")
    _git(root, "config", "user.email", "bench@localhost")
    stream: list[bytes] = []
    for i in range(commits):
        body = f"# note {i}\n\nsome text {i}\n".encode()
        message = (
            f"curator: edit notes/n{i}.md\n\nCurator-Action: edit\n"
            f"Curator-Note: notes/n{i}.md\nCurator-Reason: bench {i}\n"
        ).encode()
        stream += [
            b"commit refs/heads/main\n",
            f"committer bench <bench@localhost> {1_700_000_000 + i} +0000\n".encode(),
            f"data {len(message)}\n".encode() + message,
            f"M 100644 inline notes/n{i}.md\ndata {len(body)}\n".encode() + body + b"\n",
        ]
    _git(root, "fast-import", "--quiet", stdin=b"".join(stream))
    _git(root, "reset", "-q", "--hard", "main")


def _times(fn: Callable[[], object], runs: int, setup: Callable[[], object] | None = None) -> float:
    """The median of ``runs`` calls, in ms."""
    return statistics.median(timed(fn, runs, setup)) * 1000


def _proc(code: str) -> Callable[[], object]:
    return lambda: subprocess.run([sys.executable, "-c", code], check=True, env=ENV)


def rows(commits: int, runs: int) -> list[tuple[str, float, float]]:
    import git

    from curator.writer.git import discover_cli
    from curator.writer.gitpy import work_tree
    from curator.writer.history import log

    out: list[tuple[str, float, float]] = []
    scratch = Path(tempfile.mkdtemp(prefix="curator-bench-gitpython-"))
    try:
        root = scratch / "palace"
        root.mkdir()
        _history(root, commits)
        sub = root / "notes"
        repo = git.Repo(sub, search_parent_directories=True, expand_vars=False)
        cli_repo, head = discover_cli(sub)
        assert head == repo.head.commit.hexsha

        py_floor = _times(_proc("import subprocess"), runs)
        out.append(("import, fresh process", _times(_proc("import git"), runs), py_floor))
        path = f"__import__('pathlib').Path({str(sub)!r})"
        gp = f"import git; from curator.writer.gitpy import work_tree; work_tree({path})"
        cli = f"from curator.writer.git import discover_cli; discover_cli({path})"
        out.append(
            ("discover+head, fresh process", _times(_proc(gp), runs), _times(_proc(cli), runs))
        )
        out.append(
            (
                "discover+head, warm",
                _times(lambda: work_tree(sub), runs * 4),
                _times(lambda: discover_cli(sub), runs * 4),
            )
        )

        def gp_log() -> None:
            for c in repo.iter_commits("HEAD", grep="^Curator-Action:"):
                assert c.trailers_list

        out.append((f"log {commits} commits with trailers", _times(gp_log, max(1, runs // 2)),
                    _times(lambda: log(cli_repo, "HEAD"), runs)))  # fmt: skip
        out.append(
            (
                "one commit's trailers",
                _times(lambda: repo.commit(head).trailers_list, runs * 4),
                _times(lambda: log(cli_repo, "--max-count=1", head or "HEAD"), runs * 4),
            )
        )
        out.append(
            (
                "changed files of a commit",
                _times(lambda: list(repo.commit(head).stats.files), runs * 4),
                _times(
                    lambda: cli_repo.git("show", "--name-only", "--format=", head or ""), runs * 4
                ),
            )
        )
        out.append(
            (
                "identity from config",
                _times(lambda: repo.config_reader().get_value("user", "name", ""), runs * 4),
                _times(lambda: cli_repo.identity_config(), runs * 4),
            )
        )

        counter = iter(range(10**6))

        def change() -> str:
            n = next(counter)
            (root / "notes" / "bench.md").write_text(f"# bench {n}\n")
            return "notes/bench.md"

        def gp_commit() -> None:
            repo.index.add([change()])
            repo.index.commit("curator: bench\n\nCurator-Action: edit\n")

        def cli_commit() -> None:
            path = change()
            _git(root, "add", "--", path)
            _git(root, "commit", "-q", "-m", "curator: bench\n\nCurator-Action: edit", "--", path)

        out.append(("commit one file", _times(gp_commit, runs), _times(cli_commit, runs)))

        bare = scratch / "remote.git"
        _git(scratch, "clone", "-q", "--bare", str(root), str(bare))
        _git(root, "remote", "add", "origin", str(bare))
        spec = "+refs/heads/main:refs/remotes/origin/main"

        def reset_tracking() -> None:
            subprocess.run(["git", "update-ref", "-d", "refs/remotes/origin/main"], cwd=root)

        out.append((
            "fetch from a bare remote",
            _times(lambda: repo.remote("origin").fetch(spec, progress=git.RemoteProgress()),
                   runs, reset_tracking),
            _times(lambda: _git(root, "fetch", "--quiet", "--no-tags", "origin", spec), runs,
                   reset_tracking),
        ))  # fmt: skip
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    found = rows(args.commits, args.runs)
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} (1, 5 min)")
    print(f"{'row':38} {'GitPython ms':>13} {'CLI ms':>9} {'ratio':>7}")
    for name, gp, cli in found:
        print(f"{name:38} {gp:13.2f} {cli:9.2f} {gp / cli:6.2f}x")


if __name__ == "__main__":
    main()
