"""The app at N notes, headless: first paint of the inbox and the inbox populated, each in a
fresh process from interpreter start (imports included); keystroke to updated search results;
promote from confirming the plan to the notification naming the commit; merge key to the
merge's editor right after a promote (app_pilot.merge_session). This process runs the app
through the search and promote steps, so its peak memory is the app's."""

from __future__ import annotations

import asyncio
import functools
import gc
import itertools
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from app_pilot import (
    merge_session,
    promote_by_keys,
    recorded,
    screen_paints,
    until,
    untuned_paints,
)
from benchutil import REPO, Row, process_times, row
from gen_palace import COMPONENTS, OBJECTS, TOOLS

# Run in a fresh interpreter: prints "paint" when the first frame is on screen (App.Ready)
# and "populated" once the palace is loaded and the inbox table drawn from it.
CHILD = """
import sys, time
from pathlib import Path
from curator.ui.app import CuratorApp

class Timed(CuratorApp):
    def on_ready(self):
        print("paint", time.perf_counter(), flush=True)
        self.set_interval(0.005, self._check)

    def _check(self):
        if self.palace is not None and self.screen.query_one("#inbox-drafts").row_count:
            self.call_after_refresh(self._done)

    def _done(self):
        print("populated", time.perf_counter(), flush=True)
        self.exit()

Timed(Path(sys.argv[1]), watch=False).run(headless=True, size=(120, 40))
"""

KEYSTROKES = 36
PROMOTES = 20  # a reviewer clearing the inbox: memory must hold over a session
BULK = 50  # drafts rejected in one plan and one commit


def first_paint(palace: Path, repeat: int) -> tuple[list[float], list[float]]:
    """Seconds from process start to the first frame, and to the populated inbox."""
    paint, populated = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, str(palace)],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"app exited {proc.returncode}: {proc.stderr[-800:]}")
        marks = dict(line.split() for line in proc.stdout.splitlines() if line[:1].isalpha())
        # perf_counter is system-wide (CLOCK_MONOTONIC) on Linux: comparable across processes
        paint.append(float(marks["paint"]) - start)
        populated.append(float(marks["populated"]) - start)
    return paint, populated


def _mem(what: str) -> None:
    """Current and peak memory to stderr (for finding where it goes)."""
    with open("/proc/self/statm") as f:
        rss = int(f.read().split()[1]) * 4096 / 2**20
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{what}: rss {rss:.0f} MB, peak {peak:.0f} MB", file=sys.stderr)


def typed_words(count: int) -> list[str]:
    pool = list(itertools.chain(COMPONENTS, OBJECTS, TOOLS))
    words = [w.split()[0] for w in pool[::5]]
    out, total = [], 0
    for word in words:
        out.append(word)
        total += len(word)
        if total >= count:
            break
    return out


