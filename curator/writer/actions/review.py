"""Review: the note was read and still holds (``reviewed`` set to today). A stale note's flag
goes in the same commit: the reviewer read it against what the audit found and it holds."""

from __future__ import annotations

from datetime import date
from typing import Any

from curator.model.header import DELETE
from curator.model.palace import Palace
from curator.writer.actions.common import ActionError, edit_note, find_note, make_plan, today_iso
from curator.writer.plan import Plan, Write


def plan_mark_reviewed(
    palace: Palace, ref: str, *, reason: str = "", today: date | None = None
) -> Plan:
    """Set `reviewed` to today and clear a stale flag: the note was read and still holds."""
    note = find_note(palace, ref)
    stale = "stale" in note.header
    if note.reviewed == today_iso(today) and not stale:
        raise ActionError(f"{note.rel} is already marked reviewed today")
    updates: dict[str, Any] = {"reviewed": today_iso(today)}
    why = reason or "Read and still holds."
    if stale:
        updates["stale"] = DELETE
        was = note.stale.get("reason") if isinstance(note.stale, dict) else None
        why += f"\n\nStale flag cleared (it said: {was})." if was else "\n\nStale flag cleared."
    data = edit_note(palace, note, updates)
    return make_plan(
        palace,
        "review",
        [note.rel],
        why,
        note.name,
        [Write.from_disk(palace.root, note.rel, data)],
        today,
    )
