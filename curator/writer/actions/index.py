"""Index: INDEX.md regenerated from the notes, as its own action."""

from __future__ import annotations

from datetime import date

from curator.model.palace import INDEX_NAME, Palace
from curator.writer.actions.common import ActionError, with_index
from curator.writer.plan import Plan


def plan_index(palace: Palace, *, today: date | None = None) -> Plan:
    """Regenerate INDEX.md (raises IndexRefused rather than drop notes)."""
    changes = with_index(palace, [], today, complete=True)
    if not changes:
        raise ActionError("INDEX.md is up to date")
    return Plan(
        action="index",
        notes=(INDEX_NAME,),
        reason="Regenerated from the notes.",
        summary="regenerate INDEX.md",
        changes=changes,
        root=palace.root,
    )
