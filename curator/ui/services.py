"""The app's one door to the core: the functions the CLI calls, and nothing the UI decides.

Screens and widgets import this module, never a planner, scanner, audit or history module:
every action the app offers is planned here by the same planner the CLI command uses, applied
by the same `curator.writer.session.commit`, and undone by the same undo planner. The core
modules are imported inside the functions (they may pull in git or LanceDB); everything but
`start`, `warnings_for` and `merged_body` (two notes' text) runs in worker threads.

Bulk actions (several drafts or notes at once) are one Plan and one commit: each item is planned
by the CLI's planner against the palace as the items before it leave it, and INDEX.md is
rendered once, for the end state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator.editor import editor_command, run_editor
from curator.model.note import Note
from curator.model.palace import Palace
from curator.ui.lookup import Found, SearchSession, dupes, search, session_for
from curator.writer.plan import Plan

if TYPE_CHECKING:
    from curator.audit.report import AuditReport

__all__ = [
    "Found",
    "SearchSession",
    "commit",
    "dupes",
    "edit_problems",
    "editor_command",
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
    "session_for",
    "start",
    "sync",
    "sync_plan",
]

_started = False


def start() -> None:
    """Once per process: the search index follows every commit (and undo) through the writer's
    after-commit hook, as the CLI's does (`curator.search.register_hooks`, when it exists)."""
    global _started
    if _started:
        return
    _started = True
    import curator.search

    register = getattr(curator.search, "register_hooks", None)
    if register is not None:
        register()


# -- single actions: the CLI's planners ---------------------------------------------------------
def plan_promote(palace: Palace, rel: str, **fields: Any) -> Plan:
    from curator.writer.planners import plan_promote as plan

    return plan(palace, rel, **fields)


def promote_problems(palace: Palace, rel: str, fields: dict[str, Any]) -> list[str]:
    """What would stop promoting the draft with these field values (live form validation)."""
    from curator.writer.planners import validate_promote

    return validate_promote(palace, rel, fields)


def plan_reject(palace: Palace, rel: str, reason: str) -> Plan:
    from curator.writer.planners import plan_reject as plan

    return plan(palace, rel, reason)


def plan_edit(palace: Palace, rel: str, text: str) -> Plan:
    from curator.writer.planners import plan_edit as plan

    return plan(palace, rel, text.encode("utf-8"))


def edit_problems(palace: Palace, rel: str, text: str) -> list[str]:
    """Why the edited text would be refused ([] when it would be planned), so an editor can keep
    the reviewer's text open and say what to fix instead of throwing it away."""
    from curator.errors import CuratorError

    note = palace.by_rel.get(rel)
    if note is not None and text == note.text:
        return []
    try:
        plan_edit(palace, rel, text)
    except CuratorError as exc:
        message = str(exc)
        _head, sep, rest = message.partition(" does not validate: ")
        return rest.split("; ") if sep else [message]
    return []


def plan_merge_draft(palace: Palace, rel: str, into: str, text: str | None = None) -> Plan:
    """Fold the draft into the note `into`; with `text`, the reviewer's edited merged body
    replaces the merged note's body (what repeats removed) in the same plan."""
    from curator.writer.planners import plan_merge_draft as plan

    merged = plan(palace, rel, into)
    if text is None:
        return merged
    return _with_body(palace, merged, into, text)


def merged_body(palace: Palace, rel: str, into: str) -> str:
    """The body the merge would give `into`, for the reviewer to edit before planning; refused
    as the merge would be. Made from the loaded palace's two notes (no plan, no disk, no index),
    so the app opens the editor on the event loop at once, whatever the workers are doing."""
    from curator.writer.actions.merge import draft_merge_body

    return draft_merge_body(palace, rel, into)[2]


def _with_body(palace: Palace, plan: Plan, rel: str, body: str) -> Plan:
    import dataclasses

    from curator.model.note import parse_note
    from curator.writer.plan import Write

    target = palace.find(rel)
    changes = list(plan.changes)
    for index, change in enumerate(changes):
        if isinstance(change, Write) and change.path == target.rel:
            merged = parse_note(target.rel, change.data, "note")
            head = merged.text[: merged.header_end]
            text = body if body.endswith("\n") else body + "\n"
            changes[index] = dataclasses.replace(change, data=(head + text).encode("utf-8"))
    return dataclasses.replace(plan, changes=tuple(changes))


def plan_supersede(palace: Palace, old: str, new: str) -> Plan:
    from curator.writer.planners import plan_supersede as plan

    return plan(palace, old, new)


def plan_retire(palace: Palace, rel: str, reason: str) -> Plan:
    from curator.writer.planners import plan_retire as plan

    return plan(palace, rel, reason)


def plan_review(palace: Palace, rel: str) -> Plan:
    from curator.writer.planners import plan_mark_reviewed

    return plan_mark_reviewed(palace, rel)


