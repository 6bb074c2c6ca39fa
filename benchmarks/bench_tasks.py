"""Task checkpoints: `curator task save` as a whole process (target 300 ms), and the Tasks
screen opening on 1,000 tasks of 20 revisions each (target 200 ms), with the time to read
the 1,000 newest headers alone. Baselines from the same run: `python -c pass` and
`curator --version`.

The tasks live in a scratch palace of their own (the generated notes do not matter to them);
run standalone with `python benchmarks/bench_tasks.py --palace X --notes N` or from run.py.
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchutil import REPO, Row, main_for, process_times, row

from curator.ui.screens.tasks import FIRST_ROWS

TASKS = 1000
REVISIONS = 20
SAVES = 15
OPENS = 9


def _md(step: int) -> str:
    from curator.tasks.checkpoint import SECTIONS

    body = {"next_action": f"step {step}: run the suite and read the failures"}
    return "".join(
        f"## {title}\n\n{body.get(key, f'{title} of the task, a few lines of text.')}\n\n"
        for key, title in SECTIONS
    )


def make_store(root: Path, tasks: int, revisions: int) -> None:
    """`tasks` tasks of `revisions` revisions each, written straight to disk (setup only)."""
    from curator.tasks.checkpoint import Header, parse_sections, render

    sections = parse_sections(_md(0))
    for t in range(tasks):
        slug = f"task-{t:04d}"
        folder = root / "tasks" / slug
        folder.mkdir(parents=True)
        for n in range(1, revisions + 1):
            saved = f"2026-11-{1 + (t + n) % 28:02d}T10:00:00Z"
            header = Header(
                task=slug,
                revision=n,
                owner=f"agent-{t % 7}" if t % 5 else None,
                saved_at=saved,
                status=("active", "waiting", "done")[t % 3],
                claimed_at=saved,
                expires_at="2026-12-31T00:00:00Z",
                event="save",
                by=f"agent-{t % 7}",
                next_action=f"step {n} of {slug}",
            )
            (folder / f"{n:04d}.md").write_bytes(render(header, sections))


def _git_palace(base: Path) -> Path:
    root = base / "palace"
    (root / "notes").mkdir(parents=True)
    (root / "inbox").mkdir()
    (root / "palace.toml").write_text('[palace]\nname = "bench tasks"\n')
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "initial"]):
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)
    return root


def bench_save(root: Path) -> list[float]:
    curator = [sys.executable, "-m", "curator", "--palace", str(root), "task"]
    subprocess.run(
        [*curator, "new", "bench", "--objective", "measure save", "--as", "bench"],
        check=True,
        capture_output=True,
    )
    return process_times([*curator, "save", "bench", "--as", "bench"], SAVES, stdin=_md(1).encode())


def _empty_screen() -> object:
    """The baseline: a screen with an empty table and the key footer, drawn once."""
    from textual.widgets import DataTable

    from curator.ui.screens.base import PalaceScreen
    from curator.ui.widgets.footer import KeyFooter

    class Empty(PalaceScreen):
        drawn_at: float | None = None

        def compose(self) -> Any:
            yield DataTable()
            yield KeyFooter()

        def on_mount(self) -> None:
            self.call_after_refresh(self._drawn)

        def _drawn(self) -> None:
            self.drawn_at = time.perf_counter()

    return Empty()


async def _open_screen(root: Path) -> tuple[list[float], list[float], list[float]]:
    from textual.widgets import DataTable

    from curator.ui.app import CuratorApp
    from curator.ui.screens.tasks import TasksScreen

    app = CuratorApp(root, watch=False)
    times: list[float] = []
    filled: list[float] = []
    empty: list[float] = []
    async with app.run_test(size=(160, 45)) as pilot:
        while app.palace is None:
            await pilot.pause(0.02)
        await pilot.pause(0.3)
        for _ in range(OPENS):
            base: Any = _empty_screen()
            start = time.perf_counter()
            await app.push_screen(base)
            while base.drawn_at is None:
                await asyncio.sleep(0.001)
            empty.append(base.drawn_at - start)
            await app.pop_screen()
            await pilot.pause(0.1)
            screen = TasksScreen()
            start = time.perf_counter()
            await app.push_screen(screen)
            while screen.filled_at is None:  # set after the refresh that drew every row
                await asyncio.sleep(0.001)
            assert screen.query_one("#tasks-table", DataTable).row_count == TASKS + 1
            assert screen.drawn_at is not None  # the first paint of the list
            times.append(screen.drawn_at - start)
            filled.append(screen.filled_at - start)
            await pilot.pause(0.3)  # the selected task's panes load; then the app is idle
            await app.pop_screen()
            await pilot.pause(0.1)
    return times, filled, empty


def run(palace: Path, notes: int) -> list[Row]:
    from curator.tasks import TaskService

    base = Path(tempfile.mkdtemp(prefix="bench-tasks-"))
    try:
        root = _git_palace(base)
        save = bench_save(root)
        make_store(root, TASKS, REVISIONS)
        svc = TaskService(root)
        headers = []
        for _ in range(OPENS):
            start = time.perf_counter()
            rows, _ = svc.rows()
            headers.append(time.perf_counter() - start)
        assert len(rows) == TASKS + 1  # and the one the save benchmark made
        opens, filled, empty = asyncio.run(_open_screen(root))
        py = process_times([sys.executable, "-c", "pass"], SAVES)
        version = process_times([sys.executable, "-m", "curator", "--version"], SAVES)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    py_ms = statistics.median(py) * 1000
    version_ms = statistics.median(version) * 1000
    label = f"{TASKS} tasks x {REVISIONS} revisions"
    return [
        row("tasks", "python -c pass (baseline)", py, baseline="", ratio=""),
        row("tasks", "curator --version (baseline)", version, baseline="python -c pass",
            baseline_ms=py_ms),
        row("tasks", "task save, whole process", save, target_ms=300,
            baseline="curator --version", baseline_ms=version_ms),
        row("tasks", f"newest headers of {label}", headers, ratio=""),
        row("tasks", "an empty screen (table + footer) opens (baseline)", empty, ratio=""),
        row("tasks", f"Tasks screen opens (list drawn), {label}", opens, target_ms=200,
            baseline="an empty screen opens", baseline_ms=statistics.median(empty) * 1000,
            note=f"first paint with the top {FIRST_ROWS} rows of the sorted list"),
        row("tasks", f"Tasks screen, every row in the table, {label}", filled, ratio=""),
    ]  # fmt: skip


if __name__ == "__main__":
    if len(sys.argv) == 1:  # standalone: the tasks need no generated palace
        sys.argv += ["--palace", str(REPO), "--notes", "0"]
    main_for(run)
