"""Reject: a draft leaves the inbox for .curator/rejected/ (kept; undo brings it back)."""

from __future__ import annotations

from datetime import date

from curator.model.palace import Palace
from curator.writer.actions.common import (
    REJECTED_DIR,
    ActionError,
    find_draft,
    free_path,
    make_plan,
)
from curator.writer.plan import Change, Move, Plan, encode_restore


def plan_reject(palace: Palace, draft_ref: str, reason: str, *, today: date | None = None) -> Plan:
    """Move a draft out of the inbox into .curator/rejected/ (kept, restorable by undo)."""
    if not reason or not reason.strip():
        raise ActionError("a reason is required to reject a draft (--reason)")
    draft = find_draft(palace, draft_ref)
    dest = free_path(palace, REJECTED_DIR, draft.slug)
    changes: list[Change] = [Move.from_disk(palace.root, draft.rel, dest)]
    return make_plan(
        palace,
        "reject",
        [draft.rel],
        reason,
        draft.name if draft.ok else draft.slug,
        changes,
        today,
        [("Curator-Restore", encode_restore(draft.rel, dest))],
    )
