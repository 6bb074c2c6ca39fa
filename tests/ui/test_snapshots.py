"""Snapshots of every screen and dialog at 80×24 and 120×40, in the dark and light themes,
over a scratch copy of sample_palace with a fixed 'today'.

The search index is built once per session and copied into each test's palace (the shared
`indexed_sample` fixture: building it is most of an app start), so the matrix stays fast; the
commit dates are pinned so History is the same run to run."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from palacehelpers import committed_once
from textual.screen import ModalScreen
from textual.widgets import Input
from uihelpers import VIEWS, make_app, settle, view_ready, wait_until, whole_query_shown

pytestmark = pytest.mark.slow

PINNED = "2026-11-30T12:00:00+00:00"

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}
THEMES = ("textual-dark", "textual-light")


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


def _go(view: str, theme: str) -> Any:
    async def run_before(pilot: Any) -> None:
        app = pilot.app
        app.theme = theme
        await settle(pilot)
        for key in VIEWS[view]:
            if view == "search" and key == "down":
                # into the results once the whole query's are shown: pressed while an earlier
                # list is on screen, the highlight stays on its note when a later list replaces
                # it (the app keeps a person's row), so a busy machine's snapshot differed
                await wait_until(pilot, lambda: whole_query_shown(app))
                await _quiet(pilot)  # and no later list of it on its way
            await pilot.press(key)
            await pilot.pause(0.05)
        await _quiet(pilot)
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
        for area in app.screen.query("TextArea"):
            # TextArea's line cache is keyed without focus when the cursor does not blink: a
            # line drawn before the focus arrived keeps showing no cursor (Textual 8.2)
            area._line_cache.clear()
            area.refresh()
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("theme", THEMES, ids=["dark", "light"])
@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("view", list(VIEWS))
def test_snapshot(snap_palace: Path, snap_compare: Any, view: str, size: str, theme: str) -> None:
    app = make_app(snap_palace, watch=False)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=_go(view, theme))


def test_matrix_covers_every_screen_and_dialog() -> None:
    """A new screen or dialog without a snapshot fails here."""
    from curator.ui.app import CuratorApp
    from curator.ui.widgets import dialogs

    assert set(CuratorApp.MODES) <= set(VIEWS)
    names = {n for n in dir(dialogs) if re.fullmatch(r"[A-Z]\w+Dialog|NotePicker", n)}
    covered = {"AskDialog", "ConfirmDialog", "EditDialog", "ChoiceDialog", "NotePicker"}
    assert names <= covered, names - covered