def plan_tag(palace: Palace, rel: str, tag: str) -> Plan:
    """Add `tag` to the note's or draft's tags (an edit of its header)."""
    from curator.model.note import edit_header
    from curator.writer.planners import plan_edit as plan

    note = palace.find(rel)
    tags = note.header.get("tags")
    current = [str(t) for t in tags] if isinstance(tags, list) else []
    if tag in current:
        from curator.errors import CuratorError

        raise CuratorError(f"{note.rel} is already tagged {tag!r}")
    return plan(palace, note.rel, edit_header(note, {"tags": [*current, tag]}))


def plan_undo(palace: Palace, sha: str | None = None) -> Plan:
    """The undo the CLI's `curator undo` plans (INDEX.md rebuilt, not reverted)."""
    from curator.writer.actions.undo import undo

    return undo(palace.root, sha, palace=palace)


def commit(
    root: Path,
    plan: Plan,
    palace: Palace | None = None,
    on_committed: Callable[[str], None] | None = None,
) -> Any:
    """Apply `plan` as one commit, as the CLI does; the app's open search store is updated in
    the writer lock from the planner's 'after' palace. `on_committed(sha)` runs once git has
    the commit, before the index update."""
    from curator.writer.session import commit as session_commit

    store = session_for(root).store
    return session_commit(root, plan, palace=palace, store=store, on_committed=on_committed)


def history(root: Path) -> list[Any]:
    from curator.writer.history import history as read_history

    return read_history(root)


def changed_files(root: Path, sha: str) -> list[str]:
    """The files one commit changed (palace-relative where git's paths allow)."""
    import subprocess

    done = subprocess.run(
        ["git", "show", "--name-only", "--format=", "--no-renames", sha],
        cwd=root,
        capture_output=True,
        text=True,
        errors="replace",
        check=False,
    )
    return [line for line in done.stdout.splitlines() if line.strip()]


# -- bulk: one plan, one commit ------------------------------------------------------------------
def plan_bulk(
    palace: Palace,
    action: str,
    rels: Sequence[str],
    build: Callable[[Palace, str], Plan],
    reason: str,
    *,
    today: date | None = None,
) -> Plan:
    """One Plan doing `build(palace, rel)` for every rel: each planned by the CLI's planner
    against the palace as the ones before it leave it; INDEX.md rendered once at the end."""
    from curator.model.palace import INDEX_NAME
    from curator.writer.plan import effects
    from curator.writer.planners import with_index

    if len(rels) == 1:
        return build(palace, rels[0])
    changes: list[Any] = []
    trailers: list[tuple[str, str]] = []
    notes: list[str] = []
    current = palace
    for rel in rels:
        plan = build(current, rel)
        own = [ch for ch in plan.changes if INDEX_NAME not in ch.touched()]
        changes.extend(own)
        trailers.extend(plan.trailers)
        notes.extend(plan.notes)
        current = current.replaced(effects(palace.root, own))
    return Plan(
        action=action,
        notes=tuple(notes),
        reason=reason,
        summary=f"{len(rels)} {'drafts' if action in ('reject', 'promote') else 'notes'}",
        changes=with_index(palace, changes, today),
        trailers=tuple(trailers),
        root=palace.root,
    )


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


def notes_named(palace: Palace, query: str, limit: int = 40) -> list[Note]:
    """Notes whose name (or path) matches `query`, best first (the note pickers)."""
    from rapidfuzz import fuzz, process

    notes = [n for n in palace.notes if n.ok]
    if not query.strip():
        return notes[:limit]
    names = {i: f"{n.name} {n.slug}" for i, n in enumerate(notes)}  # by name or file name
    found = process.extract(query, names, scorer=fuzz.WRatio, limit=limit, score_cutoff=50)
    # a note named exactly so first: a fuzzy score ties it with every name that contains it
    wanted = query.strip().casefold()
    exact = [n for n in notes if wanted in (n.name.strip().casefold(), n.slug.casefold())]
    first = {id(n) for n in exact}
    rest = [notes[i] for _name, _score, i in found if id(notes[i]) not in first]
    return (exact + rest)[:limit]


# -- the team's remote: `curator sync` ----------------------------------------------------------
def sync_plan(root: Path, resolutions: dict[str, Any] | None = None) -> Any:
    """What `curator sync --dry-run` shows: a `curator.writer.sync.SyncPlan` (it fetches)."""
    from curator.writer.sync import plan_sync

    return plan_sync(root, None, resolutions)


def sync(root: Path, resolutions: dict[str, Any] | None = None) -> Any:
    """`curator sync` with these conflicts settled ({path: "mine" | "theirs"}); the result,
    or raises SyncConflictError (nothing changed) with the conflicts left."""
    from curator.writer.sync import sync as run

    return run(root, None, resolutions)
