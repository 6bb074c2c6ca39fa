"""Tag: add one tag to a note's or draft's header (an edit of that one field)."""

from __future__ import annotations

from curator.model.palace import Palace
from curator.writer.actions.common import ActionError, edit_note
from curator.writer.actions.edit import plan_edit
from curator.writer.plan import Plan


def plan_tag(palace: Palace, ref: str, tag: str) -> Plan:
    """Add `tag` to the note's or draft's tags; refused when it already has it."""
    note = palace.find(ref)
    tags = note.header.get("tags")
    current = [str(t) for t in tags] if isinstance(tags, list) else []
    if tag in current:
        raise ActionError(f"{note.rel} is already tagged {tag!r}")
    new = edit_note(palace, note, {"tags": [*current, tag]})
    return plan_edit(palace, note.rel, new, reason=f"Tagged {tag!r}.", action="tag")
