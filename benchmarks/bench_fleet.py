"""An inbox a fleet of agents filled (issue 36): 2,000 drafts in known near-duplicate groups,
cleared by a scripted reviewer driving the real app through Pilot.

    python benchmarks/bench_fleet.py [--notes 10000] [--drafts 2000] [--app-notes 1000]
                                     [--undo 10] [--repeat 3] [--seed 1]

Two palaces are generated: one of `--notes` notes where grouping is timed (the inbox's `G`:
`Searcher.draft_groups`, median of `--repeat`) against a floor measured in the same run, the
near-duplicate rule alone (`curator.model.similar.score`) once for every draft; and one of
`--app-notes` notes (each commit renders INDEX.md and reloads the palace: at 10k notes a
170-commit session takes long) where the reviewer works. Every palace
gets the same inbox: groups of 4 to 20 drafts telling one thing (a few words changed, a detail
added), some restating a note the palace holds, and a few drafts alike nothing.

The reviewer presses `G`, then for each group the key its known decision takes (`p` promote the
best and reject the rest, `m` merge into one note, `f` fold into the note) and `y` in the plan
dialog. It counts keystrokes, wrong decisions (a group listed that is not exactly a known group,
or a file left that the decision should not leave), commits (one a group), and undoes the last
`--undo` groups (0: all) through History, checking every file is back byte for byte.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from gen_palace import generate  # noqa: E402

KEYS = {"keep": "p", "merge": "m", "fold": "f"}
_CONSONANTS = "bdfgklmnprstvz"
_VOWELS = "aeiou"
DRAFT_LINE = "> DRAFT — unreviewed, NOT a rule until a reviewer promotes it."
#: files that are not the palace's bytes: git's, the writer's lock and journal, the index, caches
NOT_COMPARED = (
    ".git/",
    ".curator/writer.lock",
    ".curator/journal",
    ".curator/index",
    ".curator/cache",
)


@dataclass
class Group:
    decision: str  # keep | merge | fold
    drafts: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    into: str = ""  # the note a fold group restates


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(_CONSONANTS) + rng.choice(_VOWELS) for _ in range(rng.randint(2, 4)))


def _words(rng: random.Random, n: int) -> str:
    return " ".join(_word(rng) for _ in range(n))


def _draft(name: str, description: str, body: str, n: int) -> str:
    day = 1 + n % 28
    return (
        f"---\nname: {name}\ndescription: {description}\ntype: project\nstatus: draft\n"
        f"created: 2026-11-{day:02d}T{n % 24:02d}:{n % 60:02d}:00Z\n"
        f"source: {{session: sess-fleet-{n % 97:03d}, run: run-{n}}}\n---\n"
        f"{DRAFT_LINE}\n\n{body}\n"
    )


def write_inbox(root: Path, drafts: int, seed: int) -> list[Group]:
    """The fleet's inbox in `root` (notes for the fold groups committed): the known groups."""
    rng = random.Random(seed)
    groups: list[Group] = []
    left, n = drafts, 0
    (root / "inbox").mkdir(exist_ok=True)
    (root / "notes" / "project").mkdir(parents=True, exist_ok=True)
    while left:
        size = 1 if left < 4 or rng.random() < 0.05 else min(left, rng.randint(4, 20))
        decision = "keep" if size == 1 else rng.choice(("keep", "keep", "merge", "fold"))
        group = Group(decision)
        name, desc, body = _words(rng, 5).capitalize(), _words(rng, 12), _words(rng, 30)
        if decision == "fold":
            group.into = f"notes/project/fleet-{len(groups):04d}.md"
            (root / group.into).write_text(
                f"---\nname: {name}\ndescription: {desc}\ntype: project\n---\n{body}\n"
            )
        for i in range(size):
            own = name if i % 2 else f"{name} {_word(rng)}"
            rel = f"inbox/fleet-{n:05d}.md"
            (root / rel).write_text(_draft(own, desc, f"{body} {_words(rng, 6)}", n))
            group.drafts.append(rel)
            group.names.append(own)
            n += 1
        left -= size
        groups.append(group)
    subprocess.run(["git", "add", "-A", "notes"], cwd=root, check=True)
    subprocess.run(
        ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-q",
         "-m", "fleet: the notes some drafts restate"],
        cwd=root,
        check=True,
    )  # fmt: skip
    return groups


