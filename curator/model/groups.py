"""The palace's groupings kept sorted under change: rooms (active notes by the key the layout's
room rule gives, see `curator.model.layouts.rules.room_rule`), superseded
notes and notes naming a successor. `Palace.replaced()` patches them instead of rebuilding
them: a plan at 10k notes must not pay for a full rebuild."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable

from curator.model.note import Note

Groups = tuple[dict[str, list[Note]], list[Note], list[Note]]
RoomOf = Callable[[Note], "str | None"]  # the room key of a current note, None: Unfiled


def regroup(
    groups: Groups,
    gone: Iterable[str],
    added: Iterable[Note],
    room_of: RoomOf,
) -> Groups:
    """`groups` (rooms by key, superseded, naming a successor; each sorted by rel) without the
    notes at `gone` and with the `added` notes (drafts are in none); `room_of` puts a current
    note in its room (a key not yet in the rooms opens one)."""
    gone = set(gone)
    by_room = {name: [n for n in notes if n.rel not in gone] for name, notes in groups[0].items()}
    superseded = [n for n in groups[1] if n.rel not in gone]
    naming = [n for n in groups[2] if n.rel not in gone]
    grown: set[int] = set()
    for note in added:
        if note.kind != "note":
            continue
        if note.superseded_by:
            naming.append(note)
            grown.add(id(naming))
        if note.ok and note.superseded:
            superseded.append(note)
            grown.add(id(superseded))
        elif (key := room_of(note)) is not None:
            room = by_room.setdefault(key, [])
            room.append(note)
            grown.add(id(room))
    for group in (*by_room.values(), superseded, naming):
        if id(group) in grown:
            group.sort(key=_rel)  # sorted runs plus a few: linear
    return by_room, superseded, naming


def _rel(note: Note) -> str:
    return note.rel


def merge_sorted(notes: list[Note], gone: set[str], added: list[Note]) -> list[Note]:
    """`notes` (sorted by rel) without `gone`, with `added`, still sorted."""
    kept = [n for n in notes if n.rel not in gone] if gone else list(notes)
    for note in added:
        bisect.insort(kept, note, key=lambda n: n.rel)
    return kept
