"""Edit in $VISUAL/$EDITOR (the app suspended meanwhile) or in the built-in editor: a real
editor program (a Python script) edits the note's file, the edit reaches the plan and the
commit; without either variable the built-in EditDialog opens, and Escape with unsaved
changes asks first.

Pilot's headless driver cannot suspend (textual's App.suspend raises SuspendNotSupported when
`driver.can_suspend` is false, and HeadlessDriver's is), so the Pilot tests of the outside
editor run the app on a headless driver that can: suspending it only counts, the editor is a
real process run by curator/ui/editing.py. The tmux test runs the real app in a real terminal
(LinuxDriver, a real suspend), nothing stood in for."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from palacehelpers import note_text
from textual.drivers import headless_driver
from textual.widgets import Static, TextArea
from uihelpers import apply_plan, git_log, make_app, messages_of, settle, show_screen, wait_until

from curator.ui.app import CuratorApp
from curator.ui.screens.rooms import RoomsScreen
from curator.ui.widgets.dialogs import ConfirmDialog, EditDialog
from curator.ui.widgets.plan_dialog import PlanDialog

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

REL = "notes/project/billing.md"
OLD = "Invoices are sent on the first."
NEW = "Invoices are sent on the second."

# The editor: replaces OLD by NEW in the file it is given (or writes what REPLACE says), and
# leaves a note of its run beside itself, so a test knows the process really ran.
EDITOR = """\
import sys
from pathlib import Path

path = Path(sys.argv[-1])
ran = Path(__file__).with_suffix(".ran")
line = path.name + (" tty" if sys.stdin.isatty() and sys.stdout.isatty() else "") + "\\n"
ran.write_text(ran.read_text() + line if ran.exists() else line)
replace = Path(__file__).with_suffix(".replace")
if replace.exists():
    path.write_text(replace.read_text())
else:
    path.write_text(path.read_text().replace({old!r}, {new!r}))