async def in_app(palace: Path) -> dict[str, Any]:
    from textual import events
    from textual.widgets import DataTable, Input

    from curator.ui import services
    from curator.ui.app import CuratorApp
    from curator.ui.screens.inbox import InboxScreen
    from curator.ui.screens.search import SearchScreen
    from curator.ui.widgets.dialogs import AskDialog

    shutil.rmtree(palace / ".curator" / "index", ignore_errors=True)  # the app builds it
    app = CuratorApp(palace, watch=False)
    notes = recorded(app)

    out: dict[str, Any] = {}
    async with app.run_test(size=(160, 50)) as pilot:
        start = time.perf_counter()
        await until(lambda: app.palace is not None)
        await until(lambda: app.session.index.ready and not app.indexing)
        out["index_ready_s"] = time.perf_counter() - start
        _mem("index ready")

        # -- keystroke to updated results
        await pilot.press("4")
        await until(lambda: isinstance(app.screen, SearchScreen))
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        box = screen.query_one("#search-query", Input)
        keys, base = [], []
        assert app.palace is not None
        searcher = app.session.searcher(app.palace)  # the app's: query.Searcher
        for word in typed_words(KEYSTROKES):
            box.value = ""
            await until(lambda: screen.shown is None or screen.shown[0] == "")
            for char in word:
                expected = box.value + char
                t0 = time.perf_counter()
                app.post_message(events.Key(char, char))
                await until(lambda e=expected: screen.shown is not None and screen.shown[0] == e)
                keys.append(time.perf_counter() - t0)
                t1 = time.perf_counter()
                searcher.search(expected, limit=30)
                base.append(time.perf_counter() - t1)
        out["keys"], out["search_call"] = keys, base
        _mem("searched")
        print(f"keys median {statistics.median(keys) * 1000:.0f} ms", file=sys.stderr)

        # -- promote: confirm the plan, wait for the notification naming the commit
        screen.set_focus(None)
        await pilot.press("1")
        await until(lambda: isinstance(app.screen, InboxScreen))
        promote: list[float] = []
        for row_index in range(PROMOTES * 4):
            if len(promote) >= PROMOTES:
                break
            inbox = app.screen
            assert isinstance(inbox, InboxScreen)
            await until(lambda: not app.indexing and all(w.is_finished for w in app.workers))
            table = inbox.query_one("#inbox-drafts", DataTable)
            table.focus()
            table.move_cursor(row=row_index - len(promote), animate=False)
            await pilot.pause(0.05)
            took = await promote_by_keys(app, pilot, notes)
            if took is None:  # this draft needs more than its defaults
                continue
            promote.append(took)
            _mem("promoted")
            await until(lambda: isinstance(app.screen, InboxScreen))
        out["promote"] = promote
        print(f"promote {[round(p * 1000) for p in promote]} ms", file=sys.stderr)
        out["notes"] = [m for _, m in notes if not m.startswith("Committed")]

        # -- bulk reject: mark BULK drafts, one reason, one plan, one commit
        inbox = app.screen
        assert isinstance(inbox, InboxScreen)
        await until(lambda: not app.indexing and all(w.is_finished for w in app.workers))
        rels = (inbox.listed or [])[:BULK]
        assert app.palace is not None
        t1 = time.perf_counter()
        services.plan_bulk(
            app.palace, "reject", rels, lambda p, r: services.plan_reject(p, r, "bulk"), "bulk"
        )
        out["bulk_plan"] = [time.perf_counter() - t1]
        inbox.marks.mark(rels)
        seen = len(notes)
        await pilot.press("x")
        await until(lambda: isinstance(app.screen, AskDialog))
        await pilot.press(*"bulk")  # the reviewer's typing is not the app's time
        t0 = time.perf_counter()
        assert app._driver is not None
        app._driver.send_message(events.Key("enter", "\r"))  # then y as soon as the reason
        await until(lambda: not isinstance(app.screen, AskDialog))  # dialog has closed: the
        app._driver.send_message(events.Key("y", "y"))  # plan dialog takes it, plan or not
        await until(lambda s=seen: any(m.startswith("Committed") for _, m in notes[s:]), 60)
        out["bulk"] = [next(t for t, m in notes[seen:] if m.startswith("Committed")) - t0]
        out["bulk_count"] = len(rels)
    return out


def merge_rows(palace: Path, _notes: int = 0) -> list[Row]:
    """The merge row alone (`--merge-only`), on a scratch copy of `palace`."""
    scratch = Path(tempfile.mkdtemp(prefix="curator-bench-merge-")) / "palace"
    shutil.copytree(palace, scratch, symlinks=True, ignore=shutil.ignore_patterns(".curator"))
    try:
        return merge_rows_on(scratch)
    finally:
        shutil.rmtree(scratch.parent, ignore_errors=True)


def merge_rows_on(scratch: Path) -> list[Row]:
    """The merge row, from a session of its own on `scratch` (its promotes take drafts the
    other rows' sessions must keep)."""
    found = asyncio.run(merge_session(scratch))
    return [
        row(
            "app",
            "merge right after a promote: m to the editor drawn",
            found["after_promote"],
            target_ms=100,
            baseline="m to the editor drawn, app idle (same drafts)",
            baseline_ms=statistics.median(found["idle"]) * 1000,
            note="m pressed as soon as the next draft lists its candidate, "
            f"{statistics.median(found['candidate']) * 1000:.0f} ms (median) after the commit "
            "was named; 80x24, watching the palace",
        )
    ]


UNTUNED = """
import asyncio, json, resource, sys
sys.path[:0] = [sys.argv[2], sys.argv[3]]
from pathlib import Path
from bench_app import in_app
asyncio.run(in_app(Path(sys.argv[1])))
print(json.dumps(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
"""


def untuned_peak(scratch: Path) -> float:
    """The app's peak after the same steps with curator/runtime.py's tuning off: the
    baseline row that shows what the malloc arena cap buys."""
    env = {"CURATOR_NO_TUNING": "1"}
    argv = [sys.executable, "-c", UNTUNED, str(scratch), str(Path(__file__).parent), str(REPO)]
    proc = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, **env})
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-800:])
    return float(proc.stdout.strip().splitlines()[-1])


