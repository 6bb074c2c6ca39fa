"""Promote at N notes, a whole `curator promote DRAFT --yes` process (plan, INDEX.md, commit,
index sync), against its floor run alternately with it: a process applying curator's own
promote commit (`git diff --binary HEAD~1 HEAD` of it: the note added and INDEX.md's room
section gaining its line) with `git apply --index` and `git commit`, then embedding the note
once and upserting one row into a copy of the palace's LanceDB table (the libraries alone
doing the same job).

    python benchmarks/bench_promote.py --palace P --notes N [--rounds 6] [--hog]

Prints median and p95 of each, the ratio, each side's largest peak memory and the load. The
first promote is a warm-up (it renders INDEX.md in full; the next ones re-render the rooms
they touch).

The floor commits in a copy of the palace (`floor_palace`: `cp -a`, made untimed once), put
back untimed before each floor run at a commit holding the very tree curator promoted from:
its git index and working tree are the palace's size, and nothing the floor does reaches
the palace curator uses (its next action would find files and index rows its record knew
nothing of, and reconcile). The copy has its own objects, so the floor writes INDEX.md's new
blob as curator's commit did, never finding curator's. Each round's draft gets a description
of its own first (untimed): a draft promoted by an earlier run made the same INDEX.md again,
whose blob git found stored and did not compress again (~0.27 s of CPU at 100k notes), a
cost every real promote pays.

The old floor is measured too, labelled as such: a patch adding one new note only (no
INDEX.md), in the same copy.

Each round then undoes its promote, `curator undo --yes` (a whole process), against its floor:
`git revert` of the undo's own commit (the same files back again) and the index following it
with one embed, one upsert and one delete; the floor's revert is dropped untimed. The floors
write a copy of the palace's table (`floor_table`), never the palace's own index."""

from __future__ import annotations

import contextlib
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from benchutil import Row, cpu_hog, floor_args, floor_row, report  # noqa: E402

_PEAK = """
def _peak_mb():
    from pathlib import Path
    status = Path("/proc/self/status").read_text()
    return int(next(l.split()[1] for l in status.splitlines() if l.startswith("VmHWM:"))) / 1024
"""

_CURATOR = (
    _PEAK
    + """
import os, runpy, sys
sys.argv = ["curator", *sys.argv[1:]]
code = 0
try:
    runpy.run_module("curator", run_name="__main__", alter_sys=True)
except SystemExit as exc:
    code = exc.code or 0
os.write(2, f"\\nPEAK {_peak_mb()}\\n".encode())
sys.exit(code)
"""
)

_UPSERT = """
import lancedb
from curator.config import load_config
from curator.search.embed import get_embedder
from curator.search.state import STATE_FILE, IndexState
settings = load_config(root).index
embedder = get_embedder(settings.embedder, settings.dim)
state = IndexState.from_json((index / STATE_FILE).read_bytes())
table = lancedb.connect(str(index)).open_table(state.table)
text = (root / rel).read_text()
row = table.search().limit(1).to_list()[0]
row.update(path=rel, slug=Path(rel).stem, body=text, text=text, vector=embedder.embed([text])[0])
row.pop("_rowid", None)
table.merge_insert("path").when_matched_update_all().when_not_matched_insert_all().execute([row])
"""  # the note at `rel` embedded once and upserted into a copy of the palace's table (`index`)

_FLOOR = (
    _PEAK
    + """
import os, subprocess, sys
from pathlib import Path
root, patch, rel, index = Path(sys.argv[1]), sys.argv[2], sys.argv[3], Path(sys.argv[4])
subprocess.run(["git", "apply", "--index", patch], cwd=root, check=True)
subprocess.run(["git", "commit", "-q", "--no-verify", "-m", "floor " + rel], cwd=root, check=True)
"""
    + _UPSERT
    + """
os.write(2, f"\\nPEAK {_peak_mb()}\\n".encode())
"""
)

_FLOOR_UNDO = (
    _PEAK
    + """
import os, subprocess, sys
from pathlib import Path
root, rel, gone, index = Path(sys.argv[1]), sys.argv[2], sys.argv[3], Path(sys.argv[4])
subprocess.run(["git", "revert", "--no-edit", "HEAD"], cwd=root, check=True, capture_output=True)
"""
    + _UPSERT
    + """
table.delete("path = '" + gone.replace("'", "''") + "'")
os.write(2, f"\\nPEAK {_peak_mb()}\\n".encode())
"""
)


CPU: dict[str, list[float]] = {}  # CPU seconds (user + system, the process and its children)


def _run(argv: list[str], name: str = "", untuned: str = "") -> tuple[float, float]:
    """(seconds, peak MB) of one process; `untuned`: the tricks CURATOR_NO_TUNING turns off."""
    env = {**os.environ, "CURATOR_NO_TUNING": untuned} if untuned else None
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env)
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[:4]} exited {proc.returncode}: {proc.stderr[-600:]}")
    cpu = after.ru_utime - used.ru_utime + after.ru_stime - used.ru_stime
    CPU.setdefault(name, []).append(cpu)
    peak = float(proc.stderr.rsplit("PEAK ", 1)[1].split()[0])
    return took, peak


