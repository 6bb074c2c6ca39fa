"""Benchmarks: `python benchmarks/run.py --notes 10000 [--areas core,writer,search,audit,app]`.

Generates (or reuses) a synthetic palace under benchmarks/out/, copies it to a scratch folder
for every area (writers commit to it), runs each `bench_<area>.py` in its own process and
prints median and p95 timings, the target, a baseline measured in the same run, and the peak
memory of each area's process. Timings are medians: this machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gen_palace import generate  # noqa: E402

AREAS = [
    "core", "capture", "writer", "search", "audit", "app", "agents", "tasks", "layouts", "sync",
]  # fmt: skip


def palace_for(notes: int) -> Path:
    out = HERE / "out" / f"palace-{notes}"
    if not (out / ".done").exists():
        if out.exists():
            shutil.rmtree(out)
        start = time.perf_counter()
        generate(out, notes=notes, drafts=80, seed=1, git=True)  # 20 promotes + a bulk of 50
        (out / ".done").write_text("")
        print(f"generated {notes} notes in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return out


def run_area(area: str, palace: Path, notes: int) -> tuple[list[dict], float | None, str]:
    script = HERE / f"bench_{area}.py"
    if not script.exists():
        return [], None, f"{script.name} missing"
    scratch = Path(tempfile.mkdtemp(prefix=f"curator-bench-{area}-")) / "palace"
    shutil.copytree(palace, scratch, symlinks=True, ignore=shutil.ignore_patterns(".curator"))
    try:
        proc = subprocess.run(
            [sys.executable, str(script), "--palace", str(scratch), "--notes", str(notes)],
            capture_output=True,
            text=True,
        )
    finally:
        shutil.rmtree(scratch.parent, ignore_errors=True)
    rows, peak = [], None
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            data = json.loads(line)
            if "row" in data:
                rows.append(data["row"])
            elif "peak_rss_mb" in data:
                peak = data["peak_rss_mb"]
    problem = (
        "" if proc.returncode == 0 else f"exit {proc.returncode}: {proc.stderr.strip()[-800:]}"
    )
    return rows, peak, problem


def _ratio(r: dict) -> str:
    """` (1.7x)`: the figure against its baseline, so noisy runs compare like with like."""
    base, median, how = r.get("baseline_ms"), r["median_ms"], r.get("ratio", "x")
    if not base or not median or not how:
        return ""
    if how == "faster":
        return f" ({base / median:.1f}x faster)"
    return f" ({median / base:.2f}x)"


def fmt(value: float | None) -> str:
    return "" if value is None else f"{value:,.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10000)
    parser.add_argument("--areas", default=",".join(AREAS))
    args = parser.parse_args()
    palace = palace_for(args.notes)
    print(f"\ncurator benchmarks at {args.notes:,} notes (medians; ms)\n")
    header = (
        f"{'area':<7} {'metric':<44} {'median':>9} {'p95':>9} {'target':>8} {'ok':>3}  "
        f"{'baseline (same run)':<34} {'peak MB':>8}"
    )
    print(header)
    print("-" * len(header))
    failed = False
    for area in args.areas.split(","):
        rows, peak, problem = run_area(area.strip(), palace, args.notes)
        for r in rows:
            ok = (
                ""
                if r["target_ms"] is None
                else ("yes" if r["median_ms"] <= r["target_ms"] else "NO")
            )
            base = f"{r['baseline']}: {fmt(r['baseline_ms'])}" if r["baseline"] else ""
            base += _ratio(r)
            print(
                f"{area:<7} {r['metric']:<44} {fmt(r['median_ms']):>9} {fmt(r['p95_ms']):>9} "
                f"{fmt(r['target_ms']):>8} {ok:>3}  {base:<34} {fmt(peak):>8}"
            )
            if r.get("baseline_source"):
                print(f"{'':<8}  baseline published, not measured here: {r['baseline_source']}")
            if r["note"]:
                print(f"{'':<8}  {r['note']}")
        if problem:
            failed = True
            print(f"{area:<7} FAILED: {problem}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