def make_palace(base: Path, notes: int, drafts: int, seed: int) -> tuple[Path, list[Group]]:
    root = base / f"palace-{notes}"
    generate(root, notes=notes, drafts=1, seed=seed, git=True)  # (0 drafts: no inbox/)
    subprocess.run(["git", "rm", "-q", "inbox/draft-0000.md"], cwd=root, check=True)
    groups = write_inbox(root, drafts, seed)
    subprocess.run(
        [sys.executable, "-m", "curator", "reindex", "--palace", str(root)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return root, groups


# -- grouping against its floor ----------------------------------------------------------------
def time_grouping(
    root: Path, repeat: int
) -> tuple[list[float], list[float], list[float], list[float], int]:
    """Seconds of each grouping and of the rule alone once a draft, wall and CPU (all threads:
    on two shared cores the wall time follows the load, the CPU time does not), groups made."""
    from curator.model.similar import score
    from curator.session import Session

    session = Session.open(root)
    searcher = session.searcher()
    made = searcher.draft_groups()  # warm: the index opened, LanceDB imported
    grouping, floor, grouping_cpu, floor_cpu = [], [], [], []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        made = searcher.draft_groups()
        grouping.append(time.perf_counter() - start)
        grouping_cpu.append(time.process_time() - cpu)
    # the floor: the rule alone (`score`, as capture calls it) once for every draft, against
    # one other row: the least any grouping by the rule does
    store = searcher.source.store
    assert store is not None
    rows = store.all_rows()
    drafts = [r for r in rows if r.get("kind") == "draft"]
    b = rows[0]
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        for a in drafts:
            score(a["name"], a["description"], b["name"], b["description"], a["body"], b["body"])
        floor.append(time.perf_counter() - start)
        floor_cpu.append(time.process_time() - cpu)
    return grouping, floor, grouping_cpu, floor_cpu, len(made)


# -- the scripted reviewer ---------------------------------------------------------------------
def tree(root: Path) -> dict[str, bytes]:
    out = {}
    for path in root.rglob("*"):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not rel.startswith(NOT_COMPARED):
            out[rel] = path.read_bytes()
    return out


def commits(root: Path) -> int:
    out = subprocess.run(
        ["git", "rev-list", "--count", "HEAD"], cwd=root, capture_output=True, text=True
    )
    return int(out.stdout.strip())


async def until(cond: Any, timeout: float = 300.0) -> None:
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise TimeoutError("the app did not get there")
        await asyncio.sleep(0.02)


async def review(root: Path, groups: list[Group], undo: int) -> dict[str, Any]:
    from textual.widgets import DataTable

    from curator.ui.app import CuratorApp
    from curator.ui.screens.history import HistoryScreen
    from curator.ui.screens.inbox import InboxScreen

    truth = {rel: g for g in groups for rel in g.drafts}
    keys = wrong = decided = 0
    before: dict[str, bytes] = {}
    undo = undo or len(groups)
    app = CuratorApp(root, watch=False)
    start_commits = commits(root)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, InboxScreen)
        await until(lambda: len(screen.marks.shown) == len(truth))
        await pilot.press("G")
        keys += 1
        await until(lambda: screen.groups and not screen.grouping)
        while screen.marks.shown:
            group = screen.group_of(screen.marks.current_key())
            assert group is not None
            known = truth[group.drafts[0]]
            if set(group.drafts) != set(known.drafts) or group.into != known.into:
                wrong += 1
            if decided == len(groups) - undo:
                before = tree(root)
            count = commits(root)
            await pilot.press(KEYS[known.decision])
            await until(lambda: getattr(app.screen, "plan", None) is not None)
            await pilot.press("y")
            keys += 2
            await until(lambda c=count: commits(root) == c + 1)
            decided += 1
            gone = group.drafts[0]
            await until(lambda g=gone: g not in screen.marks.shown and not screen.grouping)
        made = commits(root) - start_commits
        wrong += sum(not _outcome_right(root, g) for g in groups)
        await pilot.press("5")
        await until(lambda: isinstance(app.screen, HistoryScreen))
        history = app.screen
        table = history.query_one(DataTable)
        await until(lambda: table.row_count >= undo)
        rows = table.row_count
        undo_start = time.perf_counter()
        for i in range(undo):
            await until(lambda n=rows + i: table.row_count >= n)
            table.move_cursor(row=2 * i)
            count = commits(root)
            await pilot.press("u")
            await until(lambda: getattr(app.screen, "plan", None) is not None)
            await pilot.press("y")
            await until(lambda c=count: commits(root) == c + 1)
        undo_seconds = time.perf_counter() - undo_start
        after = tree(root)
    return {
        **figures(keys, wrong, decided, made, undo, before, after),
        "undo_seconds": undo_seconds,
    }


def figures(
    keys: int,
    wrong: int,
    groups: int,
    made: int,
    undone: int,
    before: dict[str, bytes],
    after: dict[str, bytes],
) -> dict[str, Any]:
    """What a reviewer's run shows against issue 36's figures (the undo exact: every file of
    `before` back in `after`, byte for byte)."""
    differs = sorted(set(before) ^ set(after) | {k for k in before if after.get(k) != before[k]})
    return {
        "keys": keys,
        "wrong": wrong,
        "groups": groups,
        "commits": made,
        "undone": undone,
        "undo_exact": not differs,
        "undo_differs": differs[:5],
    }


def _outcome_right(root: Path, group: Group) -> bool:
    """The files a group's decision leaves: its drafts out of the inbox, and where they went."""
    if any((root / rel).exists() for rel in group.drafts):
        return False
    slugs = [Path(rel).name for rel in group.drafts]
    promoted = [s for s in slugs if (root / ".curator" / "promoted" / s).exists()]
    rejected = [s for s in slugs if (root / ".curator" / "rejected" / s).exists()]
    merged = [s for s in slugs if (root / ".curator" / "merged" / s).exists()]
    if group.decision == "keep":
        return len(promoted) == 1 and len(rejected) == len(slugs) - 1
    if group.decision == "merge":
        return len(promoted) == 1 and len(merged) == len(slugs) - 1
    text = (root / group.into).read_text()
    return len(merged) == len(slugs) and all(
        f"Merged from draft: {name}" in text for name in group.names
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--notes", type=int, default=10_000, help="notes where grouping is timed")
    ap.add_argument("--app-notes", type=int, default=1000, help="notes where the reviewer works")
    ap.add_argument("--drafts", type=int, default=2000)
    ap.add_argument("--undo", type=int, default=10, help="groups undone at the end (0: all)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--grouping-only", action="store_true", help="time grouping, no reviewer")
    args = ap.parse_args(argv)
    base = Path(tempfile.mkdtemp(prefix="curator-fleet-"))
    os.environ.setdefault("CURATOR_CACHE_HOME", str(base / "cache"))
    try:
        root, groups = make_palace(base, args.notes, args.drafts, args.seed)
        grouping, floor, grouping_cpu, floor_cpu, made = time_grouping(root, args.repeat)
        g, f = statistics.median(grouping), statistics.median(floor)
        gc, fc = statistics.median(grouping_cpu), statistics.median(floor_cpu)
        print(f"load: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores")
        print(flush=True)
        print(
            f"grouping {args.drafts} drafts at {args.notes} notes: median {g:.2f} s "
            f"(target 2 s), floor (the rule alone, once a draft) "
            f"{f:.2f} s, ratio {g / f:.2f}x; CPU {gc:.2f} s against {fc:.2f} s "
            f"({gc / fc:.2f}x); {made} groups made, {len(groups)} known"
        )
        if args.grouping_only:
            return 0 if g < 2.0 else 1
        if args.app_notes != args.notes:
            shutil.rmtree(root)
            root, groups = make_palace(base, args.app_notes, args.drafts, args.seed)
        start = time.perf_counter()
        out = asyncio.run(review(root, groups, args.undo))
        took = time.perf_counter() - start
        print(
            f"scripted reviewer at {args.app_notes} notes, 80x24: {args.drafts} drafts in "
            f"{out['groups']} groups cleared in {out['keys']} keystrokes (target < 400), "
            f"{out['wrong']} wrong decisions, {out['commits']} commits "
            f"({'one a group' if out['commits'] == out['groups'] else 'NOT one a group'}), "
            f"{took:.0f} s"
        )
        print(
            f"undo of the last {out['undone']} groups through History: "
            f"{'every file back byte for byte' if out['undo_exact'] else 'NOT exact'} "
            f"{out['undo_differs'] or ''}({out['undo_seconds']:.0f} s)"
        )
        ok = (
            g < 2.0
            and out["keys"] < 400
            and not out["wrong"]
            and out["commits"] == out["groups"]
            and out["undo_exact"]
        )
        return 0 if ok else 1
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
