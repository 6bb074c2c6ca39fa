"""Review: the note was read and still holds (``reviewed`` set to today)."""

from __future__ import annotations

from datetime import date

from curator.model.palace import Palace
from curator.writer.actions.common import ActionError, edit_note, find_note, make_plan, today_iso
from curator.writer.plan import Plan, Write


def plan_mark_reviewed(
    palace: Palace, ref: str, *, reason: str = "", today: date | None = None
) -> Plan:
    """Set `reviewed` to today: the note was read and still holds."""
    note = find_note(palace, ref)
    if note.reviewed == today_iso(today):
        raise ActionError(f"{note.rel} is already marked reviewed today")
    data = edit_note(palace, note, {"reviewed": today_iso(today)})
    return make_plan(
        palace,
        "review",
        [note.rel],
        reason or "Read and still holds.",
        note.name,
        [Write.from_disk(palace.root, note.rel, data)],
        today,
    )
