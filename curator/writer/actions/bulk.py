"""Bulk: one action over several drafts or notes as one Plan and one commit."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date

from curator.model.layouts import rules as layout_rules
from curator.model.palace import INDEX_NAME, Palace
from curator.writer.actions.common import INDEX_DEFERRED, with_index
from curator.writer.plan import Change, Plan, Write, effects


def plan_bulk(
    palace: Palace,
    action: str,
    rels: Sequence[str],
    build: Callable[[Palace, str], Plan],
    reason: str,
    *,
    today: date | None = None,
    progress: Callable[[int, int], None] | None = None,
    summary: str = "",
) -> Plan:
    """One Plan doing `build(palace, rel)` for every rel: each planned by its action's planner
    against the palace as the ones before it leave it; the generated index (INDEX.md, or the
    layout's own) rendered once, for the end state. A file written by an earlier rel's plan
    and again by a later one (a note promoted, then a draft folded into it) is one write: the
    later text, against the file as it was before the first.

    `progress(done, total)` is called before each rel and once the plan is made; it may raise
    to stop the planning, which writes nothing (the app's cancel)."""
    total = len(rels)
    if progress is not None:
        progress(0, total)
    if total == 1:
        plan = build(palace, rels[0])
        if progress is not None:
            progress(1, 1)
        return plan
    derived = {INDEX_NAME}
    if palace.foreign_layout:
        derived.add(layout_rules.index_name(palace.config))
    changes: list[Change] = []
    written: dict[str, int] = {}  # path -> where its Write is in `changes`
    trailers: list[tuple[str, str]] = []
    notes: list[str] = []
    current = palace
    deferred = INDEX_DEFERRED.set(True)  # each plan's own index: rendered once, below
    try:
        for done, rel in enumerate(rels):
            if progress is not None and done:
                progress(done, total)
            plan = build(current, rel)
            own = [ch for ch in plan.changes if not derived.intersection(ch.touched())]
            for change in own:
                at = written.get(change.path) if isinstance(change, Write) else None
                if at is None:
                    if isinstance(change, Write):
                        written[change.path] = len(changes)
                    changes.append(change)
                else:
                    first = changes[at]
                    assert isinstance(first, Write) and isinstance(change, Write)
                    changes[at] = Write(change.path, change.data, first.before)
            trailers.extend(plan.trailers)
            notes.extend(plan.notes)
            current = current.replaced(effects(palace.root, own))
    finally:
        INDEX_DEFERRED.reset(deferred)
    bulk = Plan(
        action=action,
        notes=tuple(notes),
        reason=reason,
        summary=summary or f"{total} {'drafts' if action in ('reject', 'promote') else 'notes'}",
        changes=with_index(palace, changes, today),
        trailers=tuple(trailers),
        root=palace.root,
    )
    if progress is not None:
        progress(total, total)
    return bulk
