"""Notifications stay out of the reviewer's way: never over a dialog (its fields, problems and
buttons) nor over the list being reviewed, identical ones shown once, and gone from the screen
when they expire. Checked cell by cell: what the compositor would draw on top."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets._toast import Toast, ToastRack
from uihelpers import VIEWS, make_app, settle, view_ready, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

DIALOGS = [
    view
    for view in VIEWS
    if view not in {"inbox", "groups", "rooms", "audit", "search", "history", "tasks"}
]
LONG = "Committed 0123456789: promote inbox/2026-11-30-a-rather-long-draft-name-{}.md into notes"


@pytest.fixture
def palace(sample_palace: Path) -> Path:
    return sample_palace


def _covered(app: Any, widget: Widget | None = None) -> list[tuple[int, int]]:
    """The cells of `widget` (of the whole screen by default) a toast is drawn over."""
    region = app.screen.region if widget is None else widget.region
    cells = []
    for y in range(region.y, region.bottom):
        for x in range(region.x, region.right):
            top, _ = app.screen.get_widget_at(x, y)
            if isinstance(top, Toast):
                cells.append((x, y))
    return cells


async def _toasts(app: Any, pilot: Any, count: int = 4) -> None:
    for i in range(count):
        app.notify(LONG.format(i), markup=False, timeout=30)
    await wait_until(pilot, lambda: len(app.screen.query(Toast)) >= count)
    await wait_until(pilot, lambda: bool(_covered(app)))  # laid out and drawn


# In a dialog the toasts keep to the row docked under the tab bar and a dialog starts below it
# (styles/app.tcss), whatever the terminal's size: 80x24, where a dialog comes closest to the
# screen's edges, for every dialog; the key help's panel and the toasts beside it are shares of
# the width, at both sizes.
DIALOG_SIZES = [
    pytest.param(view, size, id=f"{view}-{name}")
    for view in DIALOGS
    for size, name in (((80, 24), "80x24"), ((120, 40), "120x40"))
    if size == (80, 24) or view == "keys"
]


@pytest.mark.parametrize(("view", "size"), DIALOG_SIZES)
async def test_toasts_never_cover_a_dialog(palace: Path, view: str, size: tuple[int, int]) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(pilot)
        for key in VIEWS[view]:
            await pilot.press(key)
            await pilot.pause()  # idle: what the key opens is up for the next
        ready = view_ready(view)
        await wait_until(pilot, lambda: ready(app))
        await _toasts(app, pilot)
        screen = app.screen
        if view == "keys":  # the key help is a panel on the inbox: it must stay readable
            panels = list(screen.query("HelpPanel"))
        else:
            assert isinstance(screen, ModalScreen)
            panels = [w for w in screen.children if not isinstance(w, ToastRack)]
        assert panels
        for panel in panels:
            assert _covered(app, panel) == [], f"{view}: a toast covers {panel}"
        assert _covered(app), "the newest notification is still shown"


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_toasts_leave_the_draft_list_readable(palace: Path, size: tuple[int, int]) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(pilot)
        await _toasts(app, pilot, count=6)
        drafts = app.screen.query_one("#inbox-drafts")
        assert _covered(app, drafts) == []
        assert _covered(app), "the notifications are shown"


async def test_identical_toasts_collapse(palace: Path) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        for _ in range(3):
            app.notify("Nothing to change", markup=False)
        app.notify("Cancelled: nothing changed", markup=False)
        wanted = ["Cancelled: nothing changed", "Nothing to change"]

        def shown() -> list[str]:
            return sorted(str(t._notification.message) for t in app.screen.query(Toast))

        await wait_until(pilot, lambda: shown() == wanted)
        await pilot.pause()  # idle: a toast shown twice would be on show now
        assert shown() == wanted


async def test_expired_toasts_leave_the_screen(palace: Path) -> None:
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        app.notify("Committed 0123456789: reject: a draft", markup=False, timeout=0.3)
        await wait_until(pilot, lambda: bool(app.screen.query(Toast)))
        await wait_until(pilot, lambda: not app.screen.query(Toast))
        await wait_until(pilot, lambda: _covered(app) == [])
        assert not app._notifications
