"""The app's one door to the core: the functions the CLI calls, and nothing the UI decides.

The rest of the app imports this module, never a planner, scanner, audit or history module:
every action the app offers is planned here by the same planner the CLI command uses, applied
by the same `curator.session.Session.commit`, and undone by the same undo planner. The core
modules are imported inside the functions (they may pull in git or LanceDB); everything but
`merged_body` (two notes' text) runs in worker threads.

Bulk actions (several drafts or notes at once) are one Plan and one commit, planned by
`curator.writer.actions.bulk`; tags by `curator.writer.actions.tag`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator.editor import editor_command, run_editor
from curator.model import fuzzy
from curator.model.note import Note
from curator.model.palace import Palace
from curator.session import Session
from curator.ui.lookup import DraftGroup, Found, dupes, groups, search
from curator.writer.actions.bulk import plan_bulk
from curator.writer.plan import Plan

if TYPE_CHECKING:
    from curator.audit.report import AuditReport

__all__ = [
    "Cancelled",
    "DraftGroup",
    "Found",
    "Plan",
    "Planning",
    "Session",
    "bulk_plan",
    "commit",
    "dupes",
    "edit_problems",
    "editor_command",
    "group_plan",
    "groups",
    "history",
    "plan_bulk",
    "plan_edit",
    "plan_merge_draft",
    "plan_promote",
    "plan_reject",
    "plan_retire",
    "plan_review",
    "plan_supersede",
    "plan_tag",
    "plan_undo",
    "promote_problems",
    "run_audit",
    "run_editor",
    "search",
    "secrets_in",
    "sync",
    "sync_plan",
]


# -- a plan being made: how far, and the person's cancel ----------------------------------------
class Cancelled(Exception):
    """The person cancelled a plan while it was being made: nothing was written."""


class Planning:
    """A bulk plan being made in a worker thread, shared with the dialog that shows it: `step`
    is `plan_bulk`'s progress (done of total), and raises Cancelled once `cancel` was called,
    which stops the planning before the next draft or note (planning writes nothing)."""

    def __init__(self) -> None:
        self.done = 0
        self.total = 0
        self._cancelled = threading.Event()

    def step(self, done: int, total: int) -> None:
        if self._cancelled.is_set():
            raise Cancelled
        self.done, self.total = done, total

    def cancel(self) -> None:
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()


def bulk_plan(
    action: str, rels: list[str], build: Callable[[Palace, str], Plan], reason: str
) -> tuple[Callable[[Palace], Plan], Planning]:
    """`plan_bulk` of `rels` as the app runs a plan (`CuratorApp.run_plan(build, planning)`),
    with the Planning its dialog shows and cancels."""
    planning = Planning()

    def plan(palace: Palace) -> Plan:
        return plan_bulk(palace, action, rels, build, reason, progress=planning.step)

    return plan, planning


def group_plan(
    drafts: list[str], decision: str, into: str = ""
) -> tuple[Callable[[Palace], Plan], Planning]:
    """A group of near-duplicate drafts decided at once (`curator.writer.actions.group`), as
    the app runs a plan, with the Planning its dialog shows and cancels."""
    from curator.writer.actions.group import plan_group

    planning = Planning()

    def plan(palace: Palace) -> Plan:
        return plan_group(palace, drafts, decision, into=into, progress=planning.step)

    return plan, planning


# -- single actions: the CLI's planners ---------------------------------------------------------
def plan_promote(palace: Palace, rel: str, **fields: Any) -> Plan:
    from curator.writer.actions.promote import plan_promote as plan

    return plan(palace, rel, **fields)


def promote_problems(palace: Palace, rel: str, fields: dict[str, Any]) -> list[str]:
    """What would stop promoting the draft with these field values (live form validation)."""
    from curator.writer.actions.promote import validate_promote

    return validate_promote(palace, rel, fields)


def plan_reject(palace: Palace, rel: str, reason: str) -> Plan:
    from curator.writer.actions.reject import plan_reject as plan

    return plan(palace, rel, reason)


def plan_edit(palace: Palace, rel: str, text: str, reason: str = "") -> Plan:
    from curator.writer.actions.edit import plan_edit as plan

    return plan(palace, rel, text.encode("utf-8"), reason=reason)


def edit_problems(palace: Palace, rel: str, text: str) -> list[str]:
    """Why the edited text would be refused ([] when it would be planned), so an editor can keep
    the reviewer's text open and say what to fix instead of throwing it away."""
    from curator.errors import CuratorError
    from curator.writer.actions.edit import edit_problems as problems

    note = palace.by_rel.get(rel)
    if note is not None and text == note.text:
        return []
    try:
        return problems(palace, rel, text.encode("utf-8"))
    except CuratorError as exc:  # the note is gone or the name matches no note
        return [str(exc)]


def plan_merge_draft(palace: Palace, rel: str, into: str, text: str | None = None) -> Plan:
    """Fold the draft into the note `into`; with `text`, the reviewer's edited merged body
    replaces the merged note's body (what repeats removed) in the same plan."""
    from curator.writer.actions.merge import plan_merge_draft as plan

    return plan(palace, rel, into, body=text)


def merged_body(palace: Palace, rel: str, into: str) -> str:
    """The body the merge would give `into`, for the reviewer to edit before planning; refused
    as the merge would be. Made from the loaded palace's two notes (no plan, no disk, no index),
    so the app opens the editor on the event loop at once, whatever the workers are doing."""
    from curator.writer.actions.merge import draft_merge_body

    return draft_merge_body(palace, rel, into)[2]


