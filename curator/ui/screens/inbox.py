"""Inbox: drafts newest first; the selected draft beside its duplicate candidates and a diff.

The list refreshes itself, as k9s's do: a draft another process writes (an agent's capture, a
sync) or an undo brings back is listed as soon as the palace reloads (the app watches it), and
the cursor stays on the draft it was on. After an action the cursor stays on the same row,
which is then the next draft. Marked drafts (space,
shift+arrows, * for all like this) are rejected, promoted or tagged in one plan and one commit.

`G` lists groups instead of rows: drafts that are near-duplicates of each other, with the note
they are most like (`curator.search.dupes.draft_groups`, the candidates' own rule). A group is
decided with one key, as one plan and one commit: `p` promotes its best draft and rejects the
rest, `m` merges them all into one new note, `f` folds them all into the note; `x` and `g`
reject or tag the whole group. After a commit the groups are kept (minus the drafts that left);
drafts no group holds yet are grouped again in a thread.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, OptionList, Static
from textual.worker import get_current_worker

from curator.model.note import Note, strip_banner
from curator.model.palace import Palace
from curator.model.text import one_line
from curator.ui import services
from curator.ui.safe import header_problem, plain
from curator.ui.screens.base import PalaceScreen, note_words
from curator.ui.screens.drafts import (
    OWN_TYPE,
    SOURCE_WIDTH,
    bulk_types,
    context_preview,
    draft_age,
    draft_days,
    draft_source,
    newest_first,
    source_words,
    warnings,
)
from curator.ui.widgets.candidate_diff import CandidateDiff
from curator.ui.widgets.candidates import CandidatePane
from curator.ui.widgets.dialogs import AskDialog, ChoiceDialog, ConfirmDialog, NotePicker
from curator.ui.widgets.list_filter import ListFilter
from curator.ui.widgets.marked_table import MarkedTable, mark_bindings
from curator.ui.widgets.promote_form import PromoteForm
from curator.ui.widgets.table import Row, Table

#: the footer's words for the keys that decide a whole group (in rows: the bindings' own)
GROUP_LABELS = {
    "promote": "Keep best",
    "reject": "Reject all",
    "merge": "Merge all",
    "fold": "Fold all",
    "toggle_groups": "Rows",
}
INTO_WIDTH = 24  # at most: the groups' Into column (a note's name) yields to the best draft
CANDIDATES = Binding.Group("Cand.")  # [ and ] show as one key in the footer


def inbox_zero(folder: str) -> str:
    """The empty Inbox's text, naming the palace's drafts folder (`Palace.inbox`)."""
    return (
        "Inbox zero: nothing to review.\n\n"
        f"Agents' drafts (curator capture, the MCP server, hooks) land in {folder}/ and show "
        "here as they arrive. 2: Rooms · 3: Audit · 4: Search."
    )


class InboxScreen(PalaceScreen):
    MODE = "inbox"
    MAIN = "#inbox-drafts"
    BINDINGS = [
        Binding("p", "promote", "Promote", id="inbox.promote", tooltip="Promote into the palace"),
        Binding("x", "reject", "Reject", id="inbox.reject", tooltip="Reject with a reason"),
        Binding("e", "edit", "Edit", id="inbox.edit", tooltip="Edit the draft's text"),
        Binding(
            "enter",
            "open",
            "Open",
            id="inbox.open",
            show=False,
            priority=True,
            tooltip="Into the draft's candidates (Escape: back)",
        ),
        Binding("m", "merge", "Merge", id="inbox.merge", tooltip="Merge into the candidate"),
        Binding("g", "tag", "Tag", id="inbox.tag", tooltip="Add a tag to the draft(s)"),
        Binding(
            "G",
            "toggle_groups",
            "Groups",
            id="inbox.groups",
            tooltip="List groups of near-duplicate drafts, or rows again",
        ),
        Binding(
            "f",
            "fold",
            "Fold",
            id="inbox.fold",
            tooltip="Fold the draft (in groups: every draft of the group) into the note",
        ),
        Binding(
            "V",
            "reveal",
            "Reveal",
            id="inbox.reveal",
            show=False,
            tooltip="Show or mask the values the secret scanner flags in the draft",
        ),
        Binding(
            "left_square_bracket",
            "candidate(-1)",
            "Prev cand.",
            id="inbox.prev_candidate",
            group=CANDIDATES,
            tooltip="Diff against the previous candidate",
        ),
        Binding(
            "right_square_bracket",
            "candidate(1)",
            "Next cand.",
            id="inbox.next_candidate",
            group=CANDIDATES,
            tooltip="Diff against the next candidate",
        ),
        Binding(
            "s",
            "supersede",
            "Supersede",
            id="inbox.supersede",
            tooltip="Promote this draft as the note that replaces the candidate",
        ),
        *mark_bindings("inbox", "draft", "Mark every draft from the same source"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.drafts: list[Note] = []  # every draft listed (the filter may show fewer)
        self.grouped = False  # groups listed instead of rows (G)
        self.groups: list[services.DraftGroup] = []  # as last grouped, minus drafts gone
        self.grouping = False  # a grouping runs in a thread

    def body(self) -> ComposeResult:
        with Horizontal(id="inbox-main"):
            table = MarkedTable(
                flex="name",
                id="inbox-drafts",
                what="draft",
                alike=self._alike,
                name_of=self.name_of,
            )
            table.loading = True
            yield table
            with Vertical(id="inbox-detail"):
                yield Static(Text(), id="inbox-warnings")
                yield CandidatePane(list_id="inbox-candidates", diff_id="inbox-diff")
        yield ListFilter("#inbox-drafts", id="inbox-filter")

    def on_mount(self) -> None:
        self._columns()
        self.query_one("#inbox-drafts", Table).border_title = "Inbox"
        self.query_one("#inbox-candidates", OptionList).border_title = "Duplicate candidates"

    def _columns(self) -> None:
        """The list's columns: a draft's, or a group's."""
        table = self.query_one("#inbox-drafts", Table)
        table.clear(columns=True)
        for held in (table.fixed, table.fitted, table.labels):
            held.clear()
        table.sort_by, table.descending = None, False
        table.add_fixed(" ", "mark", 1)
        if self.grouped:
            table.add_fitted("Drafts", "count", 6)
            # the note's name, cut before the best draft's (what the key decides on): at 80
            # columns 24 cells leave the draft 40
            table.add_fitted("Into", "into", INTO_WIDTH)
            table.add_flex("Best draft")
            table.sortable = ()
        else:
            table.add_fitted("Age", "age", 5)
            table.add_fitted("Source", "source", SOURCE_WIDTH)
            table.add_flex("Draft")
            table.sortable = ("age", "source", "name")

    # -- drawing -------------------------------------------------------------------------------
    def palace_changed(self, palace: Palace) -> None:
        table = self.query_one("#inbox-drafts", Table)
        table.loading = False
        if self.grouped:
            self._draw_groups(palace)
            return
        self.drafts = newest_first(list(palace.drafts))
        self.marks.keep_only({d.rel for d in self.drafts})
        today = self.curator.today
        rows = [
            Row(
                note.rel,
                (
                    Text(draft_age(note, today)),
                    plain(source_words(note), "dim"),
                    plain(note.name or note.rel),
                ),
                note_words(note),
                {"age": (draft_days(note, today) is None, draft_days(note, today) or 0)},
            )
            for note in self.drafts
        ]
        table.show(rows)  # the cursor on the same draft, or the one that took its row
        self._title()
        self.show_draft(self.current(), reload=True)

    # -- groups ------------------------------------------------------------------------------
    def key_label(self, action: str) -> str | None:
        """The footer's word for a key in groups: what it does to the whole group."""
        return GROUP_LABELS.get(action) if self.grouped else None

    def action_toggle_groups(self) -> None:
        self.grouped = not self.grouped
        self.refresh_bindings()  # the footer words the keys for groups, or rows again
        self.marks.unmark()
        self._columns()
        if self.palace is not None:
            self.palace_changed(self.palace)

    def _draw_groups(self, palace: Palace) -> None:
        """The groups as last made, without the drafts that left; drafts no group holds (new
        ones, or the first time) are grouped again in a thread, and the list follows."""
        present = {d.rel: d for d in palace.drafts}
        kept = []
        for group in self.groups:
            drafts = tuple(rel for rel in group.drafts if rel in present)
            if not drafts:
                continue
            note = palace.by_rel.get(group.into) if group.into else None
            into = group.into if note is not None and not note.superseded else ""
            kept.append(services.DraftGroup(drafts, into, group.into_name if into else ""))
        self.groups = kept
        held = {rel for g in kept for rel in g.drafts}
        self.drafts = newest_first(list(palace.drafts))
        if len(held) != len(present) and not self.grouping:
            self.grouping = True
            self._group(palace)
        table = self.marks
        rows = [
            Row(
                group.drafts[0],
                (
                    Text(str(len(group.drafts)), style="bold" if len(group.drafts) > 1 else ""),
                    plain(group.into_name, "cyan") if group.into else Text("new note", "dim"),
                    plain(self.name_of(group.drafts[0])),
                ),
                " ".join(note_words(present[rel]) for rel in group.drafts),
            )
            for group in kept
        ]
        table.show(rows)
        self._title()
        self.show_draft(self.current(), reload=True)

    @work(thread=True, exclusive=True, group="groups", exit_on_error=False)
    def _group(self, palace: Palace) -> None:
        """Group the palace's drafts (the index synced to it first); the newest request wins."""
        worker = get_current_worker()
        try:
            groups = services.groups(self.curator.session, palace)
        except Exception as exc:
            self.app.call_from_thread(self._grouped, None, exc)
            return
        if not worker.is_cancelled:
            self.app.call_from_thread(self._grouped, groups, None)

    def _grouped(self, groups: list[services.DraftGroup] | None, exc: Exception | None) -> None:
        self.grouping = False
        if exc is not None or groups is None:
            self.curator.error(exc or RuntimeError("grouping failed"))
            return
        self.groups = groups
        if self.grouped and self.palace is not None and self.is_mounted:
            self.palace_changed(self.palace)

    def group_of(self, rel: str | None) -> services.DraftGroup | None:
        """The group listed on `rel`'s row (its best draft's)."""
        return next((g for g in self.groups if g.drafts[0] == rel), None)

    def _decide(self, decision: str) -> None:
        group = self.group_of(self.marks.current_key())
        if group is None:
            self.notify("No group selected", severity="warning", markup=False)
            return
        if decision == "fold" and not group.into:
            self.notify(
                "This group is like no note: p promotes its best draft, m merges it into one",
                severity="warning",
                markup=False,
            )
            return
        self.curator.run_plan(*services.group_plan(list(group.drafts), decision, group.into))

    def action_fold(self) -> None:
        """Fold the group into the note it is most like; in rows, the draft into the candidate
        shown (its text appended as it is: `m` opens it for editing first)."""
        if self.grouped:
            self._decide("fold")
            return
        draft = self._draft()
        candidate = self.pane.candidate() if draft else None
        if draft is None or candidate is None:
            return
        self.marks.one_row("Fold")
        rel, into = draft.rel, candidate.path
        self.curator.run_plan(lambda p: services.plan_merge_draft(p, rel, into))

    @on(Table.Arranged, "#inbox-drafts")
    @on(MarkedTable.MarksChanged, "#inbox-drafts")
    def _title(self) -> None:
        table = self.marks
        if self.grouped:
            groups = len(table.shown)
            title = f"Inbox: {groups} group{'s' if groups != 1 else ''} of {len(self.drafts)}"
            table.border_title = title + (" · grouping…" if self.grouping else "")
            return
        shown = len(table.shown)
        count = f"{shown} of {len(self.drafts)}" if shown != len(self.drafts) else str(shown)
        title = f"Inbox ({count})"
        if table.marked:
            title += f" · {len(table.marked)} marked"
        table.border_title = title

    @property
    def listed(self) -> list[str]:
        """The rels of the drafts listed, in their order (the filter may show fewer)."""
        return [d.rel for d in self.drafts]

    @property
    def pane(self) -> CandidatePane:
        return self.query_one(CandidatePane)

    @property
    def selected(self) -> str | None:
        """The draft whose candidates show."""
        return self.pane.draft

    @property
    def searched(self) -> bool:
        return self.pane.searched

    @property
    def candidates(self) -> list[services.Found]:
        return self.pane.candidates

    def chosen(self) -> services.Found | None:
        return self.pane.chosen()

    def current(self) -> Note | None:
        return self.find(self.marks.current_key())

    def _draft(self) -> Note | None:
        draft = self.current()
        if draft is None:
            self.notify("No draft selected: the inbox is empty", severity="warning", markup=False)
        return draft

    def _alike(self, rel: str, other_rel: str) -> bool:
        """From the same source (of the same type when the draft names none)."""
        one, other = self.find(rel), self.find(other_rel)
        if one is None or other is None:
            return False
        source = draft_source(one)
        return draft_source(other) == source if source else other.type == one.type

    def _targets(self, verb: str) -> list[str]:
        """The marked drafts (in list order), else the selected one; in groups, the group's."""
        if self.grouped:
            group = self.group_of(self.marks.current_key())
            return list(group.drafts) if group is not None else []
        if not self.marked:
            self._draft()  # says why, when none is selected
        return self.marks.targets(verb)

    @on(DataTable.RowHighlighted, "#inbox-drafts")
    def _row(self, _event: DataTable.RowHighlighted) -> None:
        self.show_draft(self.current())

    def show_draft(self, draft: Note | None, *, reload: bool = False) -> None:
        """Show the draft's warnings (from its current text) and its candidates; in groups,
        the group's drafts first."""
        shown = warnings(draft) if draft else Text()
        group = self.group_of(draft.rel) if self.grouped and draft is not None else None
        if group is not None and len(group.drafts) > 1:
            names = Text(f"Group of {len(group.drafts)}: ", style="bold")
            names.append_text(Text(" · ").join(plain(self.name_of(r)) for r in group.drafts))
            shown = Text("\n").join([t for t in (names, shown) if t.plain])
        if draft is not None and (context := context_preview(draft)).plain:
            shown = Text("\n").join([t for t in (shown, context) if t.plain])
        box = self.query_one("#inbox-warnings", Static)
        box.update(shown)
        box.display = bool(shown.plain)
        folder = self.palace.inbox if self.palace is not None else "the inbox"
        self.pane.show(draft, again=reload, empty="" if self.drafts else inbox_zero(folder))

    def action_reveal(self) -> None:
        diff = self.query_one(CandidateDiff)
        diff.reveal = not diff.reveal
        self.pane.redraw()
        said = "Secrets shown: V masks them again" if diff.reveal else "Secrets masked"
        self.notify(said, markup=False, timeout=3)

    def action_candidate(self, step: int) -> None:
        self.pane.step(step)

    # -- actions -------------------------------------------------------------------------------
    def action_promote(self) -> None:
        if self.grouped:
            self._decide("keep")
            return
        rels = self._targets("Promote")
        palace = self.palace
        if not rels or palace is None:
            return
        if len(rels) > 1:
            self.app.push_screen(
                ChoiceDialog(f"Promote {len(rels)} drafts as type:", bulk_types(palace, rels)),
                lambda type_: self._promote_all(rels, type_),
            )
            return
        draft = palace.by_rel[rels[0]]
        if not draft.ok:  # no form that could never be submitted: the problem, and edit

            def edit(yes: bool | None) -> None:
                if yes:
                    self.action_edit()

            self.app.push_screen(ConfirmDialog(header_problem(draft, "Edit it now?")), edit)
            return

        def chosen(fields: dict[str, Any] | None) -> None:
            if fields is not None:
                self.curator.run_plan(lambda p: services.plan_promote(p, draft.rel, **fields))

        self.app.push_screen(PromoteForm(palace, draft, services.promote_problems), chosen)

    def _promote_all(self, rels: list[str], type_: str | None) -> None:
        """Promote every draft as `type_`, or each as its own type (OWN_TYPE)."""
        if not type_:
            return
        fields = {} if type_ == OWN_TYPE else {"type": type_}
        self._bulk("promote", rels, lambda p, r: services.plan_promote(p, r, **fields))

    def _bulk(self, action: str, rels: list[str], build: Any, reason: str = "") -> None:
        why = reason or f"Bulk {action} of {len(rels)} drafts in the inbox."
        self.curator.run_plan(*services.bulk_plan(action, rels, build, why))

    def action_reject(self) -> None:
        rels = self._targets("Reject")
        if not rels:
            return

        def reason(text: str | None) -> None:
            if text:
                self._bulk("reject", rels, lambda p, r: services.plan_reject(p, r, text), text)

        self.app.push_screen(
            AskDialog(f"Reject {self._what(rels)}: why?{self._named(rels)}"), reason
        )

    def action_tag(self) -> None:
        rels = self._targets("Tag")
        if not rels:
            return

        def tag(text: str | None) -> None:
            if text:
                build = lambda p, r: services.plan_tag(p, r, text)  # noqa: E731
                self._bulk("tag", rels, build, f"Tagged {text!r}.")

        self.app.push_screen(AskDialog(f"Tag {self._what(rels)} with:{self._named(rels)}"), tag)

    def _what(self, rels: list[str]) -> str:
        return "this draft" if len(rels) == 1 else f"{len(rels)} marked drafts"

    def _named(self, rels: list[str]) -> str:
        """The one draft's name, after the question (a narrow dialog cuts the name, not what
        it asks)."""
        return f" ({self.name_of(rels[0])})" if len(rels) == 1 else ""

    def action_edit(self) -> None:
        draft = self._draft()
        if draft is not None:
            self.marks.one_row("Edit")
            self.curator.edit_then_plan(draft.rel, draft.text)

    def action_open(self) -> None:
        """Enter: from the drafts into the draft's candidates (the diff beside them follows
        the one highlighted); from the filter line back to the list, the filter kept."""
        focused = self.focused
        if isinstance(focused, ListFilter):
            focused.action_done()
        elif isinstance(focused, OptionList):
            focused.action_select()
        elif focused is self.marks and self._draft() is not None:
            self.pane.enter()

    def action_back_out(self) -> None:
        """Escape: from the candidates back to the drafts, else the marks go."""
        if self.focused is self.query_one("#inbox-candidates", OptionList):
            self.query_one("#inbox-drafts", Table).focus()
        else:
            super().action_back_out()

    def action_merge(self) -> None:
        """Open the merged text for editing (remove what repeats), then plan the merge. The
        text is made from the loaded palace's two notes on the event loop: the editor opens at
        once, not behind the index sync, the lookups or any worker that follows a commit. In
        groups: the whole group merged into one new note (its best draft's)."""
        if self.grouped:
            self._decide("merge")
            return
        draft = self._draft()
        candidate = self.pane.candidate() if draft else None
        palace = self.palace
        if draft is None or candidate is None or palace is None:
            return
        self.marks.one_row("Merge")
        rel, into = draft.rel, candidate.path
        try:
            body = services.merged_body(palace, rel, into)
        except Exception as exc:
            self.curator.error(exc)
            return

        def build(text: str) -> Any:
            return lambda p: services.plan_merge_draft(p, rel, into, text)

        # the name cut short: an 80-column dialog keeps the instruction after it
        title = f"Merge into {one_line(candidate.name or into, 26)}: remove what repeats"
        self.curator.edit_then_plan(into, strip_banner(body), build, lambda _t: [], title=title)

    def action_supersede(self) -> None:
        """Promote the draft (through the form) as the note that replaces the candidate, or a
        note picked by name when there is no candidate."""
        draft = self._draft()
        palace = self.palace
        if draft is None or palace is None:
            return
        self.marks.one_row("Supersede with")
        candidate = self.chosen()
        if candidate is not None:
            self._supersede(draft, candidate.path)
            return

        def picked(rel: str | None) -> None:
            if rel:
                self._supersede(draft, rel)

        find = lambda query: services.notes_named(palace, query)  # noqa: E731
        self.app.push_screen(NotePicker("This draft supersedes which note?", find), picked)

    def _supersede(self, draft: Note, old: str) -> None:
        palace = self.palace
        if palace is None:
            return
        name = palace.by_rel[old].name if old in palace.by_rel else old

        def chosen(fields: dict[str, Any] | None) -> None:
            if fields is not None:
                self.curator.run_plan(
                    lambda p: services.plan_promote(p, draft.rel, supersedes=old, **fields)
                )

        form = PromoteForm(palace, draft, services.promote_problems, supersedes=name)
        self.app.push_screen(form, chosen)
