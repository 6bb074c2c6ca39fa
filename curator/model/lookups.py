"""What a palace works out from its notes on first use, held in one object.

Each lookup is None until first asked for (loading, listing and searching need few of them,
and at 100k notes the slug table alone holds ~10 MB). `Palace.replaced()` makes the next
palace's lookups from these with `carried`: the tables that can be patched are patched, the
room rule and the per-note render memory are shared, the rest are built again when asked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from curator.model import groups
from curator.model.layouts.base import Resolver
from curator.model.links import RawLink
from curator.model.note import Note
from curator.model.schema import name_key

P = TypeVar("P")  # the palace the lookups are of


@dataclass(frozen=True, slots=True)
class Link:
    source: str  # rel of the note the link is in
    raw: RawLink
    target: str | None  # rel of the note it resolves to, None when broken


@dataclass(slots=True)
class Lookups(Generic[P]):
    room_rule: groups.RoomOf | None = None  # which room a current note is in
    slugs: dict[str, Sequence[Note]] | None = None  # notes by case-folded slug
    names: dict[str, Sequence[Note]] | None = None  # parsed notes by `name_key`
    outgoing: dict[str, list[Link]] | None = None  # every note's links, resolved
    backlinks: dict[str, list[Link]] | None = None
    preds: dict[str, list[Note]] | None = None  # rel -> the notes naming it superseded_by
    links: Resolver | None = None  # the layout's link table
    # active notes by room, the superseded ones, and the notes naming a successor
    grouped: groups.Groups | None = None
    # derived per-note text keyed by content hash (INDEX.md's lines), shared along replaced()
    render: dict[tuple[str, ...], Any] = field(default_factory=dict)
    # the last replaced() asked for: its changes and the palace it made
    after: tuple[tuple[tuple[str, bytes | None], ...], P] | None = None

    def carried(
        self,
        before: Mapping[str, Note],
        gone: set[str],
        added: Sequence[Note],
        slugs: dict[str, Sequence[Note]],
        grouped: groups.Groups | None,
    ) -> Lookups[P]:
        """The lookups the palace of notes `before` (by rel) has once the notes at `gone` are
        removed and `added` are in: its `slugs` and names (when built) patched, its `grouped`
        (None: not built) regrouped by the room rule, the link tables left to be built."""
        gone_notes = [before[rel] for rel in gone]
        slugs = dict(slugs)
        for old in gone_notes:
            if old.kind == "note":
                groups.drop(slugs, old.slug.casefold(), old)
        for note in added:
            if note.kind == "note":
                groups.add(slugs, note.slug.casefold(), note)
        names = None
        if self.names is not None:
            names = dict(self.names)
            for old in gone_notes:
                if old.kind == "note" and old.ok:
                    groups.drop(names, name_key(old.name), old)
            for note in added:
                if note.kind == "note" and note.ok:
                    groups.add(names, name_key(note.name), note)
        if grouped is not None and self.room_rule is not None and (added or gone):
            grouped = groups.regroup(grouped, gone, added, self.room_rule)
        return Lookups(
            room_rule=self.room_rule,
            slugs=slugs,
            names=names,
            grouped=grouped,
            render=self.render,
        )


def by_slug(notes: Iterable[Note]) -> dict[str, Sequence[Note]]:
    """Notes by case-folded slug (tuples: one note a key, seldom two)."""
    slugs: dict[str, Sequence[Note]] = {}
    for note in notes:
        groups.add(slugs, note.slug.casefold(), note)
    return slugs


def by_name(notes: Iterable[Note]) -> dict[str, Sequence[Note]]:
    """Parsed notes by `name_key` (as `by_slug`)."""
    names: dict[str, Sequence[Note]] = {}
    for note in notes:
        if note.ok:
            groups.add(names, name_key(note.name), note)
    return names


__all__ = ["Link", "Lookups", "by_name", "by_slug"]
