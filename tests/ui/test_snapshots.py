"""Snapshots of every screen and dialog at 80×24 in the dark and light themes and at 120×40 in
the dark one, over a scratch copy of sample_palace with a fixed 'today'. A theme sets only
colours and a size only the layout: the light theme at 120×40 would repeat what the other
three show.

The search index is built once per session and copied into each test's palace (the shared
`indexed_sample` fixture: building it is most of an app start), so the matrix stays fast; the
commit dates are pinned so History is the same run to run. One app run per view takes its
three screenshots (`test_snapshot[view][size-theme].svg`): 80×24 light, the dark theme, then
the terminal widened to 120×40. The widened screenshot is compared with the same file a fresh
run at 120×40 drew, so a screen that lays itself out only once, for the size it opened at,
fails it.
"""

from __future__ import annotations

import asyncio
import inspect
import pickle
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from palacehelpers import committed_once
from pytest_textual_snapshot import (
    PseudoApp,
    PseudoConsole,
    SVGImageExtension,
    node_to_report_path,
)
from rich.console import Console
from textual.screen import ModalScreen
from textual.widgets import Input
from uihelpers import VIEWS, make_app, settle, view_ready, wait_until, whole_query_shown

pytestmark = pytest.mark.slow

PINNED = "2026-11-30T12:00:00+00:00"

#: the screenshots of one app run, in order: (size, theme) -> the snapshot's name. The light
#: theme first: it is set before the app starts, so the run restyles once (to dark), not twice
SHOTS = {
    ((80, 24), "textual-light"): "80x24-light",
    ((80, 24), "textual-dark"): "80x24-dark",
    ((120, 40), "textual-dark"): "120x40-dark",
}


@pytest.fixture(scope="session")
def pinned_repo(tmp_path_factory: pytest.TempPathFactory, indexed_sample: Path) -> Path:
    env = {"GIT_AUTHOR_DATE": PINNED, "GIT_COMMITTER_DATE": PINNED}
    return committed_once(tmp_path_factory, "pinned-repo", indexed_sample, keep_index=True, env=env)


@pytest.fixture
def snap_palace(pinned_repo: Path, tmp_path: Path) -> Path:
    root = tmp_path / "palace"
    shutil.copytree(pinned_repo, root, symlinks=True)
    return root


WAITING = {"action", "edit"}  # workers that wait for an open dialog's answer


async def _quiet(pilot: Any) -> None:
    """Every worker done but those waiting on the dialog on screen."""
    app = pilot.app
    busy = lambda: [w for w in app.workers if not w.is_finished and w.group not in WAITING]  # noqa: E731
    await pilot.pause()
    await wait_until(pilot, lambda: not busy())
    await pilot.pause()


async def _drained(pilot: Any) -> None:
    """Every widget of every screen on the stack has handled what was posted to it before this
    call. Pilot's own wait covers the top screen only, but a resize lays out the screens
    beneath a dialog too, and their widgets answer it in their own time (the Inbox under the
    edit and confirm dialogs was drawn at its old layout on a busy machine)."""
    app = pilot.app
    pumps = [app, *(w for screen in app.screen_stack for w in screen.walk_children(with_self=True))]
    left = len(pumps)
    done = asyncio.Event()

    def one() -> None:
        nonlocal left
        left -= 1
        if left == 0:
            done.set()

    for pump in pumps:
        if not pump.call_later(one):  # a pump already closed has nothing left to handle
            one()
    await asyncio.wait_for(done.wait(), timeout=60)


async def _steady(pilot: Any) -> None:
    """Nothing left to draw: what Textual's screenshot helper waits for (take_svg_screenshot),
    on every screen of the stack."""
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    for _ in range(2):  # what the first round's layouts posted is handled in the second
        await _drained(pilot)
        await pilot.pause()
    await pilot.wait_for_scheduled_animations()


def _redraw_text_areas(app: Any) -> None:
    # TextArea's line cache is keyed without focus or theme when the cursor does not blink: a
    # line drawn before the focus arrived (or in the other theme) keeps its look (Textual 8.2)
    for area in app.screen.query("TextArea"):
        area._line_cache.clear()
        area.refresh()


