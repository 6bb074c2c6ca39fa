"""The confirmation dialog: what an action will change (files and a diff), before it does."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.timer import Timer
from textual.widgets import Button, Label, Static

from curator.model.text import clean
from curator.ui.safe import plain
from curator.ui.services import Plan, Planning
from curator.ui.widgets.dialog_base import Dialog
from curator.ui.widgets.footer import KeyFooter
from curator.ui.widgets.zoom import ZoomDialog, zoom_binding

_DIFF_STYLES = (
    ("+++ ", "bold"),
    ("--- ", "bold"),
    ("@@", "cyan"),
    ("+", "green"),
    ("-", "red"),
)


# A diff is shown up to this many lines a file (and in all): the first action on a palace whose
# INDEX.md is behind rewrites the whole index (60k diff lines at 10k notes), and a Static holding
# all of it took ~110 MB and seconds to lay out, for lines nobody reads in a dialog.
MAX_FILE_LINES = 400
MAX_LINES = 4000


_HEADER = (  # the lines of a file's git header, after its `diff --git` line
    "index ",
    "similarity index",
    "rename from",
    "rename to",
    "new file",
    "deleted file",
    "old mode",
    "new mode",
    "--- ",
    "+++ ",
)


def _unquote(path: str) -> str:
    if len(path) > 1 and path[0] == path[-1] == '"':
        return path[1:-1]
    return path


def _file_line(header: list[str]) -> str:
    """A file's git header (diff --git, rename from/to, ---/+++) as one line: the dialog is
    read at 80×24, where five lines of boilerplate before the first change of a promote left
    no room for the content."""
    fields = {}
    for line in header[1:]:
        for prefix in ("rename from ", "rename to ", "--- ", "+++ "):
            if line.startswith(prefix):
                fields[prefix.strip()] = _unquote(line[len(prefix) :])
    if "rename from" in fields:
        return f"{fields['rename from']} → {fields.get('rename to', '')}"
    old, new = fields.get("---", ""), fields.get("+++", "")
    if any(line.startswith("new file") for line in header) or old == "/dev/null":
        return f"{new.removeprefix('b/')} (new file)"
    if any(line.startswith("deleted file") for line in header) or new == "/dev/null":
        return f"{old.removeprefix('a/')} (deleted)"
    if new:
        return new.removeprefix("b/")
    rest = header[0].removeprefix("diff --git ")
    return rest.split(" b/", 1)[-1] if " b/" in rest else rest


def diff_text(diff: str, file_lines: int = MAX_FILE_LINES, total: int = MAX_LINES) -> Text:
    """The diff, coloured, each file's git header as one line naming the file (and its move),
    each file's part cut after `file_lines` lines (every file's name still shown) and the whole
    after `total` lines."""
    out = Text()
    shown = in_file = hidden = 0
    header: list[str] = []  # the current file's git header lines, until its first change

    def note_hidden() -> None:
        if hidden:
            more = "line" if hidden == 1 else "lines"
            out.append(f"… {hidden:,} more {more} of this file's diff not shown\n", style="dim")

    def flush_header() -> None:
        nonlocal shown
        if header:
            out.append("── " + _file_line(header) + "\n", style="bold magenta")
            shown += 1
            header.clear()

    lines = clean(diff).splitlines()
    for number, line in enumerate(lines):
        if line.startswith("diff --git"):
            flush_header()
            note_hidden()
            in_file = hidden = 0
            header.append(line)
            continue
        if header and line.startswith(_HEADER):
            header.append(line)
            continue
        flush_header()
        if shown >= total:
            rest = len(lines) - number
            out.append(f"… {rest:,} more diff lines not shown\n", style="dim")
            return out
        if in_file >= file_lines:
            hidden += 1
            continue
        style = next((s for prefix, s in _DIFF_STYLES if line.startswith(prefix)), "")
        out.append(line + "\n", style=style)
        shown += 1
        in_file += 1
    flush_header()
    note_hidden()
    return out


_TRAILER = re.compile(r"[A-Z][A-Za-z-]*: ")
WHY_LINES = 3


def why_text(plan: Plan) -> Text:
    """The plan's reason (its commit message below the subject, without git trailers): a
    reject shows the reason the person gave, in their words, never as markup."""
    body = plan.message.split("\n", 1)[1] if "\n" in plan.message else ""
    lines = [ln for ln in clean(body).splitlines() if ln.strip() and not _TRAILER.match(ln)]
    if not lines:
        return Text()
    if len(lines) > WHY_LINES:
        lines = [*lines[: WHY_LINES - 1], lines[WHY_LINES - 1] + " …"]
    return Text("\n".join(lines), style="italic")


class PlanDialog(Dialog[bool]):
    """Shows a Plan; dismisses True to apply it, False to cancel.

    It opens at once, while the plan is still being made (`set_plan` fills it in), so a key
    typed right after the action's key is not lost: y or Enter pressed early applies the plan
    as soon as it is shown; n or Escape cancels it. A bulk plan's `planning` is shown as it
    goes ("Planning… 312 of 1,398"), and a cancel stops it."""

    BINDINGS = [
        Binding("y,enter", "confirm", "Apply", id="plan.confirm", tooltip="Apply this change"),
        Binding("n,escape", "cancel", "Cancel", id="plan.cancel", tooltip="Change nothing"),
        zoom_binding("plan"),
    ]

    def __init__(
        self,
        plan: Plan | None = None,
        root: Path | None = None,
        on_apply: Callable[[], None] | None = None,
        planning: Planning | None = None,
    ) -> None:
        super().__init__()
        self.plan = plan
        self.planning = planning
        self.root = root
        self.on_apply = on_apply  # called on the yes, before the dialog closes
        self.early = False  # confirmed before the plan was ready
        self._ticks: Timer | None = None
        self._diff: Text | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="plan-box"):
            yield Label(Text("Planning…", style="bold"), id="plan-subject")
            yield Static(Text(), id="plan-why")
            yield Static(Text(), id="plan-files")
            with VerticalScroll(id="plan-diff-scroll"):
                yield Static(Text(), id="plan-diff")
            with Horizontal(id="plan-buttons"):
                yield Button("Apply (y)", variant="primary", id="plan-apply")
                yield Button("Cancel (n)", id="plan-cancel")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#plan-diff-scroll").focus()
        if self.plan is not None:
            if self._diff is None and self.root is not None:
                self._diff = diff_text(self.plan.diff(self.root))
            self._show(self.plan, self._diff or Text())
        elif self.planning is not None:
            self._show_progress()
            self._ticks = self.set_interval(0.1, self._show_progress)

    def _show_progress(self) -> None:
        """How far the planning has gone, until the plan is shown."""
        planning = self.planning
        if self.plan is not None or planning is None:
            if self._ticks is not None:
                self._ticks.stop()
            return
        if planning.total > 1:
            done = min(planning.done + 1, planning.total)
            text = Text(f"Planning… {done:,} of {planning.total:,}", style="bold")
            text.append("   Escape cancels", style="dim")
            self.query_one("#plan-subject", Label).update(text)

    def set_plan(self, plan: Plan, diff: Text) -> None:
        """Show the plan (its diff already rendered, off the event loop); before the dialog
        is mounted it is kept for `on_mount`."""
        self.plan = plan
        self._diff = diff
        if self.early:  # confirmed already: no need to lay the diff out
            self.dismiss(True)
        elif self.is_mounted:
            self._show(plan, diff)

    def _show(self, plan: Plan, diff: Text) -> None:
        self.query_one("#plan-subject", Label).update(plain(plan.subject, "bold"))
        why = why_text(plan)
        box = self.query_one("#plan-why", Static)
        box.update(why)
        box.display = bool(why.plain)
        files = Text()
        for path in plan.paths():
            files.append("  " + clean(path) + "\n")
        self.query_one("#plan-files", Static).update(files)
        self.query_one("#plan-diff", Static).update(diff)

    def action_zoom(self) -> None:
        """Every file and the whole diff (as the dialog holds it) on the whole screen."""
        if self.plan is None or self._diff is None:
            return
        files = Text("\n").join(plain("  " + clean(p)) for p in self.plan.paths())
        body = Text("\n").join([files, Text(""), self._diff])
        self.app.push_screen(ZoomDialog(self.plan.subject, body))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "plan-apply":
            self.action_confirm()
        else:
            self.action_cancel()

    def action_confirm(self) -> None:
        if self.on_apply is not None and not self.early:
            self.on_apply()
        if self.plan is None:
            self.early = True
        else:
            self.dismiss(True)

    def action_cancel(self) -> None:
        if self.planning is not None and self.plan is None:
            self.planning.cancel()  # the planning stops before its next draft or note
        self.dismiss(False)
