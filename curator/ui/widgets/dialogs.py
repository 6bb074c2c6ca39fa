"""Small modal dialogs: a line of text, a yes/no question, a whole text to edit, a choice, a
note picker. Each fits 80×24 (or scrolls), shows its own keys, and shows a problem in place:
nothing the reviewer typed is ever thrown away by a failed check."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Label, OptionList, Select, Static, TextArea
from textual.widgets.option_list import Option
from textual.widgets.text_area import Edit, EditResult

from curator.model.note import Note
from curator.model.text import one_line
from curator.ui.safe import plain, restore, visible
from curator.ui.widgets.dialog_base import Dialog
from curator.ui.widgets.footer import KeyFooter
from curator.ui.widgets.options import Options

#: problems with a text, [] when it is fine (runs on the UI thread: keep it quick)
Check = Callable[[str], list[str]]


def problems_text(problems: list[str]) -> Text:
    out = Text()
    for problem in problems:
        out.append_text(plain(f"! {problem}", limit=300))
        out.append("\n")
    return out


class AskDialog(Dialog[str | None]):
    """One line of text (a reason, a tag); Enter accepts, Escape cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="ask.cancel", tooltip="Cancel")]

    def __init__(
        self, prompt: str, value: str = "", *, required: bool = True, check: Check | None = None
    ) -> None:
        super().__init__()
        self.prompt = prompt
        self.value = value
        self.required = required
        self.check = check

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Label(plain(self.prompt, "bold"))
            yield Input(self.value, id="ask-input", select_on_focus=False)
            yield Static("", id="ask-error", classes="error")
            yield Label("Enter: accept · Escape: cancel", classes="hint")
        yield KeyFooter()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = event.value.strip()
        problems = ["a value is required"] if self.required and not value else []
        if not problems and self.check is not None:
            problems = self.check(value)
        if problems:
            self.query_one("#ask-error", Static).update(problems_text(problems))
            return
        self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmDialog(Dialog[bool]):
    """A yes/no question; y or Enter says yes, n or Escape says no."""

    BINDINGS = [
        Binding("y,enter", "answer(True)", "Yes", id="confirm.yes", tooltip="Yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no", tooltip="No"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box", id="confirm-box"):
            yield Label(plain(self.question, "bold"))
            yield Label("y: yes · n or Escape: no", classes="hint")
        yield KeyFooter()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class SafeTextArea(TextArea):
    """A TextArea that never hands the terminal a control character: the text it is given and
    everything typed or pasted shows them as placeholders (`visible`); `raw` is the text with
    them put back, byte for byte. ctrl+Home and ctrl+End go to the start and end of the text."""

    BINDINGS = [
        Binding("ctrl+home", "text_start", "Start", show=False),
        Binding("ctrl+end", "text_end", "End", show=False),
    ]

    def __init__(self, text: str = "", **kwargs: object) -> None:
        super().__init__(visible(text), **kwargs)  # type: ignore[arg-type]

    @property
    def raw(self) -> str:
        return restore(self.text)

    def load_text(self, text: str) -> None:
        super().load_text(visible(text))

    def action_text_start(self) -> None:
        self.move_cursor((0, 0))

    def action_text_end(self) -> None:
        self.move_cursor(self.document.end)

    def edit(self, edit: Edit) -> EditResult:
        edit.text = visible(edit.text.replace("\r\n", "\n").replace("\r", "\n"))
        return super().edit(edit)


class EditDialog(Dialog[str | None]):
    """Edit a note's whole text; ctrl+s checks it and saves (dismisses the new text), or keeps
    the text open with the problems shown; Escape with unsaved changes asks first."""

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="edit.save", tooltip="Check and plan the edit"),
        Binding("escape", "cancel", "Cancel", id="edit.cancel", tooltip="Close (asks if changed)"),
    ]

    def __init__(
        self,
        title: str,
        text: str,
        *,
        check: Check | None = None,
        original: str | None = None,
        ask_reason: bool = False,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.text = text
        self.original = text if original is None else original
        self.check = check
        self.ask_reason = ask_reason  # a one-line "why" under the text, for history
        self.reason = ""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box", id="edit-box"):
            yield Label(plain(self.title_text, "bold"))
            yield Static("", id="edit-problems", classes="error")
            yield SafeTextArea(self.text, id="edit-area", soft_wrap=True, show_line_numbers=False)
            if self.ask_reason:
                yield Input(placeholder="why (one line for history; tab here)", id="edit-reason")
            hint = "ctrl+s: save · Escape: close"
            if self.text != visible(self.text):
                hint += " · ␛ ␥…: control characters, kept"
            yield Label(hint, classes="hint")
        yield KeyFooter()

    def on_mount(self) -> None:
        if self.check is not None and self.text != self.original:
            self._show(self.check(self.text))  # reopened after an outside editor: say why

    def _show(self, problems: list[str]) -> None:
        box = self.query_one("#edit-problems", Static)
        box.update(problems_text(problems))
        box.display = bool(problems)

    def action_save(self) -> None:
        text = self.query_one(SafeTextArea).raw
        problems = self.check(text) if self.check is not None else []
        if problems:
            self._show(problems)
            return
        if self.ask_reason:
            self.reason = one_line(self.query_one("#edit-reason", Input).value)
        self.dismiss(text)

    def action_cancel(self) -> None:
        if self.query_one(SafeTextArea).raw == self.original:
            self.dismiss(None)
            return

        def answered(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)

        self.app.push_screen(ConfirmDialog("Discard your changes?"), answered)


class ChoiceDialog(Dialog[str | None]):
    """Choose one value from a list (a type for a bulk promote)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="choice.cancel", tooltip="Choose nothing")]

    def __init__(self, prompt: str, choices: list[tuple[str, str]]) -> None:
        super().__init__()
        self.prompt = prompt
        self.choices = choices

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Label(plain(self.prompt, "bold"))
            options = [Option(plain(label), id=value) for label, value in self.choices]
            yield Options(*options, id="choice-list")
            yield Label("Enter: choose · Escape: cancel", classes="hint")
        yield KeyFooter()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


class NotePicker(Dialog[str | None]):
    """Pick a note by typing part of its name; Enter or Down then Enter picks it."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="picker.cancel", tooltip="Pick nothing")]

    def __init__(
        self,
        prompt: str,
        find: Callable[[str], list[Note]],
        near: Callable[[], list[Note]] | None = None,
    ) -> None:
        """`near` gives the known near-duplicates (it may wait for the index, so it runs in a
        thread): they are offered first, marked, among the notes the query finds."""
        super().__init__()
        self.prompt = prompt
        self.find = find
        self.near = near
        self.near_found: list[Note] = []
        self.near_done = near is None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box", id="picker-box"):
            yield Label(plain(self.prompt, "bold"))
            yield Input(placeholder="type part of a note's name", id="picker-query")
            yield OptionList(id="picker-list")
            yield Label("type to filter · Down: the list · Enter: pick · Escape", classes="hint")
        yield KeyFooter()

    def on_mount(self) -> None:
        self._fill("")
        if self.near is not None:
            self._look_up_near()

    @work(thread=True, exit_on_error=False)
    def _look_up_near(self) -> None:
        assert self.near is not None
        found: list[Note] = []
        try:
            found = self.near()
        finally:  # looked up, or failed (a sensitive note): either way the list is final
            self.app.call_from_thread(self._got_near, found)

    def _got_near(self, found: list[Note]) -> None:
        self.near_found = found
        self.near_done = True
        if self.is_attached:
            self._fill(self.query_one("#picker-query", Input).value)

    def _fill(self, query: str) -> None:
        found = near_first(self.find(query), self.near_found, query)
        near = {n.rel for n in self.near_found}
        options = self.query_one("#picker-list", OptionList)
        options.clear_options()
        options.add_options(
            [
                Option(
                    plain(n.name or n.rel)
                    .append(f"  {n.type}", "dim")
                    .append("  ≈ similar" if n.rel in near else "", "yellow"),
                    id=n.rel,
                )
                for n in found
            ]
        )
        if found:
            options.highlighted = 0

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._fill(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        options = self.query_one("#picker-list", OptionList)
        if options.highlighted is not None and options.option_count:
            self.dismiss(options.get_option_at_index(options.highlighted).id)

    def on_key(self, event: object) -> None:
        key = getattr(event, "key", "")
        if key == "down" and isinstance(self.focused, Input):
            self.query_one("#picker-list").focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


def near_first(found: list[Note], near: list[Note], query: str) -> list[Note]:
    """The picker's order: a note named exactly as typed first, then the known
    near-duplicates (those the query finds, once something is typed; all of them before),
    then the rest as `find` ranked them."""
    wanted = query.strip().casefold()
    exact = [
        n for n in found if wanted and wanted in (n.name.strip().casefold(), n.slug.casefold())
    ]
    hits = {n.rel for n in found}
    shown = exact + [n for n in near if n.rel in hits or not wanted]
    firsts: set[str] = set()
    order = []
    for n in shown + found:
        if n.rel not in firsts:
            firsts.add(n.rel)
            order.append(n)
    return order


def select_value(widget: Select[str]) -> str | None:
    value = widget.value
    return value if isinstance(value, str) else None


__all__ = [
    "AskDialog",
    "ChoiceDialog",
    "ConfirmDialog",
    "EditDialog",
    "NotePicker",
    "SafeTextArea",
    "near_first",
    "problems_text",
    "select_value",
]