def plan_supersede(palace: Palace, old: str, new: str) -> Plan:
    from curator.writer.actions.supersede import plan_supersede as plan

    return plan(palace, old, new)


def plan_retire(palace: Palace, rel: str, reason: str) -> Plan:
    from curator.writer.actions.retire import plan_retire as plan

    return plan(palace, rel, reason)


def plan_review(palace: Palace, rel: str) -> Plan:
    from curator.writer.actions.review import plan_mark_reviewed

    return plan_mark_reviewed(palace, rel)


def plan_tag(palace: Palace, rel: str, tag: str) -> Plan:
    """Add `tag` to the note's or draft's tags (an edit of its header)."""
    from curator.writer.actions.tag import plan_tag as plan

    return plan(palace, rel, tag)


def plan_undo(palace: Palace, sha: str | None = None) -> Plan:
    """The undo the CLI's `curator undo` plans (INDEX.md rebuilt, not reverted)."""
    from curator.writer.actions.undo import undo

    return undo(palace.root, sha, palace=palace)


def commit(
    session: Session,
    plan: Plan,
    palace: Palace | None = None,
    on_committed: Callable[[str], None] | None = None,
) -> Any:
    """Apply `plan` as one commit of the app's session, as the CLI does (`Session.commit`):
    its open index follows in the writer lock, from the planner's 'after' palace.
    `on_committed(sha)` runs once git has the commit, before the index update."""
    return session.commit(plan, palace=palace, on_committed=on_committed)


def history(root: Path) -> list[Any]:
    from curator.writer.history import history as read_history

    return read_history(root)


def changed_files(root: Path, sha: str) -> list[str]:
    """The files one commit changed (palace-relative where they are in the palace)."""
    from curator.writer.history import changed_files as files

    return files(root, sha)


# -- audit ---------------------------------------------------------------------------------------
def run_audit(
    palace: Palace,
    refs: list[str] | None,
    today: date,
    progress: Callable[..., None] | None = None,
) -> tuple[AuditReport, Plan | None]:
    """Audit the notes (all with None) as `curator audit` does; the stale changes as a plan."""
    from curator.audit.run import plan_audit
    from curator.audit.run import run_audit as audit

    report = audit(palace, refs, today=today, progress=progress)
    return report, plan_audit(palace, report, today)


# -- what the inbox warns about -----------------------------------------------------------------
def secrets_in(text: str) -> list[Any]:
    """Secret-looking values in the text, as promote's check sees them."""
    from curator.writer.secrets import scan

    return scan(text)


SECRET_MASK = "••••••••"


def masked(text: str) -> str:
    """`text` with each value the secret scanner flags replaced by SECRET_MASK: what a pane
    shows until the reviewer asks to see it (a live key is never on screen by default)."""
    from curator.writer.secrets import spans

    found = spans(text)
    if not found:
        return text
    out: list[str] = []
    at = 0
    for start, end in found:
        out.append(text[at:start])
        out.append(SECRET_MASK)
        at = end
    out.append(text[at:])
    return "".join(out)


def notes_named(palace: Palace, query: str, limit: int = 40) -> list[Note]:
    """Notes whose name (or path) matches `query`, best first (the note pickers)."""
    notes = [n for n in palace.notes if n.ok]
    if not query.strip():
        return notes[:limit]
    names = [f"{n.name} {n.slug}" for n in notes]  # by name or file name
    found = fuzzy.closest(query, names, limit)
    # a fuzzy score ties an exact name with every name that contains it, and can rank a name
    # that merely shares letters above one holding the query whole: so a note named exactly
    # so first, then names containing the query (best score first), then the fuzzy rest
    wanted = query.strip().casefold()
    exact = [n for n in notes if wanted in (n.name.strip().casefold(), n.slug.casefold())]
    first = {id(n) for n in exact}
    scores = dict(found)
    within = sorted(
        (i for i, n in enumerate(notes) if id(n) not in first and wanted in n.name.casefold()),
        key=lambda i: -scores.get(i, fuzzy.score(query, names[i])),
    )
    first |= {id(notes[i]) for i in within}
    rest = [notes[i] for i, _score in found if id(notes[i]) not in first]
    return (exact + [notes[i] for i in within] + rest)[:limit]


# -- the team's remote: `curator sync` ----------------------------------------------------------
def sync_plan(
    root: Path,
    resolutions: dict[str, Any] | None = None,
    on_transfer: Callable[[Any], None] | None = None,
) -> Any:
    """What `curator sync --dry-run` shows: a `curator.writer.sync.SyncPlan` (it fetches;
    git's progress goes to `on_transfer`)."""
    from curator.writer.sync import plan_sync

    return plan_sync(root, None, resolutions, on_transfer=on_transfer)


def sync(
    session: Session,
    resolutions: dict[str, Any] | None = None,
    on_transfer: Callable[[Any], None] | None = None,
) -> Any:
    """`curator sync` with these conflicts settled ({path: "mine" | "theirs" | the merged
    bytes, as `--merged PATH=FILE` gives them}), by the app's session (its index follows the
    pull); the result, or raises SyncConflictError (nothing changed) with the conflicts left.
    git's progress goes to `on_transfer`."""
    return session.sync(None, resolutions, on_transfer=on_transfer)


def merge_start(root: Path, conflict: Any) -> bytes:
    """The text a hand merge of a sync conflict starts from (both sides, git's markers)."""
    from curator.writer.syncmerge import merge_start as start

    return start(root, conflict)


def merge_problems(path: str, data: bytes) -> list[str]:
    """Why a merged text cannot settle the conflict on `path` (the CLI's `--merged` check)."""
    from curator.writer.syncmerge import merge_problems as problems

    return problems(path, data)