def run(palace: Path, notes: int) -> list[Row]:
    rows: list[Row] = []
    scratch = Path(tempfile.mkdtemp(prefix="curator-bench-untuned-")) / "palace"
    shutil.copytree(palace, scratch, symlinks=True, ignore=shutil.ignore_patterns(".curator"))
    merging = scratch.parent / "merge"  # the merge session's own copy, taken before any row
    shutil.copytree(palace, merging, symlinks=True, ignore=shutil.ignore_patterns(".curator"))
    first_paint(palace, 1)  # builds .curator/cache: later opens are warm, as in daily use
    paint, populated = first_paint(palace, 5)
    floor = process_times([sys.executable, "-c", "import textual.app"], 5)
    rows.append(
        row(
            "app",
            "first paint of the inbox (new process)",
            paint,
            target_ms=1000,
            baseline="python -c 'import textual.app'",
            baseline_ms=statistics.median(floor) * 1000,
        )
    )
    rows.append(
        row(
            "app",
            "inbox populated, palace loaded (new process)",
            populated,
            note="warm .curator/cache; the palace loads in a worker after the first paint",
        )
    )
    found = asyncio.run(in_app(palace))
    rows.append(
        row(
            "app",
            "keystroke to updated search results",
            found["keys"],
            target_ms=100,
            baseline="Searcher.search() in-process",
            baseline_ms=statistics.median(found["search_call"]) * 1000,
            note=f"{len(found['keys'])} keystrokes, 15 ms debounce included; the app built "
            f"the index first ({found['index_ready_s']:.1f} s from start, in a child process)",
        )
    )
    rows.append(
        row(
            "app",
            "promote: confirm to notification naming commit",
            found["promote"],
            target_ms=300,
            note="notified once git has the commit; the index update follows in the writer lock",
        )
    )
    rows.append(
        row(
            "app",
            f"bulk reject of {found['bulk_count']} drafts: reason entered to notification",
            found["bulk"],
            target_ms=1000,
            baseline="services.plan_bulk() of the same drafts, in-process",
            baseline_ms=statistics.median(found["bulk_plan"]) * 1000,
            note="one plan, one commit; keys typed without waiting for the dialogs",
        )
    )
    child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    rows[-1].note += (
        f"; peak MB: this process (the app) is the column on the right, the largest child "
        f"(first-paint app runs, the index build job) {child:.0f}"
    )
    tuned = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    try:
        untuned = untuned_peak(scratch)
        merge = merge_rows_on(merging)  # after the peak was read: it is the other rows' app
    finally:
        shutil.rmtree(scratch.parent, ignore_errors=True)
    rows.append(
        Row(
            "app",
            f"app peak MB after {len(found['promote'])} promotes and the bulk reject",
            tuned,
            tuned,
            1,
            target_ms=500,
            baseline="the same steps, curator/runtime.py's tuning off",
            baseline_ms=untuned,
            note="MB, not ms: the malloc arena cap of curator/runtime.py is what the ratio shows",
        )
    )
    return rows + merge


async def table_fills(count: int, rounds: int = 3) -> tuple[list[float], list[float]]:
    """Seconds to fill a list table with `count` Audit-like rows and draw it: through
    `Table.add_lines` (what `Table.show` uses) and, the baseline, DataTable's own `add_row`
    row by row. The row that justifies add_lines, which writes DataTable's row maps itself."""
    from rich.text import Text
    from textual.app import App, ComposeResult

    from curator.ui.widgets.table import Table

    class OneTable(App[None]):
        def compose(self) -> ComposeResult:
            yield Table(flex="note", id="t")

    rows = [(f"notes/n{i}.md", (Text("stale"), Text(f"Note {i}"))) for i in range(count)]
    batch: list[float] = []
    by_row: list[float] = []
    for _ in range(rounds):
        for out, fill in ((batch, "lines"), (by_row, "rows")):
            app = OneTable()
            async with app.run_test(size=(80, 24)) as pilot:
                table = app.query_one(Table)
                table.add_fixed("Flags", "flags", 8)
                table.add_flex("Note")
                await pilot.pause()
                start = time.perf_counter()
                if fill == "lines":
                    table.add_lines(rows)
                else:
                    for key, cells in rows:
                        table.add_row(*cells, key=key)
                await pilot.pause()  # drawn
                out.append(time.perf_counter() - start)
    return batch, by_row


