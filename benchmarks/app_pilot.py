"""Driving the app in-process for bench_app.py: waiting on conditions, the notifications as
they are made, a promote by keys, and the session that opens the merge editor right after a
promote (time from the key to the editor drawn)."""

from __future__ import annotations

import asyncio
import shutil
import sys
import time
from pathlib import Path
from typing import Any

MERGES = 8  # merges opened (and closed unchanged) right after a promote


async def until(cond: Any, timeout: float = 120.0) -> None:
    end = time.perf_counter() + timeout
    while not cond():
        if time.perf_counter() > end:
            raise TimeoutError(f"timed out waiting for {cond}")
        await asyncio.sleep(0.002)


def recorded(app: Any) -> list[tuple[float, str]]:
    """The app's notifications as (perf_counter, message), appended as they are made."""
    notes: list[tuple[float, str]] = []
    notify = app.notify

    def recording(message: str, *args: Any, **kwargs: Any) -> None:
        notes.append((time.perf_counter(), str(message)))
        notify(message, *args, **kwargs)

    app.notify = recording
    return notes


def idle(app: Any) -> bool:
    return not app.indexing and all(w.is_finished or w.group == "watch" for w in app.workers)


async def promote_by_keys(app: Any, pilot: Any, notes: list[tuple[float, str]]) -> float | None:
    """Promote the draft under the cursor with the form's defaults (p, ctrl+s, y): seconds from
    y to the notification naming the commit; None when the draft needs more than its defaults
    (the form is left with Escape)."""
    from textual import events

    from curator.ui.screens.inbox import InboxScreen
    from curator.ui.widgets.plan_dialog import PlanDialog
    from curator.ui.widgets.promote_form import PromoteForm

    await pilot.press("p")
    await until(lambda: isinstance(app.screen, PromoteForm))
    await pilot.press("ctrl+s")
    await pilot.pause(0.3)
    if isinstance(app.screen, PromoteForm):
        await pilot.press("escape")
        await until(lambda: isinstance(app.screen, InboxScreen))
        return None
    await until(lambda: isinstance(app.screen, PlanDialog), 30)
    await pilot.pause(0.05)
    seen = len(notes)
    t0 = time.perf_counter()
    app.post_message(events.Key("y", "y"))
    await until(lambda: any(m.startswith("Committed") for _, m in notes[seen:]), 30)
    return next(t for t, m in notes[seen:] if m.startswith("Committed")) - t0


async def merge_session(palace: Path, samples: int = MERGES) -> dict[str, list[float]]:
    """Merge key to the merge's editor drawn, right after a promote, as in the tmux review: the
    draft under the cursor is promoted, the next takes its row, and m is pressed the moment its
    duplicate candidate is listed (the index sync, the reloads and the lookups that follow the
    commit still running). The baseline: m on the same draft once the app is idle. The app
    runs as `curator` runs it (watching the palace), at 80x24; the editor is closed unchanged,
    so nothing is merged."""
    from textual import events
    from textual.widgets import DataTable, TextArea

    from curator.ui.app import CuratorApp
    from curator.ui.screens.inbox import InboxScreen
    from curator.ui.widgets.dialogs import EditDialog

    shutil.rmtree(palace / ".curator" / "index", ignore_errors=True)
    app = CuratorApp(palace, watch=True)
    notes = recorded(app)
    out: dict[str, list[float]] = {"after_promote": [], "idle": [], "candidate": []}

    def drawn() -> bool:
        screen = app.screen
        if not isinstance(screen, EditDialog):
            return False
        return any(area.region.height > 0 for area in screen.query(TextArea))

    async def merge_key() -> float:
        await pilot.pause(0)
        t0 = time.perf_counter()
        app.post_message(events.Key("m", "m"))
        await until(drawn, 30)
        took = time.perf_counter() - t0
        await pilot.press("escape")  # unchanged: nothing planned
        await until(lambda: isinstance(app.screen, InboxScreen))
        return took

    async with app.run_test(size=(80, 24)) as pilot:
        await until(lambda: app.palace is not None and app.session.index.ready and idle(app))
        inbox = app.screen
        assert isinstance(inbox, InboxScreen)
        inbox.query_one("#inbox-drafts", DataTable).focus()
        skipped = 0  # drafts at the top that need more than the form's defaults
        for _attempt in range(samples * 4):
            if len(out["after_promote"]) >= samples or len(inbox.drafts) < skipped + 2:
                break
            await until(lambda: idle(app))
            table = inbox.query_one("#inbox-drafts", DataTable)
            table.move_cursor(row=skipped, animate=False)
            await pilot.pause(0.05)
            promoted, following = inbox.drafts[skipped].rel, inbox.drafts[skipped + 1].rel
            if await promote_by_keys(app, pilot, notes) is None:
                skipped += 1
                continue
            committed = next(t for t, m in reversed(notes) if m.startswith("Committed"))
            await until(lambda r=following: inbox.selected == r and inbox.searched, 60)
            out["candidate"].append(time.perf_counter() - committed)
            assert promoted not in inbox.listed
            if inbox.chosen() is None:
                continue
            out["after_promote"].append(await merge_key())
            await until(lambda: idle(app))
            await pilot.pause(0.4)  # the watcher's reload of the commit came and went
            await until(lambda: idle(app))
            out["idle"].append(await merge_key())
            print(
                f"merge after promote {out['after_promote'][-1] * 1000:.0f} ms, "
                f"idle {out['idle'][-1] * 1000:.0f} ms",
                file=sys.stderr,
            )
    return out


