"""The inbox's duplicate candidates: looked up for the selected draft one lookup at a time,
listed best first, and the chosen one shown beside the draft as a word-level diff."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from curator.ui import services
from curator.ui.safe import plain
from curator.ui.screens.draft_list import DraftList
from curator.ui.widgets.candidate_diff import CandidateDiff

INBOX_ZERO = (
    "Inbox zero: nothing to review.\n\n"
    "Agents' drafts (curator capture, the MCP server, hooks) land in inbox/ and show here as "
    "they arrive. 2: Rooms · 3: Audit · 4: Search."
)


class CandidatePane(DraftList):
    """A draft list whose selected draft has duplicate candidates (#inbox-candidates) and a
    diff against the chosen one (a CandidateDiff)."""

    def __init__(self) -> None:
        super().__init__()
        self.candidates: list[services.Found] = []
        self.candidate_index = 0
        self.selected: str | None = None
        self.searched = False  # the candidates of the selected draft have been looked up
        self._looking = False  # a candidate lookup is running
        self._look_again = False  # the selection or the palace changed meanwhile

    def _look_up(self) -> None:
        """Look up the selected draft's candidates, one lookup at a time: a lookup waits while
        an index sync runs, and one per reload or cursor move would fill the thread pool that
        every other worker (planning, commits, reloads) needs until the sync ends."""
        if self._looking:
            self._look_again = True
            return
        if self.selected is None:
            return
        self._looking = True
        self.find_candidates(self.selected)

    @work(thread=True, group="dupes", exit_on_error=False)
    def find_candidates(self, rel: str) -> None:
        found: list[services.Found] | None = None
        try:
            palace = self.palace  # not an argument (see CuratorApp._index_job)
            draft = palace.by_rel.get(rel) if palace is not None else None
            if palace is not None and draft is not None:
                found = self.curator.search_session.dupes(palace, draft)
        finally:
            self.app.call_from_thread(self._looked, rel, found)

    def _looked(self, rel: str, found: list[services.Found] | None) -> None:
        self._looking = False
        if found is not None:
            self._got_candidates(rel, found)
        if self._look_again:  # for the draft selected now, in the palace loaded now
            self._look_again = False
            self._look_up()

    def _got_candidates(self, rel: str, found: list[services.Found]) -> None:
        if rel != self.selected:
            return
        keep = self.chosen()
        self.candidates = found
        self.searched = True
        paths = [c.path for c in found]
        self.candidate_index = paths.index(keep.path) if keep and keep.path in paths else 0
        options = self.query_one("#inbox-candidates", OptionList)
        options.clear_options()
        for c in found:
            prompt = Text(f"{c.score:.2f} ", style="cyan").append_text(plain(c.name))
            options.add_option(Option(prompt, id=c.path))
        if not found:
            options.add_option(Option(Text("no similar note", style="dim"), disabled=True))
        else:
            options.highlighted = self.candidate_index
        self._show_candidate()

    def _show_candidate(self) -> None:
        draft = self.find(self.selected)
        diff = self.query_one(CandidateDiff)
        if draft is None:
            diff.show(INBOX_ZERO if not self.drafts else "", None, empty="")
            return
        candidate = self.chosen()
        note = self.find(candidate.path) if candidate else None
        title = plain(f"candidate: {note.name}", "bold") if note else None
        empty = "(no candidate)" if self.searched else "indexing…"
        if not self.searched and self.curator.search_session.ready:
            empty = "looking for candidates…"
        diff.show(draft.body, note.body if note else None, title, empty=empty)

    def chosen(self) -> services.Found | None:
        if not self.candidates:
            return None
        return self.candidates[self.candidate_index % len(self.candidates)]

    @on(OptionList.OptionHighlighted, "#inbox-candidates")
    def _candidate(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_index is not None and event.option_index < len(self.candidates):
            self.candidate_index = event.option_index
            self._show_candidate()

    def action_candidate(self, step: int) -> None:
        if self.candidates:
            index = (self.candidate_index + step) % len(self.candidates)
            self.query_one("#inbox-candidates", OptionList).highlighted = index

    def _candidate_note(self) -> services.Found | None:
        """The candidate shown, or None with why (none is similar, or none is listed yet)."""
        candidate = self.chosen()
        if candidate is None:
            why = "No similar note to merge into"
            if not self.searched:
                why = "Still looking for candidates: merge once one is listed"
            self.notify(why, severity="warning", markup=False)
        return candidate
