"""Palace core at N notes: cold load, no-change reload (cache), check, index, hostile files.

Baselines are measured in the same run, except basic-memory's re-sync: its own published
figure, printed as such.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchutil import Row, cpu_hog, main_for, process_times, row, timed

# basic-memory's no-change re-sync, from its own benchmark (quoted in the project brief's
# "Figures from peers"). Published, not measured here. Measured side by side for issue 10 its
# no-change re-sync ran 175-460 files/s, slower than this figure.
BASIC_MEMORY_RESYNC_FILES_PER_S = 930
BASIC_MEMORY_SOURCE = (
    "published, not measured: basic-memory's own benchmark (~930 files/s no-change re-sync; "
    "measured side by side in issue 10: 175-460 files/s)"
)
HOSTILE_FILES = 1000
HOSTILE_SIZE = 16 * 1024  # each hostile file; one of each class at 1 MiB has its own row


def _files(root: Path) -> list[Path]:
    return [p for folder in ("notes", "inbox") for p in sorted((root / folder).rglob("*.md"))]


def _pyyaml_floor(files: list[Path]) -> int:
    """Read every file and parse every header with PyYAML's C loader: the cold-load floor."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    parsed = 0
    for path in files:
        text = path.read_bytes().decode("utf-8", errors="replace")
        if text.startswith("---"):
            end = text.find("\n---", 3)
            try:
                yaml.load(text[3 : end if end > 0 else len(text)], Loader=loader)
                parsed += 1
            except yaml.YAMLError:
                pass
    return parsed


def _clear_cache(root: Path) -> None:
    try:
        from curator.model.cache import cache_path
    except ImportError:  # a tree from before the one cache module (for before/after runs)
        shutil.rmtree(root / ".curator" / "cache", ignore_errors=True)
        return
    shutil.rmtree(cache_path(root).parent, ignore_errors=True)