def _cpu(name: str, floor: str) -> str:
    """The median CPU seconds of `name`'s runs against `floor`'s, warm-up dropped: the
    figure the machine's load does not inflate as it does wall time."""
    ours, theirs = (
        statistics.median(CPU[k][1:] if k != "unfrozen" else CPU[k]) for k in (name, floor)
    )
    return f"CPU {ours:.2f} s against the floor's {theirs:.2f} s ({ours / theirs:.2f}x)"


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def _floor_patch(root: Path, i: int, text: str) -> tuple[str, str]:
    """A patch adding one note like a promoted draft (made untimed), and its path."""
    rel = f"notes/project/floor-{time.time_ns()}-{i}.md"
    (root / rel).write_text(text.replace("name: ", f"name: Floor {i} ", 1))
    _git(root, "add", "--", rel)
    patch = _git(root, "diff", "--cached", "--binary")
    _git(root, "reset", "-q", "--", rel)
    (root / rel).unlink()
    path = root.parent / f".floor-{i}.patch"
    path.write_text(patch)
    return str(path), rel


def floor_palace(root: Path) -> tuple[Path, str]:
    """(a copy of the palace for the promote floor to commit in, the commit it starts at), made
    untimed once: `cp -a`, then git's index refreshed (the copy's files have their own inodes
    and change times, which git's index compares). Its own objects: the floor stores
    INDEX.md's new blob itself, as curator's commit did."""
    copy = root.parent / f".floor-palace-{root.name}"
    shutil.rmtree(copy, ignore_errors=True)
    subprocess.run(["cp", "-a", str(root), str(copy)], check=True)
    shutil.rmtree(copy / ".curator", ignore_errors=True)  # curator's state: the floor has none
    _git(copy, "reset", "-q", "--hard", "HEAD")
    return copy, _git(copy, "rev-parse", "HEAD").strip()


def _floor_at(copy: Path, base: str, root: Path) -> None:
    """The floor's copy put back (untimed) at `base`, which must hold the tree curator's
    promote started from (HEAD~1 of the palace): an undo gives back the same tree."""
    _git(copy, "reset", "-q", "--hard", base)
    want = _git(root, "rev-parse", "HEAD~1^{tree}")
    if _git(copy, "rev-parse", "HEAD^{tree}") != want:
        raise SystemExit("the palace's tree before the promote is not the floor copy's")


def _promoted_patch(root: Path, i: int) -> str:
    """curator's promote commit (HEAD) as a patch for `git apply --index` (made untimed)."""
    path = root.parent / f".promoted-{i}.patch"
    path.write_text(_git(root, "diff", "--binary", "--no-renames", "HEAD~1", "HEAD"))
    return str(path)


def _described_anew(root: Path, draft: str) -> None:
    """The draft's description given a mark of this run (untimed): INDEX.md's line, and so its
    blob, is one no earlier run made (an earlier run's undo put the draft back as it was)."""
    path = root / draft
    text = path.read_text()
    mark = f" (pass {time.time_ns() // 1_000_000 % 100_000_000})"
    described = re.sub(r"(?m)^(description: .*?)(?: \(pass \d+\))?$", rf"\1{mark}", text, count=1)
    if described == text:
        raise SystemExit(f"{draft} has no description line to mark")
    path.write_text(described)


def floor_table(root: Path) -> str:
    """A copy of the palace's index for the floor to write (made untimed, once): the floor's
    upserts and deletes never reach the palace's own index, whose files the untimed reset after
    each floor puts back. Written there, they left rows curator's record knew nothing of (a
    draft's row deleted), and curator's next sync reconciled the whole palace instead of
    following its commit: a cost no palace has that only curator writes to."""
    from curator.search.index import index_dir

    copy = root.parent / f".floor-index-{root.name}"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(index_dir(root), copy)
    return str(copy)


def compiled() -> None:
    """curator's modules compiled to bytecode first (untimed), as an installed package has
    them: with PYTHONDONTWRITEBYTECODE set (as some shells and CI set it), a source tree's
    processes compiled every module they imported again each time (~0.5 s of a promote, a
    few of the floor's), a cost no installed curator pays."""
    import compileall

    import curator

    compileall.compile_dir(str(Path(curator.__file__).parent), quiet=1)


