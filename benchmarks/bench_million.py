"""The core paths at a million notes: `curator reindex`, a cold `curator search` and
`curator list` with a cold notes cache, each a whole process measured for wall time, CPU
time and peak memory beside its floor, a process of the same libraries doing only the job,
run in the same session:

- reindex: read every note file, embed its text with the palace's embedder and write the
  vectors and texts to a new LanceDB table in the same batches, then build its full-text
  index (what a query needs of an index);
- cold search: open the table, embed the query, one hybrid query (`search_floor`);
- list: read every file and parse every header with PyYAML's C loader (`bench_core`).

    python benchmarks/gen_palace.py /tmp/onem/p1m --notes 1000000 --git
    nice -n 10 python benchmarks/bench_million.py --palace /tmp/onem/p1m --rows reindex,search
    nice -n 10 python benchmarks/bench_million.py --palace /tmp/onem/p1m --rows list

Any palace will do (the 100k rows of issue 34 run it on a 100k palace); `--hog` runs a busy
loop per core beside every row, for the loaded-machine figures.

Each row prints as it finishes (a row takes up to an hour at 1M on a loaded machine) and is
appended as one JSON line to --log when given. The reindex row runs before the search row:
the cold search answers from the index the reindex built.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from benchutil import cpu_hog  # noqa: E402

QUERY = "retry queue"
BATCH = 16384  # docs per LanceDB write, as curator's rebuild writes them
EMBED_BATCH = 4096  # texts per embedder call, as curator's rebuild embeds them


@dataclass
class Run:
    """One whole process: wall and CPU seconds, peak resident memory, exit status."""

    wall: float
    user: float
    system: float
    peak_mb: float
    status: int


def measure(argv: list[str], log: Path, env: dict[str, str] | None = None) -> Run:
    """Run `argv` under GNU time (its stdout discarded, its stderr to `log`; `env`: its
    environment, else this process's)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as stats, log.open("ab") as err:
        start = time.perf_counter()
        proc = subprocess.run(
            ["/usr/bin/time", "-o", stats.name, "-f", "%U %S %M", *argv],
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=env,
        )
        wall = time.perf_counter() - start
        fields = stats.read().split()[-3:]
    user, system, peak_kb = float(fields[0]), float(fields[1]), int(fields[2])
    return Run(wall, user, system, peak_kb / 1024, proc.returncode)


def floor_reindex(root: Path, out: Path) -> int:
    """The index-build floor: every note file read, embedded and written to a new LanceDB
    table in `out` (batches as curator's), then the table's full-text index."""
    import lancedb
    import numpy as np
    import pyarrow as pa
    from lancedb.index import FTS

    from curator.config import load_config
    from curator.search.embed import get_embedder

    sys.path.insert(0, str(HERE))
    from bench_core import _files

    settings = load_config(root).index
    embedder = get_embedder(settings.embedder, settings.dim)
    files = _files(root)
    db = lancedb.connect(str(out))
    table = None
    for start in range(0, len(files), BATCH):
        chunk = files[start : start + BATCH]
        texts = [p.read_bytes().decode("utf-8", errors="replace") for p in chunk]
        vectors = np.concatenate(
            [embedder.embed(texts[i : i + EMBED_BATCH]) for i in range(0, len(texts), EMBED_BATCH)]
        ).astype(np.float32)
        flat = pa.array(vectors.reshape(-1))
        data = pa.table(
            {
                "path": [str(p.relative_to(root)) for p in chunk],
                "text": texts,
                "vector": pa.FixedSizeListArray.from_arrays(flat, embedder.dim),
            }
        )
        if table is None:
            table = db.create_table("floor", data=data, mode="create")
        else:
            table.add(data)
    if table is not None:
        table.create_index("text", config=FTS(with_position=False), replace=True)
    return len(files)


def _python(code: str, *args: str) -> list[str]:
    prelude = f"import sys; sys.path.insert(0, {str(HERE)!r}); from pathlib import Path; "
    return [sys.executable, "-c", prelude + code, *args]


def _clear_cache(root: Path) -> None:
    sys.path.insert(0, str(HERE))
    from bench_core import _clear_cache as clear

    clear(root)


def _argvs(name: str, palace: Path, scratch: Path) -> tuple[list[str], list[str]]:
    """Curator's command and its floor's for one row."""
    cli = [sys.executable, "-m", "curator", "--palace", str(palace)]
    if name == "reindex":
        out = scratch / "floor-index"
        code = (
            "import bench_million; "
            "bench_million.floor_reindex(Path(sys.argv[1]), Path(sys.argv[2]))"
        )
        return [*cli, "reindex"], _python(code, str(palace), str(out))
    if name == "search":
        code = "import search_floor; search_floor.floor_search(Path(sys.argv[1]))(sys.argv[2])"
        return [*cli, "search", QUERY], _python(code, str(palace), QUERY)
    if name == "list":
        code = "import bench_core; bench_core._pyyaml_floor(bench_core._files(Path(sys.argv[1])))"
        return [*cli, "list"], _python(code, str(palace))
    raise ValueError(f"unknown row {name!r}")


def row(name: str, palace: Path, scratch: Path, together: bool) -> dict[str, object]:
    """Curator's process and its floor's for one row: curator first, or with `together`
    both at once (at a load that moves by the minute, the two then share the same one)."""
    ours_argv, floor_argv = _argvs(name, palace, scratch)
    if name in ("reindex", "list"):
        _clear_cache(palace)  # reindex from scratch (a fresh clone's first), list cold
    log = scratch / f"{name}.stderr"
    if together:
        with ThreadPoolExecutor(2) as pool:
            ours_job = pool.submit(measure, ours_argv, log)
            floor_job = pool.submit(measure, floor_argv, scratch / f"{name}-floor.stderr")
            ours, floor = ours_job.result(), floor_job.result()
    else:
        ours = measure(ours_argv, log)
        floor = measure(floor_argv, scratch / f"{name}-floor.stderr")
    shutil.rmtree(scratch / "floor-index", ignore_errors=True)
    return {"row": name, "curator": asdict(ours), "floor": asdict(floor), "together": together}


def _line(found: dict[str, object]) -> str:
    ours, floor = found["curator"], found["floor"]
    assert isinstance(ours, dict) and isinstance(floor, dict)

    def one(r: dict[str, float]) -> str:
        return (
            f"{r['wall']:.1f} s wall, {r['user'] + r['system']:.1f} s CPU, "
            f"{r['peak_mb']:,.0f} MB peak, exit {r['status']}"
        )

    ratio = ours["wall"] / floor["wall"] if floor["wall"] else float("nan")
    return (
        f"{found['row']}: curator {one(ours)} | floor {one(floor)} | {ratio:.2f}x wall, "
        f"{(ours['user'] + ours['system']) / max(floor['user'] + floor['system'], 1e-9):.2f}x CPU"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--palace", type=Path, required=True)
    parser.add_argument("--rows", default="reindex,search,list")
    parser.add_argument("--log", type=Path, help="append each row as a JSON line")
    parser.add_argument(
        "--together", action="store_true", help="run curator and its floor at the same time"
    )
    parser.add_argument("--hog", action="store_true", help="a busy loop per core beside it")
    args = parser.parse_args(argv)
    palace = args.palace.resolve()
    scratch = Path(tempfile.mkdtemp(prefix="bench_million_", dir=palace.parent))
    try:
        with cpu_hog() if args.hog else contextlib.nullcontext():
            for name in args.rows.split(","):
                load = os.getloadavg()[0]
                found = row(name, palace, scratch, args.together)
                found["load"] = [round(load, 1), round(os.getloadavg()[0], 1)]
                found["when"] = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
                print(f"{_line(found)}; load {load:.1f} -> {os.getloadavg()[0]:.1f}", flush=True)
                if args.log:
                    with args.log.open("a") as f:
                        f.write(json.dumps(found) + "\n")
                for r in (found["curator"], found["floor"]):
                    if isinstance(r, dict) and r["status"] not in (0, 1):
                        for f in scratch.glob(f"{name}*.stderr"):
                            print(f.read_text(errors="replace")[-2000:], file=sys.stderr)
    finally:
        for f in scratch.glob("*.stderr"):  # kept beside the palace: progress, errors
            shutil.copy(f, palace.parent / f.name)
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