def screen_rows(palace: Path, notes: int) -> list[Row]:
    """First paint of every screen (a fresh app's first visit to each), in-process, with the
    paint tricks of curator/ui/paint.py and with each of them off in turn (the collector's
    tuning, "gc"; the stylesheet memo, "css"), and the table fill that first paint is mostly
    made of, against DataTable's own add_row."""
    first_paint(palace, 1)  # builds .curator/cache and the index, as in daily use
    Paints = Callable[
        [Path], Coroutine[Any, Any, tuple[dict[str, list[float]], dict[str, list[float]]]]
    ]
    variants: dict[str, Paints] = {
        "tuned": screen_paints,
        "gc": functools.partial(untuned_paints, off="gc"),
        "css": functools.partial(untuned_paints, off="css"),
    }
    wall: dict[str, dict[str, list[float]]] = {v: {} for v in variants}
    cpu: dict[str, dict[str, list[float]]] = {v: {} for v in variants}
    for _ in range(3):  # the variants in turn, under the same load
        for variant, paints in variants.items():
            wall_one, cpu_one = asyncio.run(paints(palace))
            gc.unfreeze()  # the app just closed, collected untimed: the next starts clean
            gc.collect()
            for mode in wall_one:
                wall[variant].setdefault(mode, []).extend(wall_one[mode])
                cpu[variant].setdefault(mode, []).extend(cpu_one[mode])
    batch, by_row = asyncio.run(table_fills(notes))
    fill = row(
        "app",
        f"fill and draw a list of {notes} rows (Table.add_lines)",
        batch,
        baseline="DataTable.add_row, row by row",
        baseline_ms=statistics.median(by_row) * 1000,
    )
    return [fill] + [
        row(
            "app",
            f"first paint of {mode} (key to list drawn and focused)",
            seconds,
            target_ms=1000,
            baseline="the same, the collector's tuning off (paint.py gc)",
            baseline_ms=statistics.median(wall["gc"][mode]) * 1000,
            note=f"80x24, in-process; target 1 s quiet, 3 s loaded; the stylesheet memo off "
            f"(paint.py css): {statistics.median(wall['css'][mode]) * 1000:.0f} ms; CPU "
            f"{cpu_ms(cpu['tuned'][mode])} (gc off {cpu_ms(cpu['gc'][mode])}, css off "
            f"{cpu_ms(cpu['css'][mode])})",
        )
        for mode, seconds in wall["tuned"].items()
    ]


def cpu_ms(seconds: list[float]) -> str:
    """The CPU seconds of a paint (the app's threads), median and max, as a row's note."""
    return f"{statistics.median(seconds) * 1000:.0f} ms median, {max(seconds) * 1000:.0f} max"


ECHO_WORDS = ("retry", "queue", "deploy", "billing", "cache")


async def echo_times(palace: Path) -> tuple[list[float], list[float]]:
    """Seconds from a key posted to the command palette to its character drawn in the
    palette's input: while the app builds the palace's search index (first start, no index),
    and the same keys once the build is done (the baseline: the palette's own search of the
    note names runs on every key in both)."""
    from textual import events
    from textual.widgets import Input

    from curator.ui.app import CuratorApp
    from curator.ui.commands import CuratorPalette

    shutil.rmtree(palace / ".curator" / "index", ignore_errors=True)
    app = CuratorApp(palace, watch=False)
    during: list[float] = []
    after: list[float] = []
    async with app.run_test(size=(120, 40)):
        await until(lambda: app.palace is not None and app.indexing)
        app.action_command_palette()
        await until(lambda: CuratorPalette.is_open(app) and bool(app.screen.query(Input)))  # type: ignore[arg-type]
        box = app.screen.query_one(Input)

        async def key(char: str) -> float:
            expected = box.value + char
            drawn = asyncio.Event()
            t0 = time.perf_counter()
            app.post_message(events.Key(char, char))
            await until(lambda: box.value == expected)
            app.call_after_refresh(drawn.set)
            await drawn.wait()
            return time.perf_counter() - t0

        async def word(out: list[float]) -> None:
            for char in ECHO_WORDS[len(out) % len(ECHO_WORDS)]:
                out.append(await key(char))
            box.value = ""

        while app.indexing or not app.session.index.ready:
            await word(during)
        await until(lambda: all(w.is_finished for w in app.workers))
        while len(after) < max(20, len(during)):
            await word(after)
    return during, after


def echo_rows(palace: Path, _notes: int = 0) -> list[Row]:
    """Key echo in the palette while the index builds (`--echo-only`)."""
    first_paint(palace, 1)  # builds .curator/cache (the palace load is not the subject)
    during, after = asyncio.run(echo_times(palace))
    return [
        row(
            "app",
            "palette key echo while the search index builds",
            during,
            target_ms=100,
            baseline="the same keys once the build is done",
            baseline_ms=statistics.median(after) * 1000,
            note=f"{len(during)} keys during the first build (no index), 120x40, in-process",
        )
    ]


if __name__ == "__main__":
    import contextlib

    from benchutil import cpu_hog, main_for

    # --loaded: a CPU hog per core beside the measurement (a reviewer's busy laptop)
    loaded = "--loaded" in sys.argv
    if loaded:
        sys.argv.remove("--loaded")
    with cpu_hog() if loaded else contextlib.nullcontext():
        if "--screens-only" in sys.argv:  # each screen's first paint alone
            sys.argv.remove("--screens-only")
            main_for(screen_rows)
        elif "--merge-only" in sys.argv:  # the merge rows alone (a quick before/after)
            sys.argv.remove("--merge-only")
            main_for(merge_rows)
        elif "--echo-only" in sys.argv:  # palette key echo while the index builds
            sys.argv.remove("--echo-only")
            main_for(echo_rows)
        else:
            main_for(run)