async def screen_paints(
    palace: Path, rounds: int = 1
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Each screen's first paint, in-process at 80×24: from its number key to the screen
    ready for keys (its list drawn from the palace and focused: the app's `screen_ready`),
    the first visit in a fresh app (each screen built then), over `rounds` apps; the inbox's
    from the app's start to the same state. Wall seconds, and the CPU seconds this process
    spent meanwhile (all its threads: on a shared machine, what the paint costs whatever the
    load)."""
    from curator.ui.screens_list import SCREENS

    wall: dict[str, list[float]] = {mode: [] for mode in SCREENS}
    cpu: dict[str, list[float]] = {mode: [] for mode in SCREENS}
    for _ in range(rounds):
        for mode, (seconds, used) in (await _one_app_paints(palace)).items():
            wall[mode].append(seconds)
            cpu[mode].append(used)
    return wall, cpu


async def untuned_paints(
    palace: Path, off: str = "1", rounds: int = 1
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """`screen_paints` with the tricks named in `off` turned off (CURATOR_NO_TUNING, see
    curator/runtime.py; "1": all), the collector put back as Python starts it when "gc" is
    among them: the baselines of the first-paint rows."""
    import gc
    import os

    thresholds = gc.get_threshold()
    os.environ["CURATOR_NO_TUNING"] = off
    if off == "1" or "gc" in off.split(","):
        gc.unfreeze()
        gc.set_threshold(700, 10, 10)
    try:
        return await screen_paints(palace, rounds)
    finally:
        del os.environ["CURATOR_NO_TUNING"]
        gc.set_threshold(*thresholds)


async def _one_app_paints(palace: Path) -> dict[str, tuple[float, float]]:
    from textual import events

    from curator.ui.app import CuratorApp, screen_ready
    from curator.ui.screens_list import SCREENS

    out: dict[str, tuple[float, float]] = {}
    start, used = time.perf_counter(), time.process_time()
    app = CuratorApp(palace, watch=False)
    async with app.run_test(size=(80, 24)):
        await until(lambda: app.palace is not None and screen_ready(app.screen))
        out["inbox"] = (time.perf_counter() - start, time.process_time() - used)
        for mode, (_title, key, _help) in SCREENS.items():
            if mode == "inbox":
                continue
            start, used = time.perf_counter(), time.process_time()
            app.post_message(events.Key(key, key))
            await until(lambda m=mode: app.current_mode == m and screen_ready(app.screen))
            out[mode] = (time.perf_counter() - start, time.process_time() - used)
            app.post_message(events.Key("1", "1"))  # back: every visit starts from the inbox
            await until(lambda: app.current_mode == "inbox" and app.typeahead.idle)
    return out