async def _open(pilot: Any, view: str) -> None:
    """Press the keys that open `view` and wait until it is drawn and still."""
    app = pilot.app
    await settle(pilot)
    for key in VIEWS[view]:
        if view == "search" and key == "down":
            # into the results once the whole query's are shown: pressed while an earlier
            # list is on screen, the highlight stays on its note when a later list replaces
            # it (the app keeps a person's row), so a busy machine's snapshot differed
            await wait_until(pilot, lambda: whole_query_shown(app))
            await _quiet(pilot)  # and no later list of it on its way
        await pilot.press(key)
        await _quiet(pilot)  # the key's work done before the next key reads its screen
    ready = view_ready(view)
    await wait_until(pilot, lambda: ready(app))
    await _quiet(pilot)
    for field in app.screen.query(Input):  # a blinking cursor differs run to run
        field.cursor_blink = False
    for area in app.screen.query("TextArea"):
        area.cursor_blink = False
    if isinstance(app.screen, ModalScreen) and app.screen.query("Input, TextArea"):
        # a dialog focuses its field on mount, late on a busy machine: the cursor shows then
        # (has_focus follows once the field has handled its Focus event)
        await wait_until(pilot, lambda: app.focused is not None and app.focused.has_focus)


def _screenshots(app: Any, view: str) -> dict[str, str]:
    """`view` opened once, then drawn in each size and theme of SHOTS: a theme change restyles
    every widget of every screen and a resize lays them out again, so one run gives what a
    run per size and theme gave."""
    # a toast on screen stays until the last screenshot: its life is wall time, which a
    # loaded machine stretches (the first shot would have it, the next not)
    app.NOTIFICATION_TIMEOUT = 3600
    (first, theme), *_ = SHOTS
    app.theme = theme

    async def auto_pilot(pilot: Any) -> None:
        shots = {}
        await _open(pilot, view)
        for (size, theme), name in SHOTS.items():
            if size != app.size:
                await pilot.resize_terminal(*size)
            app.theme = theme
            await _quiet(pilot)
            _redraw_text_areas(app)
            await _steady(pilot)
            shots[name] = app.export_screenshot(title=app.title, simplify=True)
        app.exit(shots)

    shots = app.run(headless=True, auto_pilot=auto_pilot, size=first)
    assert shots is not None, f"{view}: the app ended before its screenshots"
    return shots


def _matches(svgs: Any, request: pytest.FixtureRequest, name: str, svg: str) -> bool:
    """`svg` against this test's snapshot `name` (written by --snapshot-update), recorded for
    pytest-textual-snapshot's HTML report of the snapshots that differ (its snap_compare takes
    one screenshot per app run, so it cannot be asked for two)."""
    same = bool(svgs(name=name) == svg)
    expected = svgs.executions[svgs.num_executions - 1].recalled_data
    console = Console(legacy_windows=False, force_terminal=True)
    fake_app = PseudoApp(PseudoConsole(console.legacy_windows, console.size))
    path, line, test = request.node.reportinfo()
    doc = inspect.getdoc(request.node.function) or ""
    report = (
        same,
        expected or "",
        svg,
        fake_app,
        path,
        line,
        f"{test}[{name}]",
        doc,
        "",
        expected is not None,
    )
    where = node_to_report_path(request.node)
    where.with_name(f"{where.name}_{name}").write_bytes(pickle.dumps(report))
    return same


@pytest.mark.parametrize("view", list(VIEWS))
def test_snapshot(
    snap_palace: Path, snapshot: Any, request: pytest.FixtureRequest, view: str
) -> None:
    shots = _screenshots(make_app(snap_palace, watch=False), view)
    svgs = snapshot.use_extension(SVGImageExtension)
    differ = [name for name, svg in shots.items() if not _matches(svgs, request, name, svg)]
    assert not differ, f"{view}: the {' and '.join(differ)} snapshot differs"


def test_matrix_covers_every_screen_and_dialog() -> None:
    """A new screen or dialog without a snapshot fails here."""
    from curator.ui.app import CuratorApp
    from curator.ui.widgets import dialogs

    assert set(CuratorApp.MODES) <= set(VIEWS)
    names = {n for n in dir(dialogs) if re.fullmatch(r"[A-Z]\w+Dialog|NotePicker", n)}
    covered = {"AskDialog", "ConfirmDialog", "EditDialog", "ChoiceDialog", "NotePicker"}
    assert names <= covered, names - covered
