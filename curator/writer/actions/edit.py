"""Edit: replace a note's (or draft's) whole text, refusing text that would not validate."""

from __future__ import annotations

from datetime import date

from curator.fsutil import note_bytes
from curator.model.note import Note, parse_note
from curator.model.palace import Palace
from curator.writer.actions.common import EDITED_DIR, ActionError, errors_for, free_path, make_plan
from curator.writer.plan import Change, Plan, Write, encode_restore


def edit_problems(palace: Palace, ref: str, new_bytes: bytes) -> list[str]:
    """Why `plan_edit` would refuse this text as not validating ([] when it validates): what
    an editor shows while the reviewer's text stays open."""
    return _validated(palace, palace.find(ref), new_bytes)[1]


def _validated(palace: Palace, note: Note, new_bytes: bytes) -> tuple[Note, list[str]]:
    parsed = parse_note(note.rel, new_bytes, note.kind)
    errors = [f.format() for f in parsed.problems if f.severity == "error"]
    if not errors and note.kind == "note":
        errors = errors_for(palace, {note.rel: new_bytes}, [note.rel])
    return parsed, errors


def plan_edit(
    palace: Palace,
    ref: str,
    new_bytes: bytes,
    *,
    reason: str = "",
    today: date | None = None,
    action: str = "edit",
) -> Plan:
    """Replace a note's (or draft's) whole text, refusing text that would not validate.
    `action` names it in history when an edit of one field is an action of its own (tag)."""
    note = palace.find(ref)
    parsed, errors = _validated(palace, note, new_bytes)
    if errors:
        raise ActionError(f"the edited {note.rel} does not validate: " + "; ".join(errors))
    if new_bytes == note_bytes(note.text, note.bom):
        raise ActionError(f"no change to {note.rel}")
    changes: list[Change] = [Write.from_disk(palace.root, note.rel, new_bytes)]
    trailers: list[tuple[str, str]] = []
    if note.kind == "draft":
        # inbox/ is not in git: the draft's previous text is kept for undo, as reject keeps
        # the draft itself
        kept = free_path(palace, EDITED_DIR, note.slug)
        try:
            previous = (palace.root / note.rel).read_bytes()
        except FileNotFoundError:  # another action took the draft since the palace loaded
            raise ActionError(f"{note.rel} is gone (another action took it)") from None
        changes.append(Write.from_disk(palace.root, kept, previous))
        trailers.append(("Curator-Previous", encode_restore(note.rel, kept)))
    return make_plan(
        palace,
        action,
        [note.rel],
        reason or "Edited by hand.",
        parsed.name,
        changes,
        today,
        trailers,
    )
