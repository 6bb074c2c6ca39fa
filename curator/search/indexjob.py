"""Build or rebuild a palace's search index in a child process, reporting progress as JSON
lines on stdout. A session that builds apart (the app's) runs it so that embedding, table
writing and the full-text index (a few hundred MB of native buffers at 10k notes) never land in
the app's own memory or hold its GIL; the session then opens the finished index.

    python -m curator.search.indexjob ROOT [--rebuild]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from curator.errors import CuratorError

if TYPE_CHECKING:
    from curator.search.store import SyncStats


def run_child(
    root: Path,
    rebuild: bool,
    progress: Callable[[int, int], None] | None,
    started: Callable[[subprocess.Popen[str]], None] | None = None,
) -> SyncStats:
    """Run the job for `root` (from a worker thread), calling `progress(done, total)`;
    `started` receives the process (so the app can stop it when it quits)."""
    from curator.search.store import SyncStats

    argv = [sys.executable, "-m", "curator.search.indexjob", str(root)]
    if rebuild:
        argv.append("--rebuild")
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        encoding="utf-8",
        errors="replace",
    )
    assert proc.stdout is not None
    if started is not None:
        started(proc)
    stats: SyncStats | None = None
    other: list[str] = []
    error = ""
    with proc:
        for line in proc.stdout:
            try:
                data = json.loads(line) if line.startswith("{") else None
            except ValueError:
                data = None
            if not isinstance(data, dict):
                other = [*other[-20:], line.rstrip()]
            elif "progress" in data and progress is not None:
                progress(int(data["progress"][0]), int(data["progress"][1]))
            elif "stats" in data:
                stats = SyncStats(**data["stats"])
            elif "error" in data:
                error = str(data["error"])
    if stats is None:
        detail = error or "\n".join(other[-5:]) or f"exit {proc.returncode}"
        raise CuratorError(f"building the search index failed: {detail}")
    return stats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m curator.search.indexjob")
    parser.add_argument("root", type=Path)
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args(argv)

    from curator.model.palace import Palace
    from curator.search.catchup import rebuild_index
    from curator.search.index import open_index, sync_index
    from curator.search.progress import reporting

    def progress(done: int, total: int) -> None:
        print(json.dumps({"progress": [done, total]}), flush=True)

    try:
        if args.rebuild:  # from the files a batch at a time, never the whole palace
            stats = rebuild_index(args.root.resolve(), progress)[1]
        else:
            palace = Palace.open(args.root)
            store = open_index(palace)
            with reporting(store, palace, progress):
                stats = sync_index(palace, store=store)
    except Exception as exc:
        print(json.dumps({"error": str(exc) or type(exc).__name__}), flush=True)
        return 1
    print(json.dumps({"stats": asdict(stats)}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