def _median_ms(seconds: list[float]) -> float:
    return sorted(seconds)[len(seconds) // 2] * 1000


def run(palace: Path, notes: int) -> list[Row]:
    palace = palace.resolve()
    files = _files(palace)
    rows = [_cold_row(palace, files)]
    rows += _reload_rows(palace, len(files))
    rows += _check_and_index_rows(palace)
    rows += whole_process_rows(palace)
    rows += _hostile_rows()
    return rows


def _cold_row(palace: Path, files: list[Path]) -> Row:
    from curator.model.palace import Palace

    floor = timed(lambda: _pyyaml_floor(files), 5)
    cold = timed(lambda: Palace.open(palace), 5, setup=lambda: _clear_cache(palace))
    return row(
        "core",
        "load palace, cold (no cache)",
        cold,
        target_ms=2 * _median_ms(floor),
        baseline="read every file + parse every header with PyYAML's C loader",
        baseline_ms=_median_ms(floor),
        note="target: within 2x of the floor",
    )


def _reload_rows(palace: Path, count: int) -> list[Row]:
    from curator.model.palace import Palace

    Palace.open(palace)  # writes the cache
    # a new process's view: no palace passed, every note from the disk cache
    disk = timed(lambda: Palace.open(palace), 9)
    keep = Palace.open(palace)
    live = timed(lambda: Palace.open(palace, previous=keep), 9)  # the app's reload
    peer_ms = count / BASIC_MEMORY_RESYNC_FILES_PER_S * 1000
    out = []
    for metric, seconds in (
        ("reload, nothing changed (disk cache, as a new process)", disk),
        ("reload, nothing changed (previous palace passed, as the app)", live),
    ):
        rate = count / (_median_ms(seconds) / 1000)
        out.append(
            row(
                "core",
                metric,
                seconds,
                target_ms=peer_ms / 30,
                baseline="basic-memory no-change re-sync, ~930 files/s",
                baseline_ms=peer_ms,
                baseline_source=BASIC_MEMORY_SOURCE,
                ratio="faster",
                note=f"{rate:,.0f} files/s; target: 30x basic-memory's published figure",
            )
        )
    return out


def _check_and_index_rows(palace: Path) -> list[Row]:
    from curator.model.check import run_checks
    from curator.model.index_md import read_index, render_index
    from curator.model.palace import Palace

    loaded = Palace.open(palace)
    existing = read_index(loaded)
    rows = [
        row("core", "check, in-process (loaded palace)", timed(lambda: run_checks(loaded), 5)),
        row(
            "core",
            "render INDEX.md, in-process",
            timed(lambda: render_index(loaded, existing), 5),
        ),
    ]
    cli = [sys.executable, "-m", "curator", "--palace", str(palace)]
    floor = process_times([sys.executable, "-c", "pass"], 5)
    # check exits 1 on this palace: the generator plants broken links on purpose
    for metric, argv in (
        ("curator check, whole process", [*cli, "check", "--quiet"]),
        ("curator index --check, whole process", [*cli, "index", "--check"]),
    ):
        rows.append(
            row(
                "core",
                metric,
                _times_any_exit(argv, 5),
                target_ms=2000,
                baseline="python -c pass",
                baseline_ms=_median_ms(floor),
            )
        )
    return rows


def _hostile_rows() -> list[Row]:
    """A palace of hostile files (every class of issue 11, cycling) against as many plain
    notes, both cold; and the slowest single 1 MiB hostile file."""
    import gen_hostile

    from curator.model.note import parse_note
    from curator.model.palace import Palace

    with tempfile.TemporaryDirectory() as tmp:
        plain, hostile = Path(tmp, "plain"), Path(tmp, "hostile")
        (plain / "notes").mkdir(parents=True)
        for i in range(HOSTILE_FILES):
            text = f"---\nname: Plain {i}\ndescription: A plain note.\ntype: project\n---\n"
            (plain / "notes" / f"p{i:05d}.md").write_text(text + f"Body [[p{i + 1:05d}]].\n")
        gen_hostile.write_hostile(hostile / "notes", HOSTILE_FILES, HOSTILE_SIZE)
        base = timed(lambda: Palace.open(plain, cache=False), 3)
        note = "every class of gen_hostile.py, cycling"
        try:
            bad = timed(lambda: Palace.open(hostile, cache=False), 3)
        except Exception as exc:  # the failure this row exists to show (a tree before the fix)
            bad, note = [float("nan")], f"crashed: {type(exc).__name__}: {str(exc)[:80]}"
    rows = [
        row(
            "core",
            f"load {HOSTILE_FILES:,} hostile files ({HOSTILE_SIZE // 1024} KiB each), cold",
            bad,
            baseline=f"load {HOSTILE_FILES:,} plain notes, cold",
            baseline_ms=_median_ms(base),
            note=note,
        )
    ]
    slowest, worst = 0.0, ""
    for name, make in gen_hostile.CLASSES.items():
        data = make(gen_hostile.MIB - 4096)
        start = time.perf_counter()
        try:
            parse_note(f"notes/{name}.md", data)
        except Exception as exc:
            name = f"{name} crashed ({type(exc).__name__})"
        took = time.perf_counter() - start
        if took > slowest:
            slowest, worst = took, name
    rows.append(
        row(
            "core",
            "parse one 1 MiB hostile file, slowest class",
            [slowest],
            target_ms=1000,
            note=f"slowest: {worst}",
            ratio="",
        )
    )
    return rows


def _times_any_exit(argv: list[str], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(argv, capture_output=True)
        out.append(time.perf_counter() - start)
    return out


def whole_process_rows(
    palace: Path, rounds: int = 3, untuned: str = "", before: Path | None = None
) -> list[Row]:
    """`curator list` with a cold cache (the notes cache removed before each run) and
    `curator check` after it (the first reads every note's links and caches them; the second
    reads them from the links cache), each a whole process, against the floor process (read
    every file and parse every header with PyYAML's C loader), interleaved round by round so
    they share the machine's load; each row with its median, its ratio and the peak memory
    of each. With
    `untuned` (tricks of `curator.runtime`, as CURATOR_NO_TUNING names them), also the cold
    list with those tricks off, in the same rounds: what they buy. With `before` (another
    checkout of curator, an older commit), also the cold list that tree's code makes, in the
    same rounds: a before and after."""
    palace = palace.resolve()
    cli = [sys.executable, "-m", "curator", "--palace", str(palace)]
    here = str(Path(__file__).resolve().parent)
    floor_code = (
        f"import sys; sys.path.insert(0, {here!r}); from pathlib import Path; import bench_core; "
        "bench_core._pyyaml_floor(bench_core._files(Path(sys.argv[1])))"
    )
    runs: dict[str, list[tuple[float, float]]] = {
        "floor": [],
        "list": [],
        "check": [],
        "check again": [],
    }
    lists: dict[str, tuple[dict[str, str] | None, str | None]] = {
        "list": (None, None),
        "untuned": ({**os.environ, "CURATOR_NO_TUNING": untuned}, None),
    }
    if before is not None:  # that tree's package first: run from it, with it on the path
        tree = str(before.resolve())
        lists["before"] = ({**os.environ, "PYTHONPATH": tree}, tree)
    for turn in range(rounds):
        runs["floor"].append(_peak_process([sys.executable, "-c", floor_code, str(palace)]))
        # each variant first in turn (the machine's load drifts in a round)
        order = ["list", *(["untuned"] if untuned else []), *(["before"] if before else [])]
        for name in order[turn % len(order) :] + order[: turn % len(order)]:
            _clear_cache(palace)
            env, cwd = lists[name]
            runs.setdefault(name, []).append(_peak_process([*cli, "list"], env, cwd))
        runs["check"].append(_peak_process([*cli, "check", "--quiet"]))  # exits 1: broken links
        runs["check again"].append(_peak_process([*cli, "check", "--quiet"]))
    floor = [s for s, _ in runs["floor"]]
    floor_peak = max(mb for _, mb in runs["floor"])
    rows = []
    for name, metric in (
        ("list", "curator list, cold cache, whole process"),
        ("check", "curator check, whole process, first after the cold list"),
        ("check again", "curator check, whole process, links cached"),
        ("untuned", f"curator list, cold cache, CURATOR_NO_TUNING={untuned}"),
        ("before", f"curator list, cold cache, the code at {before}"),
    ):
        if name not in runs:
            continue
        seconds = [s for s, _ in runs[name]]
        peak = max(mb for _, mb in runs[name])
        rows.append(
            row(
                "core",
                metric,
                seconds,
                baseline="a process reading every file + parsing every header (PyYAML C)",
                baseline_ms=_median_ms(floor),
                note=f"{_median_ms(seconds) / _median_ms(floor):.2f}x the floor; peak "
                f"{peak:,.0f} MB (floor's {floor_peak:,.0f} MB); target 1.5x, < 700 MB",
            )
        )
    return rows


def _peak_process(
    argv: list[str], env: dict[str, str] | None = None, cwd: str | None = None
) -> tuple[float, float]:
    """Wall seconds and peak memory (MB, GNU time's maximum resident set) of one process,
    whatever it exits with."""
    start = time.perf_counter()
    argv = ["/usr/bin/time", "-f", "%M", *argv]
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd)
    seconds = time.perf_counter() - start
    return seconds, int(proc.stderr.strip().splitlines()[-1]) / 1024


if __name__ == "__main__":
    if "--whole" in sys.argv:  # only the whole-process rows (at 100k, the rest takes long)
        import argparse

        parser = argparse.ArgumentParser(description=whole_process_rows.__doc__)
        parser.add_argument("--whole", action="store_true")
        parser.add_argument("--palace", type=Path, required=True)
        parser.add_argument("--notes", type=int, required=True)
        parser.add_argument("--rounds", type=int, default=3)
        parser.add_argument(
            "--untuned",
            default="",
            help="also list with these tricks off (CURATOR_NO_TUNING's form, e.g. pause)",
        )
        parser.add_argument("--hog", action="store_true", help="a busy loop per core beside it")
        parser.add_argument(
            "--before", type=Path, help="also list with the curator of this checkout (before)"
        )
        args = parser.parse_args()
        load = os.getloadavg()[0]
        with cpu_hog() if args.hog else contextlib.nullcontext():
            found = whole_process_rows(args.palace, args.rounds, args.untuned, args.before)
        for r in found:
            print(f"{r.metric}: {r.median_ms:.0f} ms, floor {r.baseline_ms:.0f} ms; {r.note}")
        print(
            f"{args.notes} notes{', a CPU hog per core' if args.hog else ''}; load {load:.1f} at "
            f"the start, {os.getloadavg()[0]:.1f} at the end"
        )
    else:
        main_for(run)
