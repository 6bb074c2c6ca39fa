"""The promote form: name, description, type, confidence and scope, checked as you type."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Select, Static

from curator.config import GLOBAL_SCOPE
from curator.model.note import Note
from curator.model.palace import Palace
from curator.model.text import clean, one_line
from curator.ui.safe import plain


class PromoteForm(ModalScreen[dict[str, Any] | None]):
    """Dismisses the fields for `plan_promote`, or None when cancelled."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="promote.cancel", tooltip="Do not promote"),
        Binding("ctrl+s", "submit", "Promote", id="promote.submit", tooltip="Plan the promote"),
    ]

    def __init__(self, palace: Palace, draft: Note, *, supersedes: str | None = None) -> None:
        super().__init__()
        self.palace = palace
        self.draft = draft
        self.supersedes = supersedes

    def compose(self) -> ComposeResult:
        cfg = self.palace.config
        draft = self.draft
        types = [(plain(f"{t.name} — {t.purpose}", limit=60), t.name) for t in cfg.types.values()]
        names = list(cfg.scopes) or [GLOBAL_SCOPE]
        scopes = [(plain(s), s) for s in names]
        spec = cfg.type_spec(draft.type)
        conf = (
            draft.confidence
            if draft.confidence is not None
            else (spec.default_confidence if spec else None)
        )
        with Vertical(classes="dialog-box", id="promote-box"):
            yield Label(plain(f"Promote {draft.rel}", "bold"))
            if self.supersedes:
                yield Label(plain(f"superseding: {self.supersedes}", "yellow"), id="promote-old")
            yield Label("Name")
            yield Input(one_line(draft.name), id="promote-name")
            yield Label("Description")
            yield Input(one_line(draft.description), id="promote-description")
            yield Label("Type")
            yield Select(
                types,
                value=draft.type if spec else Select.NULL,
                id="promote-type",
                allow_blank=spec is None,
            )
            yield Label("Confidence")
            yield Input("" if conf is None else f"{conf:g}", id="promote-confidence")
            yield Label("Scope")
            yield Select(
                scopes,
                value=draft.scope if draft.scope in names else Select.NULL,
                id="promote-scope",
            )
            yield Static("", id="promote-problems", classes="error")
            yield Label("Enter or ctrl+s: plan the promote · Escape: cancel", classes="hint")

    def on_mount(self) -> None:
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

    def problems(self) -> list[str]:
        try:
            from curator.writer.planners import validate_promote
        except ImportError:
            return []
        return [clean(p) for p in validate_promote(self.palace, self.draft.rel, self.fields())]

    def validate(self) -> list[str]:
        found = self.problems()
        self.query_one("#promote-problems", Static).update(Text("\n".join(found)))
        return found

    def on_input_changed(self, _event: Input.Changed) -> None:
        self.validate()

    def on_select_changed(self, _event: Select.Changed) -> None:
        self.validate()

    def on_input_submitted(self, _event: Input.Submitted) -> None:
        self.action_submit()

    def action_submit(self) -> None:
        if self.validate():
            self.notify("Fix the problems shown first", severity="warning", markup=False)
            return
        self.dismiss(self.fields())

    def action_cancel(self) -> None:
        self.dismiss(None)
