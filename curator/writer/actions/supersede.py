"""Supersede: OLD is replaced by NEW (status and links in both headers)."""

from __future__ import annotations

from datetime import date

from curator.model.palace import Palace
from curator.writer.actions.common import (
    ActionError,
    edit_note,
    find_note,
    inbound,
    make_plan,
    relink_over,
    relinked,
)
from curator.writer.plan import Change, Plan, Write


def plan_supersede(
    palace: Palace,
    old_ref: str,
    new_ref: str,
    *,
    relink: bool = False,
    reason: str = "",
    today: date | None = None,
) -> Plan:
    """OLD gets status superseded and superseded_by NEW; NEW gets supersedes OLD."""
    old, new = find_note(palace, old_ref), find_note(palace, new_ref)
    if old.rel == new.rel:
        raise ActionError("a note cannot supersede itself")
    if new.superseded:
        raise ActionError(f"{new.rel} is itself superseded; supersede with the current note")
    if old.superseded:
        raise ActionError(
            f"{old.rel} is already superseded (by {old.superseded_by or 'nothing: retired'})"
        )
    if any(n.rel == old.rel for n in palace.chain(new)):
        raise ActionError(f"{new.rel} already descends from {old.rel}: that would make a cycle")
    new_supersedes = [*new.supersedes, old.slug]
    changes: dict[str, bytes] = {
        old.rel: edit_note(palace, old, {"status": "superseded", "superseded_by": new.slug}),
        new.rel: edit_note(palace, new, {"supersedes": new_supersedes}),
    }
    if relink:
        for rel, data in relinked(palace, old, new.rel, skip=[old.rel]).items():
            if rel == new.rel:  # relink on top of its supersedes edit
                changes[rel] = relink_over(palace, rel, changes[rel], old.rel, new.rel)
            else:
                changes[rel] = data
    write_list: list[Change] = [
        Write.from_disk(palace.root, rel, data) for rel, data in changes.items()
    ]
    links = inbound(palace, old)
    why = reason or f"{new.name} replaces {old.name}."
    if links and not relink:
        why += "\n\nLinks that still point at the old note: " + ", ".join(links)
    return make_plan(
        palace, "supersede", [old.rel, new.rel], why, f"{old.name} -> {new.name}", write_list, today
    )
