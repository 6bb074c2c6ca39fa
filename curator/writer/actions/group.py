"""Group: one decision over a group of near-duplicate drafts, as one Plan and one commit.

- `keep`: the best draft promoted (as its own type), the rest rejected as its duplicates;
- `merge`: the best draft promoted, every other one folded into the note it becomes;
- `fold`: every draft folded into an existing note (`into`).

The best is the first draft (the grouping, `curator.search.dupes.draft_groups`, lists the most
alike first) whose header parses. Each step is its action's own planner, run by `plan_bulk`
against the palace the steps before it leave, so undo gives back every file of the group.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date

from curator.model.palace import Palace
from curator.writer.actions.bulk import plan_bulk
from curator.writer.actions.common import ActionError, find_draft, find_note
from curator.writer.actions.merge import plan_merge_draft
from curator.writer.actions.promote import plan_promote
from curator.writer.actions.reject import plan_reject
from curator.writer.plan import Plan

DECISIONS = ("keep", "merge", "fold")


def plan_group(
    palace: Palace,
    drafts: Sequence[str],
    decision: str,
    *,
    into: str = "",
    today: date | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Plan:
    """The group's decision (`DECISIONS`) as one Plan."""
    if decision not in DECISIONS:
        raise ActionError(f"unknown group decision {decision!r} (one of {', '.join(DECISIONS)})")
    rels = list(dict.fromkeys(find_draft(palace, ref).rel for ref in drafts))
    if not rels:
        raise ActionError("the group holds no draft")
    count = f"{len(rels)} draft{'s' if len(rels) != 1 else ''}"
    if decision == "fold":
        if not into:
            raise ActionError("fold needs the note the drafts fold into")
        target = find_note(palace, into)
        return plan_bulk(
            palace,
            "merge",
            rels,
            lambda p, rel: plan_merge_draft(p, rel, target.rel, today=today),
            f"{count} alike folded into {target.rel}.",
            today=today,
            progress=progress,
            summary=f"{count} into {target.name}",
        )
    best = next((rel for rel in rels if palace.by_rel[rel].ok), None)
    if best is None:
        raise ActionError("no draft of the group has a header that parses: edit one first")
    name = palace.by_rel[best].name
    promoted: list[str] = []  # the note the best draft becomes

    def build(current: Palace, rel: str) -> Plan:
        if rel == best:
            plan = plan_promote(current, rel, today=today)
            promoted.append(plan.notes[0])
            return plan
        if decision == "keep":
            return plan_reject(current, rel, f"A near-duplicate of {name!r}.", today=today)
        return plan_merge_draft(current, rel, promoted[0], today=today)

    others = len(rels) - 1
    if decision == "keep":
        why = f"Promoted {best}; {others} near-duplicate draft(s) rejected."
    else:
        why = f"Promoted {best} with {others} near-duplicate draft(s) folded into it."
    return plan_bulk(
        palace,
        "promote" if decision == "keep" else "merge",
        [best, *(rel for rel in rels if rel != best)],
        build,
        why,
        today=today,
        progress=progress,
        summary=f"{name} ({count})",
    )


__all__ = ["DECISIONS", "plan_group"]
