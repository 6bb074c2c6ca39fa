"""The promote form: name, description, type, confidence and scope, checked as you type.

One row per field, each problem shown under its own field (the one the cursor is in comes
first in the reviewer's eye); the form scrolls when the terminal is small. Nothing typed is
replaced: an empty name is a problem, not the draft's name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widget import Widget
from textual.widgets import Input, Label, Select, Static

from curator.config import GLOBAL_SCOPE
from curator.model.note import Note
from curator.model.palace import Palace
from curator.model.text import clean, one_line
from curator.ui.safe import plain
from curator.ui.widgets.dialog_base import Dialog
from curator.ui.widgets.dialogs import problems_text
from curator.ui.widgets.footer import KeyFooter

FIELDS = ("name", "description", "type", "confidence", "scope")

#: the field a validation message is about, by how the message starts
_ABOUT = (
    ("a note named", "name"),
    ("name", "name"),
    ("description", "description"),
    ("type", "type"),
    ("confidence", "confidence"),
    ("scope", "scope"),
)


def field_of(problem: str) -> str:
    """The form field a problem message is about ('' for the draft as a whole)."""
    return next((field for start, field in _ABOUT if problem.startswith(start)), "")


Validate = Callable[[Palace, str, dict[str, Any]], list[str]]


class PromoteForm(Dialog[dict[str, Any] | None]):
    """Dismisses the fields for `plan_promote`, or None when cancelled."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="promote.cancel", tooltip="Do not promote"),
        Binding("ctrl+s", "submit", "Promote", id="promote.submit", tooltip="Plan the promote"),
    ]

    def __init__(
        self,
        palace: Palace,
        draft: Note,
        validate: Validate,
        *,
        supersedes: str | None = None,
    ) -> None:
        super().__init__()
        self.palace = palace
        self.draft = draft
        self.validate_fields = validate
        self.supersedes = supersedes

    def compose(self) -> ComposeResult:
        cfg = self.palace.config
        draft = self.draft
        types = [(plain(f"{t.name} — {t.purpose}", limit=60), t.name) for t in cfg.types.values()]
        names = list(cfg.scopes) or [GLOBAL_SCOPE]
        spec = cfg.type_spec(draft.type)
        conf = draft.confidence
        with VerticalScroll(classes="dialog-box", id="promote-box"):
            yield Label(plain(f"Promote {draft.rel}", "bold"))
            if self.supersedes:
                yield Label(plain(f"superseding: {self.supersedes}", "yellow"), id="promote-old")
            yield Static("", id="promote-problems-", classes="error field-error")
            yield from self._row("Name", Input(one_line(draft.name), id="promote-name"))
            yield from self._row(
                "Description", Input(one_line(draft.description), id="promote-description")
            )
            yield from self._row(
                "Type",
                Select(
                    types,
                    value=draft.type if spec else Select.NULL,
                    id="promote-type",
                    allow_blank=spec is None,
                    prompt="choose a type",
                    compact=True,
                ),
            )
            yield from self._row(
                "Confidence",
                Input(
                    "" if conf is None else f"{conf:g}",
                    placeholder="the type's default",
                    id="promote-confidence",
                ),
            )
            yield from self._row(
                "Scope",
                Select(
                    [(plain(s), s) for s in names],
                    value=draft.scope if draft.scope in names else Select.NULL,
                    id="promote-scope",
                    prompt="global",
                    compact=True,
                ),
            )
            yield Label("Enter or ctrl+s: plan the promote · Escape: cancel", classes="hint")
        yield KeyFooter()

    def _row(self, label: str, field: Widget) -> ComposeResult:
        if isinstance(field, Input):
            field.compact = True
            field.select_on_focus = False
        with Horizontal(classes="form-row"):
            yield Label(label, classes="form-label")
            yield field
        name = (field.id or "").removeprefix("promote-")
        yield Static("", id=f"promote-problems-{name}", classes="error field-error")

    def on_mount(self) -> None:
        if not self.query("#promote-name"):
            return  # the app is quitting under the form
        self.query_one("#promote-name", Input).focus()
        self.validate()

    def fields(self) -> dict[str, Any]:
        type_value = self.query_one("#promote-type", Select).value
        scope_value = self.query_one("#promote-scope", Select).value
        conf_text = self.query_one("#promote-confidence", Input).value.strip()
        confidence: Any = conf_text
        try:
            confidence = float(conf_text) if conf_text else None
        except ValueError:
            pass
        return {
            "name": self.query_one("#promote-name", Input).value.strip(),
            "description": self.query_one("#promote-description", Input).value.strip(),
            "type": type_value if isinstance(type_value, str) else None,
            "confidence": confidence,
            "scope": scope_value if isinstance(scope_value, str) else None,
        }

    def problems(self) -> dict[str, list[str]]:
        """Problems by field ('' for the draft as a whole)."""
        fields = self.fields()
        found: dict[str, list[str]] = {}
        for field in ("name", "description"):
            if not fields[field]:  # the planner would quietly keep the draft's value
                found.setdefault(field, []).append(f"{field} is required")
        if fields["type"] is None and self.draft.type:
            found.setdefault("type", []).append(
                f"{self.draft.type!r} is not a type of this palace: choose one"
            )
        for problem in self.validate_fields(self.palace, self.draft.rel, fields):
            field = field_of(problem)
            if field in ("name", "description") and field in found:
                continue  # said above
            if field == "type" and fields["type"] is None:
                if "type" not in found:
                    found["type"] = ["choose a type"]
                continue
            if field == "confidence" and fields["type"] is None and fields["confidence"] is None:
                continue  # it defaults from the type, once one is chosen
            found.setdefault(field, []).append(clean(problem))
        return found

    def validate(self) -> dict[str, list[str]]:
        found = self.problems()
        for field in ("", *FIELDS):
            box = self.query_one(f"#promote-problems-{field}", Static)
            box.update(problems_text(found.get(field, [])))
            box.display = field in found
        return found

    def on_input_changed(self, _event: Input.Changed) -> None:
        self.validate()

    def on_select_changed(self, _event: Select.Changed) -> None:
        self.validate()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_submit()

    def action_submit(self) -> None:
        found = self.validate()
        if not found:
            self.dismiss(self.fields())
            return
        first = next((f for f in FIELDS if f in found), "")
        if first:  # the cursor goes where the first problem is
            widget = self.query_one(f"#promote-{first}")
            widget.focus()
            self.query_one("#promote-box", VerticalScroll).scroll_to_widget(widget)
        else:
            self.query_one("#promote-box", VerticalScroll).scroll_home()

    def action_cancel(self) -> None:
        self.dismiss(None)