def run(palace: Path, notes: int, rounds: int = 6) -> list[Row]:
    from curator.errors import CuratorError
    from curator.model.palace import Palace
    from curator.writer.actions.promote import plan_promote

    compiled()
    root = palace.resolve()
    loaded = Palace.open(root)
    drafts = []
    for draft in sorted(d.rel for d in loaded.drafts):
        try:
            plan_promote(loaded, draft)
        except CuratorError:
            continue
        drafts.append(draft)
    if len(drafts) < rounds + 1:
        raise SystemExit(f"{len(drafts)} drafts promote as they stand; {rounds + 1} needed")
    sample = (root / drafts[0]).read_text()
    del loaded
    floor_index = floor_table(root)
    copy, base = floor_palace(root)
    env_py = [sys.executable, "-c"]
    curator: list[float] = []
    floor: list[float] = []
    floor_note: list[float] = []  # the old floor: one new note only
    unfrozen: list[float] = []  # promotes with CURATOR_NO_TUNING=freeze, every other round
    undo: list[float] = []
    undo_floor: list[float] = []
    peaks = {"curator": 0.0, "floor": 0.0, "floor_note": 0.0, "undo": 0.0, "undo_floor": 0.0}
    load = [os.getloadavg()[0]]
    for i, draft in enumerate(drafts[: rounds + 1]):
        frozen = i % 2 == 0  # round 0 (the warm-up) with the freeze
        _described_anew(root, draft)
        took, peak = _run(
            [*env_py, _CURATOR, "--palace", str(root), "promote", draft, "--yes"],
            "promote" if frozen else "unfrozen",
            "" if frozen else "freeze",
        )
        added = ("diff", "--name-only", "--no-renames", "--diff-filter=A", "HEAD~1", "HEAD")
        promoted = _git(root, *added)
        note = next(p for p in promoted.split() if p.startswith("notes/"))
        patch = _promoted_patch(root, i)
        _floor_at(copy, base, root)
        f_took, f_peak = _run([*env_py, _FLOOR, str(copy), patch, note, floor_index], "floor")
        _floor_at(copy, base, root)
        patch, rel = _floor_patch(copy, i, sample)
        n_took, n_peak = _run([*env_py, _FLOOR, str(copy), patch, rel, floor_index], "floor_note")
        u_took, u_peak = _run([*env_py, _CURATOR, "--palace", str(root), "undo", "--yes"], "undo")
        uf_took, uf_peak = _run(
            [*env_py, _FLOOR_UNDO, str(root), note, draft, floor_index], "undo_floor"
        )
        _git(root, "reset", "-q", "--keep", "HEAD~1")  # untimed: the undo stands
        if i == 0:
            continue  # warm-up: page cache, the palace cache, the first full INDEX.md
        (curator if frozen else unfrozen).append(took)
        floor.append(f_took)
        floor_note.append(n_took)
        undo.append(u_took)
        undo_floor.append(uf_took)
        for key, value in (
            ("curator", peak),
            ("floor", f_peak),
            ("floor_note", n_peak),
            ("undo", u_peak),
            ("undo_floor", uf_peak),
        ):
            peaks[key] = max(peaks[key], value)
    load.append(os.getloadavg()[0])
    shutil.rmtree(floor_index, ignore_errors=True)
    shutil.rmtree(copy, ignore_errors=True)
    loads = f"load {load[0]:.1f} then {load[1]:.1f}"
    return [
        floor_row(
            "writer",
            f"promote, whole process ({notes:,} notes)",
            curator,
            floor,
            "curator's promote commit by git apply --index + git commit, one embed + one "
            "LanceDB upsert (process)",
            f"{_cpu('promote', 'floor')}; "
            f"peak {peaks['curator']:.0f} MB against the floor's {peaks['floor']:.0f} MB; {loads}",
        ),
        floor_row(
            "writer",
            f"promote against the old floor, one new note only ({notes:,} notes)",
            curator,
            floor_note,
            "a patch adding one note (no INDEX.md) by git apply --index + git commit, one "
            "embed + one LanceDB upsert (process)",
            f"{_cpu('promote', 'floor_note')}; "
            f"peak {peaks['curator']:.0f} MB against the floor's {peaks['floor_note']:.0f} MB; "
            f"{loads}",
        ),
        floor_row(
            "writer",
            f"promote without the freeze (CURATOR_NO_TUNING=freeze), ({notes:,} notes)",
            unfrozen,
            floor,
            "as the promote row, every other round",
            f"{_cpu('unfrozen', 'floor')}; {loads}",
        ),
        floor_row(
            "writer",
            f"undo of a promote, whole process ({notes:,} notes)",
            undo,
            undo_floor,
            "git revert + one embed + one LanceDB upsert + one delete (process)",
            f"{_cpu('undo', 'undo_floor')}; peak {peaks['undo']:.0f} MB against the "
            f"floor's {peaks['undo_floor']:.0f} MB; {loads}",
        ),
    ]


def main() -> int:
    args = floor_args(__doc__.splitlines()[0], 6, hog=True)
    with cpu_hog() if args.hog else contextlib.nullcontext():
        rows = run(args.palace, args.notes, args.rounds)
    report(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