"""


DRAFT = "inbox/2026-11-30-billing-draft.md"


@pytest.fixture
def palace(make_palace: Any) -> Path:
    """One note (due for review: Audit lists it) and one draft, both saying OLD."""
    return make_palace(
        {
            REL: note_text("Billing", body=f"{OLD}\n", extra="reviewed: 2025-01-01\n"),
            DRAFT: note_text("Billing draft", body=f"{OLD}\n", extra="status: draft\n"),
        }
    )


@pytest.fixture
def editor(tmp_path: Path) -> Path:
    script = tmp_path / "editor.py"
    script.write_text(EDITOR.format(old=OLD, new=NEW))
    return script


def command(script: Path) -> str:
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def runs(script: Path) -> int:
    ran = script.with_suffix(".ran")
    return len(ran.read_text().splitlines()) if ran.exists() else 0


class SuspendingDriver(headless_driver.HeadlessDriver):
    """Headless, but it can suspend (as a terminal's driver can): it counts suspends and
    resumes instead of handing a terminal over."""

    suspends = 0
    resumes = 0

    @property
    def can_suspend(self) -> bool:
        return True

    def suspend_application_mode(self) -> None:
        type(self).suspends += 1

    def resume_application_mode(self) -> None:
        type(self).resumes += 1


@pytest.fixture
def suspending(monkeypatch: pytest.MonkeyPatch) -> type[SuspendingDriver]:
    """Pilot runs the app on SuspendingDriver (App.run_test imports HeadlessDriver from its
    module when the app starts)."""
    monkeypatch.setattr(SuspendingDriver, "suspends", 0)
    monkeypatch.setattr(SuspendingDriver, "resumes", 0)
    monkeypatch.setattr(headless_driver, "HeadlessDriver", SuspendingDriver)
    return SuspendingDriver


async def say_why(pilot: Any, reason: str = "") -> None:
    """After $EDITOR, the app asks why (one line, as a commit message is asked for)."""
    from curator.ui.widgets.dialogs import AskDialog

    await wait_until(pilot, lambda: isinstance(pilot.app.screen, AskDialog))
    await pilot.press(*reason, "enter")


async def open_in_rooms(pilot: Any, app: CuratorApp, rel: str = REL) -> RoomsScreen:
    screen = await show_screen(pilot, "2", RoomsScreen)
    assert isinstance(screen, RoomsScreen)
    screen.open_note(rel)
    await wait_until(pilot, lambda: (n := screen.selected()) is not None and n.rel == rel)
    screen.query_one("#rooms-notes").focus()
    await wait_until(pilot, lambda: screen.focused is screen.query_one("#rooms-notes"))
    return screen


@pytest.mark.parametrize("variable", ["VISUAL", "EDITOR"])
async def test_outside_editor_edits_and_the_edit_is_committed(
    palace: Path,
    editor: Path,
    suspending: type[SuspendingDriver],
    monkeypatch: pytest.MonkeyPatch,
    variable: str,
) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.setenv(variable, command(editor))
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_in_rooms(pilot, app)
        await pilot.press("e")
        await say_why(pilot, "the invoice rule changed")
        await wait_until(pilot, lambda: isinstance(app.screen, PlanDialog))
        assert runs(editor) == 1  # the editor process ran, once
        assert (suspending.suspends, suspending.resumes) == (1, 1)  # around it, the app slept
        await apply_plan(pilot)
        assert not app.screen.query(EditDialog)  # the built-in editor never opened
    text = (palace / REL).read_text()
    assert NEW in text and OLD not in text
    assert git_log(palace)[0].startswith("edit")
    assert "the invoice rule changed" in "\n".join(git_log(palace, "%B"))  # in history


@pytest.mark.parametrize("mode", ["inbox", "audit", "search"])
async def test_outside_editor_from_every_screen(
    palace: Path,
    editor: Path,
    suspending: type[SuspendingDriver],
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
) -> None:
    """e runs $VISUAL on the Inbox's draft, on Audit's note and on Search's result alike."""
    monkeypatch.setenv("VISUAL", command(editor))
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.action_show_screen(mode)
        await settle(pilot)
        if mode == "search":
            await pilot.press(*"invoices sent", "down")
            await wait_until(pilot, lambda: app.screen.focused.id == "search-results")
        await pilot.press("e")
        await say_why(pilot)
        await apply_plan(pilot)
    edited = DRAFT if mode == "inbox" else REL
    assert runs(editor) == 1 and NEW in (palace / edited).read_text()
    assert git_log(palace)[0].startswith("edit")


async def test_visual_wins_over_editor(
    palace: Path, editor: Path, suspending: type[SuspendingDriver], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VISUAL", command(editor))
    monkeypatch.setenv("EDITOR", "/nonexistent/editor")
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_in_rooms(pilot, app)
        await pilot.press("e")
        await say_why(pilot)
        await apply_plan(pilot)
    assert runs(editor) == 1 and NEW in (palace / REL).read_text()
    assert "Edited by hand." in "\n".join(git_log(palace, "%B"))  # no reason: the default


async def test_outside_edit_that_fails_its_check_opens_in_the_app_with_problems(
    palace: Path, editor: Path, suspending: type[SuspendingDriver], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A text that does not validate is never thrown away: the built-in editor opens on it
    with the problems shown; fixed there, it is committed."""
    editor.with_suffix(".replace").write_text("---\nname: [broken\n---\nmy careful words\n")
    monkeypatch.setenv("VISUAL", command(editor))
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_in_rooms(pilot, app)
        before = git_log(palace)
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EditDialog))
        dialog = app.screen
        area = dialog.query_one("#edit-area", TextArea)
        await wait_until(pilot, lambda: "my careful words" in area.text)
        await pilot.pause()  # idle: a second run of the editor would have started
        assert runs(editor) == 1
        assert "my careful words" in area.text
        problems = dialog.query_one("#edit-problems", Static)
        assert problems.display and str(problems.render()).strip()
        area.text = note_text("Billing", body="my careful words\n")
        await pilot.press("ctrl+s")
        await apply_plan(pilot)
        assert git_log(palace)[1:] == before
    assert "my careful words" in (palace / REL).read_text()


async def test_outside_editor_unchanged_changes_nothing(
    palace: Path, editor: Path, suspending: type[SuspendingDriver], monkeypatch: pytest.MonkeyPatch
) -> None:
    editor.with_suffix(".replace").write_text((palace / REL).read_text())
    monkeypatch.setenv("VISUAL", command(editor))
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_in_rooms(pilot, app)
        before = git_log(palace)
        await pilot.press("e")
        await wait_until(pilot, lambda: runs(editor) == 1)
        await settle(pilot)
        assert app.screen is screen  # no plan, no built-in editor
        assert git_log(palace) == before


async def test_editor_that_cannot_start_gives_the_terminal_back(
    palace: Path, suspending: type[SuspendingDriver], monkeypatch: pytest.MonkeyPatch
) -> None:
    """$VISUAL names no program: the app resumes and the built-in editor opens instead."""
    monkeypatch.setenv("VISUAL", "/nonexistent/editor --wait")
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_in_rooms(pilot, app)
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EditDialog))
        assert suspending.suspends == 1
        assert suspending.resumes == 1, "the app stayed suspended: the terminal never came back"
        said = messages_of(app)
        assert any(m.startswith("Could not start /nonexistent/editor") for m in said), said


async def test_headless_app_uses_the_built_in_editor(
    palace: Path, editor: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the app cannot suspend (Pilot's headless driver, a browser) $VISUAL cannot have
    the terminal: the built-in editor opens and the editor program never runs."""
    monkeypatch.setenv("VISUAL", command(editor))
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_in_rooms(pilot, app)
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EditDialog))
        assert runs(editor) == 0


async def test_built_in_editor_asks_before_discarding(
    palace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No $VISUAL or $EDITOR: the built-in editor. Escape without changes closes it; with
    changes it asks; "no" keeps the text, "yes" discards it; ctrl+s plans and commits."""
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_in_rooms(pilot, app)
        before = git_log(palace)
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EditDialog))
        await pilot.press("escape")  # nothing changed: closes at once
        await wait_until(pilot, lambda: app.screen is screen)

        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EditDialog))
        dialog = app.screen
        area = dialog.query_one("#edit-area", TextArea)
        assert dialog.focused is area
        area.move_cursor(area.document.end)
        await pilot.press(*" Checked.")
        edited = area.text
        assert edited.endswith(" Checked.")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is dialog)
        assert area.text == edited  # kept, word for word

        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await wait_until(pilot, lambda: app.screen is screen)
        await settle(pilot)
        assert git_log(palace) == before  # discarded: nothing planned

        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EditDialog))
        area = app.screen.query_one("#edit-area", TextArea)
        area.move_cursor(area.document.end)
        await pilot.press(*" Checked.", "ctrl+s")
        await apply_plan(pilot)
    assert "Checked." in (palace / REL).read_text()
    assert git_log(palace)[0].startswith("edit")


# -- the real terminal ------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_visual_in_a_real_terminal(palace: Path, editor: Path, tmp_path: Path) -> None:
    """The app in tmux (its real driver suspends): e in Rooms runs $VISUAL, the plan of its
    edit is applied with y, and the app is back and answering keys afterwards."""
    bench = Path(__file__).resolve().parents[2] / "benchmarks"
    sys.path.insert(0, str(bench))
    from tmux_review_lib import Tmux

    term = Tmux(f"curator-editor-{tmp_path.name}")
    env = f"VISUAL={shlex.quote(command(editor))}"
    app = f"{shlex.quote(sys.executable)} -m curator --palace {shlex.quote(str(palace))}"
    term.start(f"env {env} {app}; sleep 30")
    try:
        term.wait("Inbox", timeout=60)
        term.keys("2")
        term.wait("Superseded", "Billing", timeout=30)  # the first room with notes
        term.keys("e")
        term.wait("Why this edit?", timeout=30)
        term.keys("Enter")
        term.wait("y Apply", timeout=30)
        assert runs(editor) == 1
        # the editor had the terminal: the app handed it over (suspended), not a pipe
        assert editor.with_suffix(".ran").read_text().split()[-1] == "tty"
        term.keys("y")
        end = 30.0
        import time

        start = time.monotonic()
        while not git_log(palace)[0].startswith("edit"):
            assert time.monotonic() - start < end, term.screen()
            time.sleep(0.2)
        term.keys("5")  # the app answers keys again
        term.wait("History (1)", timeout=30)
    finally:
        term.close()
    assert NEW in (palace / REL).read_text()


async def test_editor_that_fails_changes_nothing_and_says_so(
    palace: Path, suspending: type[SuspendingDriver], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editor that exits with an error (vim's :cq) cancels the edit: no built-in editor
    on the old text, no plan, a message naming the editor and its exit status."""
    monkeypatch.setenv("VISUAL", f"{sys.executable} -c 'raise SystemExit(3)'")
    app = make_app(palace, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_in_rooms(pilot, app)
        before = git_log(palace)
        await pilot.press("e")
        await wait_until(pilot, lambda: suspending.resumes == 1)
        await settle(pilot)
        assert app.screen is screen
        assert git_log(palace) == before
        said = messages_of(app)
        assert any("exited with 3: nothing changed" in m for m in said), said
