"""What screens, widgets and the palette ask of the app they run in: the palace it publishes,
the day, the search session, and the flows every action goes through. CuratorApp is one; they
never import it (the app imports them)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from curator.model.palace import Palace

if TYPE_CHECKING:
    from textual.worker import Worker

    from curator.ui.services import Plan, Planning, Session

#: an action's planner, given the palace (what `run_plan` shows and commits)
Build = Callable[[Palace], "Plan"]
#: why an edited text would be refused ([]: it would be planned)
Check = Callable[[str], list[str]]


class Shell(Protocol):
    """The app as its screens see it (CuratorApp is one): the palace it publishes, the day,
    the search session, and the flows every action goes through."""

    palace: Palace | None
    root: Path
    today: date
    session: Session

    def run_plan(self, build: Build, planning: Planning | None = None) -> Worker[Plan | None]: ...

    def edit_then_plan(
        self,
        rel: str,
        text: str,
        build: Callable[[str], Build] | None = None,
        check: Check | None = None,
        title: str | None = None,
    ) -> Worker[None]: ...

    def open_note(self, rel: str) -> None: ...

    def pick_note(self) -> None: ...

    def error(self, exc: BaseException) -> None: ...
