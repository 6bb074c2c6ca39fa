"""A draft's duplicate candidates: looked up in a thread worker (the newest lookup wins),
listed best first, and the chosen one shown beside the draft as a word-level diff."""

from __future__ import annotations

from typing import cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import OptionList
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from curator.model.note import Note
from curator.ui import services
from curator.ui.safe import header_problem, plain
from curator.ui.services import Found
from curator.ui.shell import Shell
from curator.ui.widgets.candidate_diff import CandidateDiff
from curator.ui.widgets.options import Options


class CandidatePane(Vertical):
    """The candidates of the draft shown (`show`), in `#<id>-list`, and the diff against the
    one highlighted there, in `#<id>-diff`. `empty` is what the diff says with no draft."""

    def __init__(self, *, list_id: str, diff_id: str, id: str | None = None) -> None:
        super().__init__(id=id)
        self.list_id, self.diff_id = list_id, diff_id
        self.candidates: list[Found] = []
        self.index = 0
        self.draft: str | None = None  # the draft's rel
        self.searched = False  # the candidates of the draft have been looked up
        self.empty = ""

    def compose(self) -> ComposeResult:
        yield Options(id=self.list_id)
        yield CandidateDiff(id=self.diff_id)

    @property
    def shell(self) -> Shell:
        return cast(Shell, self.app)

    @property
    def options(self) -> OptionList:
        return self.query_one(f"#{self.list_id}", OptionList)

    def show(self, draft: Note | None, *, again: bool = False, empty: str = "") -> None:
        """Show `draft`'s candidates (looked up anew when it is another draft, or `again`:
        the palace changed)."""
        self.empty = empty
        if draft is not None and draft.rel == self.draft and not again:
            return
        if draft is None or draft.rel != self.draft:
            self.candidates, self.index, self.searched = [], 0, False
            self.options.clear_options()
        self.draft = draft.rel if draft is not None else None
        if draft is not None and not draft.ok:  # nothing to compare: say why, look up nothing
            self.searched = True
            self.options.clear_options()
            self.options.add_option(Option(Text(header_problem(draft), style="red"), disabled=True))
        self._show_candidate()
        if draft is not None and draft.ok and self.shell.palace is not None:
            self.look_up(draft.rel)

    @work(thread=True, exclusive=True, group="dupes", exit_on_error=False)
    def look_up(self, rel: str) -> None:
        """The draft's candidates; a newer lookup cancels this one. A lookup waits while an
        index sync holds the search session: one cancelled meanwhile ends before it queries."""
        worker = get_current_worker()
        session = self.shell.session
        palace = self.shell.palace  # not an argument (see IndexJobs._run)
        draft = palace.by_rel.get(rel) if palace is not None else None
        if palace is None or draft is None:
            return
        session.searcher(palace)  # (waits for a running sync)
        if worker.is_cancelled:
            return
        found = services.dupes(session, palace, draft)
        if not worker.is_cancelled:
            self.app.call_from_thread(self._got, rel, found)

    def _got(self, rel: str, found: list[Found]) -> None:
        if rel != self.draft:
            return
        keep = self.chosen()
        self.candidates = found
        self.searched = True
        paths = [c.path for c in found]
        self.index = paths.index(keep.path) if keep and keep.path in paths else 0
        options = self.options
        options.clear_options()
        for c in found:
            prompt = Text(f"{c.score:.2f} ", style="cyan").append_text(plain(c.name))
            options.add_option(Option(prompt, id=c.path))
        if not found:
            options.add_option(Option(Text("no similar note", style="dim"), disabled=True))
        else:
            options.highlighted = self.index
        self._show_candidate()

    def _show_candidate(self) -> None:
        palace = self.shell.palace
        draft = palace.by_rel.get(self.draft) if palace is not None and self.draft else None
        diff = self.query_one(CandidateDiff)
        if draft is None or palace is None:
            diff.show(self.empty, None, empty="")
            return
        candidate = self.chosen()
        note = palace.by_rel.get(candidate.path) if candidate else None
        title = plain(f"candidate: {note.name}", "bold") if note else None
        empty = "(no candidate)" if self.searched else "indexing…"
        if not draft.ok:
            empty = "(its header does not parse: e edits it)"
        if not self.searched and self.shell.session.index.ready:
            empty = "looking for candidates…"
        diff.show(draft.body, note.body if note else None, title, empty=empty)

    def redraw(self) -> None:
        """Draw the draft and its candidate again (a secret revealed or masked)."""
        self._show_candidate()

    def chosen(self) -> Found | None:
        if not self.candidates:
            return None
        return self.candidates[self.index % len(self.candidates)]

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_index is not None and event.option_index < len(self.candidates):
            self.index = event.option_index
            self._show_candidate()

    def step(self, step: int) -> None:
        """Highlight the next (1) or previous (-1) candidate."""
        if self.candidates:
            self.options.highlighted = (self.index + step) % len(self.candidates)

    def enter(self) -> None:
        """Into the candidates (the diff follows the one highlighted)."""
        options = self.options
        options.focus()
        if options.highlighted is None and self.candidates:
            options.highlighted = 0

    def candidate(self) -> Found | None:
        """The candidate shown, or None with why (none is similar, or none is listed yet)."""
        candidate = self.chosen()
        if candidate is None:
            why = "No similar note to merge into"
            if not self.searched:
                why = "Still looking for candidates: merge once one is listed"
            self.notify(why, severity="warning", markup=False)
        return candidate
