"""What a palace works out from its notes on first use, held in one object.

Each lookup is None until first asked for (loading, listing and searching need few of them).
`Palace.replaced()` makes the next palace's lookups from these with `carried`: the tables that
can be patched are patched, the room rule and the per-note render memory are shared, the rest
are built again when asked.
"""

from __future__ import annotations

import copy
import itertools
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
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
    slugs: Mapping[str, Sequence[Note]] | None = None  # notes by case-folded slug
    names: Mapping[str, Sequence[Note]] | None = None  # parsed notes by `name_key`
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
        gone: set[str],
        added: Sequence[Note],
        slugs: KeyTable,
        grouped: groups.Groups | None,
    ) -> Lookups[P]:
        """The lookups the palace has once the notes at `gone` are removed and `added` are in:
        its `slugs` and names (when built) with the change laid over them, its `grouped`
        (None: not built) regrouped by the room rule, the link tables left to be built."""
        names = self.names
        if isinstance(names, KeyTable):
            names = names.changed(gone, added)
        if grouped is not None and self.room_rule is not None and (added or gone):
            grouped = groups.regroup(grouped, gone, added, self.room_rule)
        return Lookups(
            room_rule=self.room_rule,
            slugs=slugs.changed(gone, added),
            names=names,
            grouped=grouped,
            render=self.render,
        )


class KeyTable(Mapping[str, tuple[Note, ...]]):
    """The notes (not drafts) by a key, in path order: a case-folded slug (`by_slug`), a name
    (`by_name`). Held without the keys (a dict of them held ~180 bytes a note: 18 MB at 100k
    notes in a warm server, which resolves links by slug): each key's notes (a note, or a
    tuple when the key is shared) and its hash in arrays, found through an open-addressing
    table of their positions (~26 bytes a note). A lookup takes the notes at the key's hash
    whose key it is; a change is laid over it (`changed`), as `Palace.replaced` makes a plan's
    palace. The hashes are this process's (`hash`): the table is never pickled."""

    _hash: Callable[[str], int] = staticmethod(hash)

    def __init__(self, notes: Sequence[Note], key: Callable[[Note], str | None]) -> None:
        self._key = key
        by_key: dict[str, list[Note]] = {}
        for note in notes:
            k = key(note) if note.kind == "note" else None
            if k is not None:
                by_key.setdefault(k, []).append(note)
        self._held = [ns[0] if len(ns) == 1 else tuple(ns) for ns in by_key.values()]
        self._hashes = array("q", map(self._hash, by_key))
        # positions in `_held` by hash, -1 where free; at most half full, so a probe is short
        self._slots = array("i", [-1]) * (1 << max(3, (2 * len(by_key)).bit_length()))
        mask = len(self._slots) - 1
        for at, h in enumerate(self._hashes):
            i = h & mask
            while self._slots[i] != -1:
                i = (i + 1) & mask
            self._slots[i] = at
        self._gone: frozenset[str] = frozenset()  # rels of the notes a change removed
        self._added: dict[str, tuple[Note, ...]] = {}  # the notes a change wrote, by key

    def changed(self, gone: Iterable[str], added: Iterable[Note]) -> KeyTable:
        """The table with the notes at `gone` left out and the `added` notes after the
        others of their key (the arrays shared)."""
        new, gone = copy.copy(self), frozenset(gone)
        new._gone = self._gone | gone
        # what an earlier change wrote goes only if this one removes it (a rel in `_gone`
        # may have been written again since)
        kept = {k: [n for n in ns if n.rel not in gone] for k, ns in self._added.items()}
        for note in added:
            key = self._key(note) if note.kind == "note" else None
            if key is not None:
                kept.setdefault(key, []).append(note)
        new._added = {k: tuple(ns) for k, ns in kept.items() if ns}
        return new

    def _base(self, key: str) -> tuple[Note, ...]:
        """The notes of `key` the table was made with (its hash's, told apart by their key)."""
        h = self._hash(key)
        slots, mask = self._slots, len(self._slots) - 1
        i = h & mask
        while (at := slots[i]) != -1:
            if self._hashes[at] == h:
                held = self._held[at]
                notes = held if isinstance(held, tuple) else (held,)
                if self._key(notes[0]) == key:
                    return notes
            i = (i + 1) & mask
        return ()

    def __getitem__(self, key: str) -> tuple[Note, ...]:
        found = self._base(key)
        if self._gone:
            found = tuple(n for n in found if n.rel not in self._gone)
        found += self._added.get(key, ())
        if not found:
            raise KeyError(key)
        return found

    def __iter__(self) -> Iterator[str]:
        """Every key, once (each made again from its notes: seldom asked)."""
        firsts = (h[0] if isinstance(h, tuple) else h for h in self._held)
        keys = (k for n in firsts if (k := self._key(n)) is not None and k in self)
        return iter(dict.fromkeys(itertools.chain(keys, self._added)))

    def __len__(self) -> int:
        return sum(1 for _ in self)


def by_slug(notes: Sequence[Note]) -> KeyTable:
    """The notes by case-folded slug."""
    return KeyTable(notes, _slug_key)


def by_name(notes: Sequence[Note]) -> KeyTable:
    """The parsed notes by `name_key`."""
    return KeyTable(notes, _name_key)


def _slug_key(note: Note) -> str:
    return note.slug.casefold()


def _name_key(note: Note) -> str | None:
    return name_key(note.name) if note.ok else None


__all__ = ["KeyTable", "Link", "Lookups", "by_name", "by_slug"]
