"""Helpers for the app tests: a fixed 'today', waiting for workers and dialogs, git log."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from curator.ui.app import CuratorApp

TODAY = date(2026, 12, 1)


def make_app(root: Path, **kwargs: object) -> CuratorApp:
    return CuratorApp(root, today=TODAY, **kwargs)  # type: ignore[arg-type]


async def wait_until(pilot: Pilot[None], cond: Callable[[], bool], timeout: float = 60.0) -> None:
    """Until `cond()` holds; the deadline only turns a hang into a failure (a loaded machine
    may take many seconds for what takes milliseconds idle)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {cond}")
        await pilot.pause(0.05)


async def settle(pilot: Pilot[None]) -> None:
    """Wait for the palace to load and every running worker to finish."""
    app = pilot.app
    assert isinstance(app, CuratorApp)
    await wait_until(pilot, lambda: app.palace is not None)
    await pilot.pause()  # every message handled, so the workers they start are listed
    # the file watcher runs as long as the app does
    await wait_until(
        pilot, lambda: all(w.is_finished or w.group == "watch" for w in app.workers), timeout=60
    )
    await pilot.pause()  # and what the workers posted when they finished


def git_log(root: Path, fmt: str = "%s") -> list[str]:
    out = subprocess.run(
        ["git", "log", f"--format={fmt}"], cwd=root, capture_output=True, text=True, check=True
    )
    return out.stdout.splitlines()


def commit_files(root: Path, sha: str = "HEAD") -> list[str]:
    """The files one commit changed, as git lists them."""
    out = subprocess.run(
        ["git", "show", "--name-only", "--format=", sha],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return [line for line in out.stdout.splitlines() if line]


async def apply_plan(pilot: Pilot[None]) -> None:
    """Once the plan dialog shows, apply the plan with y; wait for exactly one new commit."""
    from curator.ui.widgets.plan_dialog import PlanDialog

    app = pilot.app
    assert isinstance(app, CuratorApp)
    await wait_until(pilot, lambda: isinstance(app.screen, PlanDialog))
    before = len(git_log(app.root))
    await pilot.press("y")
    await wait_until(pilot, lambda: len(git_log(app.root)) >= before + 1)
    await settle(pilot)
    assert len(git_log(app.root)) == before + 1, "one plan, one commit"


async def show_screen(pilot: Pilot[None], key: str, cls: type[Any]) -> Any:
    """Press the screen's key, wait until it is the screen and has settled; the screen."""
    app = pilot.app
    await settle(pilot)
    await pilot.press(key)
    await wait_until(pilot, lambda: isinstance(app.screen, cls))
    await settle(pilot)
    return app.screen


#: every screen and dialog -> the keys that open it from the inbox (a dialog's keys end with
#: it open); the snapshot matrix and the toast tests walk it
VIEWS: dict[str, tuple[str, ...]] = {
    "inbox": (),
    "groups": ("G",),
    "rooms": ("2",),
    "audit": ("3",),
    "search": ("4", *"deploy", "down"),  # results, and the first one's note beside them
    "history": ("5",),
    "tasks": ("6",),
    "promote": ("p",),
    "reject": ("x",),
    "edit": ("e",),
    "edit-confirm": ("e", "end", "!", "escape"),
    "plan": ("x", *"duplicate", "enter"),
    "zoom": ("x", *"duplicate", "enter", "z"),
    "bulk-choice": ("space", "space", "p"),
    "picker": ("2", "s"),
    "keys": ("question_mark",),
}


def whole_query_shown(app: Any) -> bool:
    """The results on the Search screen are the whole query's (a result list for the first
    letters typed can be on screen before the last one's)."""
    screen = app.screen
    shown = getattr(screen, "shown", None)
    return shown is not None and shown[0] == screen.query_one("#search-query").value


def _search_ready(app: Any) -> bool:
    """The whole query's results drawn and the preview on the highlighted one."""
    screen = app.screen
    note = getattr(screen.query_one("#search-note"), "note", None)
    at = screen.query_one("#search-results").highlighted
    results = screen.results
    return (
        note is not None
        and whole_query_shown(app)
        and bool(results)
        and note.rel == results[at or 0].path
    )


def view_ready(view: str) -> Callable[[Any], bool]:
    if view == "plan":
        return lambda app: getattr(app.screen, "plan", None) is not None
    if view == "zoom":
        return lambda app: type(app.screen).__name__ == "ZoomDialog"
    if view == "groups":
        return lambda app: bool(app.screen.groups) and not app.screen.grouping
    if view == "search":
        return _search_ready
    if view == "picker":  # its near-duplicates looked up (a thread)
        return lambda app: getattr(app.screen, "near_done", False)
    return lambda app: True


def shown_in(app: CuratorApp, selector: str) -> str:
    """The text the screen shows inside the widget's region, as last drawn (its lines joined:
    a message may wrap), so a message cut off, covered or scrolled away is not there."""
    from textual.strip import Strip

    region = app.screen.query_one(selector).region
    update = app.screen._compositor.render_full_update()
    lines = [Strip.join(row).crop(region.x, region.right).text for row in update.strips]
    return " ".join(" ".join(lines[region.y : region.bottom]).split())


def messages_of(app: Any) -> list[str]:
    """Every message the app has shown, its toast timed out or not (on a loaded machine a
    toast's life can end between the action and the assertion)."""
    return [m.text for m in app.message_log.messages]
