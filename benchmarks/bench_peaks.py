"""Peak memory of the processes that write the index, at N notes (issue 34: every process at
100k notes under 700 MB), each a whole process under GNU time (wall, CPU, peak resident
memory, as bench_million measures them) beside its floor run in the same session:

- reindex: `curator reindex` against `bench_million.floor_reindex` (every file read, embedded
  and written to a new table in the same batches, then the full-text index), with the notes
  cache cleared first (`reindex`) or kept from the runs before (`reindex-warm`);
- promote: `curator promote DRAFT --yes` against bench_promote's floor (`git apply --index`,
  `git commit`, one embed and one LanceDB upsert; its commit dropped untimed after);
- search after a change: `curator search` right after that promote (the index has followed
  the commit; the files it wrote are too young for their stat to vouch for them) against
  `search_floor.floor_search` (the table opened, one hybrid query).

    python benchmarks/bench_peaks.py --palace P [--rounds 3] [--code DIR] [--rows reindex,promote]
        [--untuned TRICKS]

`--untuned` (tricks of `curator.runtime`, as CURATOR_NO_TUNING names them) makes every other
promote round one with those tricks off, a row of its own: what they buy, in the same run.

`--code DIR` runs curator from another checkout (PYTHONPATH=DIR), so that one session
measures the code before a change and after it on two copies of the same palace. Prints the
median of each row's rounds (the first promote round, a warm-up, on a line of its own) and the
load.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_million import Run, _argvs, _clear_cache, measure  # noqa: E402
from bench_promote import _FLOOR, _floor_patch, _git, floor_table  # noqa: E402

QUERY = "retry queue"


def _measure(argv: list[str], log: Path, code: Path | None, untuned: str = "") -> Run:
    """`measure` of `argv` with curator from the checkout `code` (None: this one) and the
    tricks `untuned` names off (CURATOR_NO_TUNING's form; "": none)."""
    env = dict(os.environ)
    if code:
        env["PYTHONPATH"] = str(code)
    if untuned:
        env["CURATOR_NO_TUNING"] = untuned
    return measure(argv, log, env)


def _median(runs: list[Run]) -> dict[str, float]:
    return {
        "wall": statistics.median(r.wall for r in runs),
        "cpu": statistics.median(r.user + r.system for r in runs),
        "peak_mb": statistics.median(r.peak_mb for r in runs),
        "max_peak_mb": max(r.peak_mb for r in runs),
        "n": len(runs),
    }


def _line(name: str, ours: dict[str, float], floor: dict[str, float], load: list[float]) -> str:
    return (
        f"{name}: curator {ours['wall']:.1f} s wall, {ours['cpu']:.1f} s CPU, "
        f"{ours['peak_mb']:.0f} MB peak (max {ours['max_peak_mb']:.0f}) | floor "
        f"{floor['wall']:.1f} s, {floor['cpu']:.1f} s CPU, {floor['peak_mb']:.0f} MB | "
        f"{ours['wall'] / floor['wall']:.2f}x wall, {ours['cpu'] / floor['cpu']:.2f}x CPU, "
        f"{ours['peak_mb'] / floor['peak_mb']:.2f}x peak; n={ours['n']}; "
        f"load {load[0]:.1f} -> {load[1]:.1f}"
    )


def drafts_of(root: Path) -> list[str]:
    return sorted(f"inbox/{p.name}" for p in (root / "inbox").glob("*.md"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--palace", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--code", type=Path, help="the checkout to run curator from")
    parser.add_argument("--rows", default="reindex,promote")
    parser.add_argument("--log", type=Path, help="append each row as a JSON line")
    parser.add_argument(
        "--untuned",
        default="",
        help="every other promote round with these tricks off (CURATOR_NO_TUNING's form)",
    )
    args = parser.parse_args(argv)
    root = args.palace.resolve()
    scratch = Path(tempfile.mkdtemp(prefix="bench_peaks_", dir=root.parent))
    try:  # the scratch folder goes however the rows end (a round that fails exits)
        return _rows(args, root, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _rows(args: argparse.Namespace, root: Path, scratch: Path) -> int:
    cli = [sys.executable, "-m", "curator", "--palace", str(root)]
    found: dict[str, object] = {"code": str(args.code or "."), "palace": str(root)}
    rows = args.rows.split(",")
    for name in ("reindex", "reindex-warm"):
        if name not in rows:
            continue
        load = [os.getloadavg()[0]]
        if name == "reindex":
            _clear_cache(root)  # as a fresh clone's first; reindex-warm keeps the notes cache
        ours_argv, floor_argv = _argvs("reindex", root, scratch)
        ours = _measure(ours_argv, scratch / "reindex.stderr", args.code)
        floor = _measure(floor_argv, scratch / "floor.stderr", None)
        load.append(os.getloadavg()[0])
        found[name] = {"curator": asdict(ours), "floor": asdict(floor), "load": load}
        print(_line(name, _median([ours]), _median([floor]), load), flush=True)
    if "promote" in rows:
        drafts = drafts_of(root)
        sample = (root / drafts[0]).read_text()
        floor_index = floor_table(root)
        promote: list[Run] = []
        search: list[Run] = []
        untuned: list[Run] = []  # promotes with args.untuned off, every other round
        floor_promote: list[Run] = []
        floor_search: list[Run] = []
        load = [os.getloadavg()[0]]
        _, search_floor = _argvs("search", root, scratch)
        i = -1
        for draft in drafts:
            if i == args.rounds:
                break
            off = args.untuned if i % 2 == 0 else ""  # round i + 1: the warm-up (0) tuned
            p = _measure(
                [*cli, "promote", draft, "--yes"], scratch / "promote.stderr", args.code, off
            )
            if p.status == 2:
                continue  # a draft that does not promote as it stands (a name taken): the next
            i += 1
            s = _measure([*cli, "search", QUERY], scratch / "search.stderr", args.code)
            patch, rel = _floor_patch(root, i, sample)
            fp = _measure(
                [sys.executable, "-c", _FLOOR, str(root), patch, rel, floor_index],
                scratch / "f.stderr",
                None,
            )
            fs = _measure(search_floor, scratch / "fs.stderr", None)
            _git(root, "reset", "-q", "--keep", "HEAD~1")  # untimed: the floor's commit goes
            if off and all(r.status == 0 for r in (p, s, fp, fs)):
                untuned.append(p)  # its search and floors ran too: each round alike
                continue
            if any(r.status != 0 for r in (p, s, fp, fs)):
                print((scratch / "promote.stderr").read_text()[-2000:], file=sys.stderr)
                print((scratch / "search.stderr").read_text()[-2000:], file=sys.stderr)
                raise SystemExit(f"round {i}: exit {[r.status for r in (p, s, fp, fs)]}")
            if i == 0:  # warm-up: page cache, the notes cache, the first full INDEX.md
                now = [load[0], os.getloadavg()[0]]
                print(_line("promote, warm-up", _median([p]), _median([fp]), now), flush=True)
                continue
            promote.append(p)
            search.append(s)
            floor_promote.append(fp)
            floor_search.append(fs)
        load.append(os.getloadavg()[0])
        shutil.rmtree(floor_index, ignore_errors=True)
        for name, ours_runs, floor_runs in (
            ("promote", promote, floor_promote),
            ("search after the promote", search, floor_search),
        ):
            print(_line(name, _median(ours_runs), _median(floor_runs), load), flush=True)
            found[name] = {
                "curator": [asdict(r) for r in ours_runs],
                "floor": [asdict(r) for r in floor_runs],
                "load": load,
            }
        if args.untuned:
            name = f"promote, CURATOR_NO_TUNING={args.untuned}"
            print(_line(name, _median(untuned), _median(floor_promote), load), flush=True)
            found[name] = {"curator": [asdict(r) for r in untuned], "load": load}
    found["when"] = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
    if args.log:
        with args.log.open("a") as f:
            f.write(json.dumps(found) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
