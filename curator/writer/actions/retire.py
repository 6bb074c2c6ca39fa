"""Retire: soft removal, `status: retired` with a reason and no successor; the file stays."""

from __future__ import annotations

from datetime import date

from curator.model.palace import Palace
from curator.writer.actions.common import (
    ActionError,
    edit_note,
    find_note,
    inbound,
    make_plan,
    today_iso,
)
from curator.writer.plan import Plan, Write


def plan_retire(palace: Palace, ref: str, reason: str, *, today: date | None = None) -> Plan:
    """Soft removal: retired with its reason and no successor. The file stays."""
    if not reason or not reason.strip():
        raise ActionError("a reason is required to retire a note (--reason)")
    note = find_note(palace, ref)
    if note.superseded:
        raise ActionError(f"{note.rel} is already superseded or retired")
    data = edit_note(
        palace,
        note,
        {
            "status": "retired",
            "retired": {"reason": " ".join(reason.split()), "since": today_iso(today)},
        },
    )
    links = inbound(palace, note)
    why = reason + ("\n\nLinks that still point here: " + ", ".join(links) if links else "")
    return make_plan(
        palace,
        "retire",
        [note.rel],
        why,
        note.name,
        [Write.from_disk(palace.root, note.rel, data)],
        today,
    )
