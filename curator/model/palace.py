"""Palace: every note and draft of a palace, the problems found loading it, and what follows
from them: lookups by path, slug and name, links and backlinks, rooms, supersede chains, flags,
and `replaced()`, the palace as it would be after an action.

Where a palace is (`find_palace`) lives in `discovery`, reading its files in `loader`, the
load's disk cache in `cache`, and the flags' rules in `flags`; their public names are importable
from here too.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

from curator.config import Config, TypeSpec, load_config
from curator.errors import NoteNotFound
from curator.model import flags, fuzzy, groups
from curator.model.discovery import (
    INDEX_NAME,
    NOTES_DIR,
    STATE_DIR,
    ensure_state_dir,
    find_palace,
    kind_of,
)
from curator.model.finding import Finding
from curator.model.layouts import rules as layout_rules
from curator.model.layouts.base import Layout, Resolver
from curator.model.links import RawLink, md_target
from curator.model.loader import load_files, read_all_links
from curator.model.lookups import KeyTable, Link, Lookups, by_name, by_slug
from curator.model.note import Kind, Note, NoteChanged, Texts, bytes_sha, parse_note
from curator.model.schema import name_key, slug_key

__all__ = [
    "INDEX_NAME",
    "NOTES_DIR",
    "STATE_DIR",
    "LetGo",
    "Link",
    "Loaded",
    "NeedsPalace",
    "Palace",
    "Room",
    "ensure_state_dir",
    "find_palace",
    "index_bytes_at",
    "notes_sum",
    "pair_hash",
]


@dataclass(frozen=True, slots=True)
class Loaded:
    """What the load that read a palace's notes saw besides them."""

    # INDEX.md's bytes as read when the notes were loaded ((None,): absent; None: not read;
    # their hash once a settled palace let go of them: `let_go`). Read *before* the notes,
    # so an action landing during the load shows up as a changed INDEX.md when a plan made
    # from this palace is applied.
    index_snapshot: tuple[bytes | LetGo | None] | None = None
    # files under the notes root that are not notes (a vault's attachments), for links
    attachments: tuple[str, ...] = ()
    # when the load started (0: not loaded from disk); a reload passed this palace trusts
    # its notes for files older than that
    started_ns: int = 0
    # the cache the load read its notes through (None: none), which also keeps their links
    cache: str | None = None
    # the commit HEAD was at when git's status showed the notes and INDEX.md as it holds
    # them, for a palace read from the index then (`curator.writer.committed.committed_at`)
    committed: str | None = None

    def index_bytes(self, root: Path) -> bytes | None:
        """INDEX.md at `root` as it was when the notes were loaded (the file now if it was
        not read then); NoteChanged when it was let go and the file holds other bytes since."""
        if self.index_snapshot is None:
            return index_bytes_at(root)
        held = self.index_snapshot[0]
        if not isinstance(held, LetGo):
            return held
        data = index_bytes_at(root)
        if data is None or bytes_sha(data) != held.sha:
            message = "the file changed since the palace was loaded; load it again"
            raise NoteChanged(message, path=INDEX_NAME)
        return data

    def let_go(self) -> Loaded:
        """These facts holding INDEX.md's hash instead of its bytes (`index_bytes` reads
        them again from the file)."""
        held = self.index_snapshot[0] if self.index_snapshot is not None else None
        if not isinstance(held, bytes):
            return self
        return replace(self, index_snapshot=(LetGo(bytes_sha(held)),))


@dataclass(frozen=True, slots=True)
class LetGo:
    """Bytes a settled palace let go of, known by their hash (`note.bytes_sha`)."""

    sha: str


def index_bytes_at(root: Path) -> bytes | None:
    """INDEX.md of the palace at `root` as it is now (None: absent)."""
    try:
        return (root / INDEX_NAME).read_bytes()
    except FileNotFoundError:
        return None


class NeedsPalace(NotImplementedError):
    """A palace that holds no note list (`Palace.partial`) was asked what only every note
    answers: the caller loads the palace and asks it instead."""


def notes_sum(pairs: Iterable[tuple[str, str]]) -> tuple[int, int]:
    """(how many, the sum of each one's hash mod 2**128) of notes given as (rel, sha): what
    the notes are in any order, and after a change the old sum less the notes gone plus the
    notes added (`Palace.notes_sum`)."""
    total, count = 0, 0
    for rel, sha in pairs:
        total += pair_hash(rel, sha)
        count += 1
    return count, total % (1 << 128)


def pair_hash(rel: str, sha: str) -> int:
    """One note's part of `notes_sum`."""
    line = f"{rel}\0{sha}".encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(line, digest_size=16).digest(), "big")


@dataclass(frozen=True)
class Room:
    spec: TypeSpec
    notes: list[Note]


class Palace:
    #: False: every note is held. A palace read from the search index (`curator.search.cold`)
    #: holds none and reads a note when asked; what needs every note raises NeedsPalace.
    partial = False

    def __init__(
        self,
        root: Path,
        config: Config,
        notes: Iterable[Note],
        drafts: Iterable[Note],
        problems: Iterable[Finding] = (),
        *,
        layout: Layout | None = None,
    ) -> None:
        self.root = Path(root)
        self.config = config
        # the layout palace.toml names, worked out once per palace (`replaced` carries it)
        self.layout = layout or layout_rules.layout_of(config)
        #: the notes are in another tool's layout (see `curator.model.layouts`)
        self.foreign_layout = layout_rules.foreign(config)
        self.notes = sorted(notes, key=lambda n: n.rel)
        self.drafts = sorted(drafts, key=lambda n: n.rel)
        self.problems = list(problems)
        self.by_rel: dict[str, Note] = {n.rel: n for n in (*self.notes, *self.drafts)}
        # what is worked out from the notes on first use; replaced() carries it
        self.lookups: Lookups[Palace] = Lookups()
        # what the load that read the notes saw besides them (none: not loaded from disk)
        self.loaded = Loaded()

    @property
    def inbox(self) -> str:
        """The drafts folder (`[palace] inbox`, at the palace root)."""
        return self.config.inbox

    @property
    def layout_name(self) -> str:
        return self.layout.name

    @property
    def room_rule(self) -> Callable[[Note], str | None]:
        """Which room a current note is in (`layout_rules.room_rule`), made once."""
        if self.lookups.room_rule is None:
            self.lookups.room_rule = layout_rules.room_rule(self.config, self.layout)
        return self.lookups.room_rule

    # -- loading -----------------------------------------------------------------------------
    @classmethod
    def open(
        cls,
        root: str | os.PathLike[str],
        *,
        cache: bool = True,
        previous: Palace | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> Palace:
        """Load the palace at `root`. With `cache`, a file whose size and mtime match an
        earlier load is not parsed again: its note comes from `previous` (a palace the caller
        loaded from `root` and still holds: the same Note objects, so a reload holds one copy
        of every unchanged note), else from the disk cache (see `curator.model.cache`)."""
        root = Path(root).resolve()
        config = load_config(root)
        layout = layout_rules.layout_of(config)
        known = None  # a palace read through another layout holds other notes
        if previous is not None and previous.root == root and previous.layout_name == layout.name:
            known = (previous.by_rel, previous.loaded.started_ns)
        loaded = load_files(
            root,
            use_cache=cache,
            layout=layout,
            excludes=layout_rules.excludes_of(config),
            previous=known,
            progress=progress,
        )
        files = layout_rules.adapt_all(loaded.notes.values(), config, layout)
        palace = cls(
            root,
            config,
            [n for n in files if n.kind == "note"],
            [n for n in files if n.kind == "draft"],
            loaded.problems,
            layout=layout,
        )
        palace.loaded = Loaded(
            (loaded.index_bytes,), tuple(loaded.attachments), loaded.started_ns, loaded.cache
        )
        return palace

    def let_go_of_texts(self) -> None:
        """Every note lets go of its text (`Note.let_go`), read again from its file when asked
        for and checked against its hash: what a long-lived server's palace does once loaded
        (at 100k notes the texts are ~130 MB; a query reads the few it ranks and shows).
        Drafts keep theirs: few, and what a promote reads. INDEX.md's bytes as loaded go too
        (25 MB at 100k notes): their hash stays, to check them by when read again."""
        texts = Texts(str(self.root))
        for note in self.notes:
            note.let_go(texts)
        self.loaded = self.loaded.let_go()

    def replaced(self, changes: Mapping[str, bytes | None]) -> Palace:
        """The palace as it would be with `changes` applied ({rel: new bytes, or None: gone}).

        Built incrementally from this palace (a plan at 10k notes must not pay for a full
        rebuild), and remembered: planners ask for the same "after" palace more than once.
        """
        key = tuple(sorted(changes.items(), key=lambda item: item[0]))
        if self.lookups.after is not None and self.lookups.after[0] == key:
            return self.lookups.after[1]
        gone, added = self._parsed(key)
        new = Palace.__new__(Palace)
        new.root, new.config, new.problems = self.root, self.config, self.problems
        new.layout, new.foreign_layout = self.layout, self.foreign_layout
        new.notes = groups.merge_sorted(self.notes, gone, [n for n in added if n.kind == "note"])
        new.drafts = groups.merge_sorted(self.drafts, gone, [n for n in added if n.kind == "draft"])
        new.by_rel = dict(self.by_rel)
        for rel in gone:
            del new.by_rel[rel]
        new.by_rel.update((n.rel, n) for n in added)
        # the lookups this palace has built, patched; the others are built when first used.
        # Slugs are built here if need be: every plan renders INDEX.md, which resolves
        # successors by slug, and a chain of replaced palaces then builds them once.
        grouped = self._groups() if added or gone else self.lookups.grouped
        slugs = self._by_slug
        assert isinstance(slugs, KeyTable)  # a loaded palace's (`by_slug`)
        new.lookups = self.lookups.carried(gone, added, slugs, grouped)
        # a change to INDEX.md itself (a committed plan's effects) is the new pre-image
        new.loaded = (
            replace(self.loaded, index_snapshot=(changes[INDEX_NAME],))
            if INDEX_NAME in changes
            else self.loaded
        )
        self.lookups.after = (key, new)
        return new

    def _parsed(self, changes: Iterable[tuple[str, bytes | None]]) -> tuple[set[str], list[Note]]:
        """(the rels of the notes and drafts `changes` replace or remove, the notes and drafts
        they write, parsed as a load reads them)."""
        changes = list(changes)
        gone = {rel for rel, _ in changes if rel in self.by_rel}
        added: list[Note] = []
        foreign = self.foreign_layout
        excludes = layout_rules.excludes_of(self.config) if foreign else ()
        for rel, data in changes:
            kind = (
                layout_rules.kind_in(self.layout, rel, excludes)
                if foreign
                else kind_of(rel, self.inbox)
            )
            if data is not None and kind is not None:
                added.append(parse_note(rel, data, kind))
        return gone, layout_rules.adapt_all(added, self.config, self.layout)

    def delta(self) -> tuple[tuple[Note, ...], tuple[Note, ...]]:
        """A partial palace's (notes and drafts gone or replaced, notes and drafts written)
        since it was read; a palace holding every note keeps no such record."""
        raise NeedsPalace("only a palace read from the index keeps what changed since")

    # -- lookups ------------------------------------------------------------------------------
    @property
    def _by_slug(self) -> Mapping[str, Sequence[Note]]:
        """Notes by case-folded slug (tuples: one note a key, seldom two). Built on first use:
        loading, listing and searching never need it."""
        if self.lookups.slugs is None:
            self.lookups.slugs = by_slug(self.notes)
        return self.lookups.slugs

    @property
    def _by_name(self) -> Mapping[str, Sequence[Note]]:
        """Parsed notes by `name_key` (as `_by_slug`)."""
        if self.lookups.names is None:
            self.lookups.names = by_name(self.notes)
        return self.lookups.names

    def named(self, name: str) -> Sequence[Note]:
        """The parsed notes holding `name` (under `schema.name_key`), in path order."""
        return self._by_name.get(name_key(name), ())

    def all(self) -> list[Note]:
        return [*self.notes, *self.drafts]

    def notes_sum(self) -> tuple[int, int]:
        """`notes_sum` of the notes (drafts aside): what INDEX.md is rendered from."""
        return notes_sum((n.rel, n.sha) for n in self.notes)

    def find(
        self,
        ref: str,
        kinds: tuple[Kind, ...] = ("note", "draft"),
        *,
        among: Callable[[Note], bool] | None = None,
    ) -> Note:
        """A note or draft by path, slug or name (case-insensitive); one match or an error.
        `among` narrows the notes looked at (an agent's: the visible ones), so neither the
        answer nor the error names a note outside them."""
        ref = ref.strip()

        def wanted(note: Note) -> bool:
            return note.kind in kinds and (among is None or among(note))

        candidates: list[Note] = []
        as_path = self._rel_of_path(ref)
        if as_path and as_path in self.by_rel:
            candidates = [self.by_rel[as_path]]
        elif as_path and posixpath.normpath(ref) in self.by_rel:  # palace-relative path
            candidates = [self.by_rel[posixpath.normpath(ref)]]
        candidates = [n for n in candidates if wanted(n)]
        if not candidates:
            key = slug_key(ref)
            pool = [n for n in self.all() if wanted(n)]
            candidates = [n for n in pool if n.slug.casefold() == key]
            if not candidates:
                candidates = [n for n in pool if n.ok and name_key(n.name) == name_key(ref)]
        what = " or ".join(kinds)
        if not candidates:
            hint = _did_you_mean(ref, [n for n in self.all() if wanted(n)])
            raise NoteNotFound(f"no {what} matches {ref!r} (give a path, a slug or a name){hint}")
        if len(candidates) > 1:
            paths = ", ".join(n.rel for n in candidates)
            raise NoteNotFound(f"{ref!r} matches more than one {what}: {paths}; give the path")
        return candidates[0]

    def _rel_of_path(self, ref: str) -> str | None:
        path = Path(ref)
        if path.is_absolute():
            try:
                return path.resolve().relative_to(self.root).as_posix()
            except ValueError:
                return None
        if "/" in ref or ref.endswith(".md"):
            candidate = (Path.cwd() / path).resolve()
            try:
                return candidate.relative_to(self.root).as_posix()
            except ValueError:
                return posixpath.normpath(ref)
        return None

    # -- links --------------------------------------------------------------------------------
    def read_links(self) -> None:
        """Read every note's and draft's links at once, through the links cache of the load
        (a note reads its own on first use: `Note.links`); what walks every note's links
        calls this first."""
        read_all_links(self.root, self.all(), self.loaded.cache)

    def link_table(self) -> Resolver:
        """The notes' link table under the layout (built on first use)."""
        if self.lookups.links is None:
            self.lookups.links = layout_rules.link_table(
                self.config, self.notes, self.loaded.attachments
            )
        return self.lookups.links

    def resolve(self, source_rel: str, link: RawLink) -> str | None:
        if self.foreign_layout:
            return self.link_table().resolve(source_rel, link).target
        if link.kind == "md":
            target = md_target(source_rel, link.target)
            note = self.by_rel.get(target)
            return note.rel if note is not None and note.kind == "note" else None
        key = slug_key(link.target)
        if "/" in key:
            matches: Sequence[Note] = [
                n for n in self.notes if ("/" + slug_key(n.rel)).endswith("/" + key.lstrip("/"))
            ]
        else:
            matches = self._by_slug.get(key) or self.named(link.target) or ()
        return matches[0].rel if len(matches) == 1 else None

    def link_graph(self) -> tuple[dict[str, list[Link]], dict[str, list[Link]]]:
        """Every note's and draft's outgoing links and every note's backlinks, by rel (built
        once: what walks every note's links, such as `check`, reads this)."""
        found = self.lookups
        if found.outgoing is None or found.backlinks is None:
            self.read_links()
            outgoing: dict[str, list[Link]] = {}
            backlinks: dict[str, list[Link]] = {}
            for note in self.all():
                links = [Link(note.rel, raw, self.resolve(note.rel, raw)) for raw in note.links]
                outgoing[note.rel] = links
                if note.kind != "note":
                    continue
                for link in links:
                    if link.target is not None and link.target != note.rel:
                        backlinks.setdefault(link.target, []).append(link)
            found.outgoing, found.backlinks = outgoing, backlinks
            return outgoing, backlinks
        return found.outgoing, found.backlinks

    def outgoing(self, note: Note) -> list[Link]:
        """The links of this palace's note at `note.rel`, each with the note it resolves to.
        One note's links resolve on their own: serving one note (a search hit, an agent's
        read) never builds the whole palace's link graph (seconds at 100k notes)."""
        built = self.lookups.outgoing
        if built is not None:
            return built.get(note.rel, [])
        mine = self.by_rel.get(note.rel)
        if mine is None:
            return []
        return [Link(mine.rel, raw, self.resolve(mine.rel, raw)) for raw in mine.links]

    def backlinks(self, note: Note) -> list[Link]:
        return self.link_graph()[1].get(note.rel, [])

    def note_by_slug(self, slug: str) -> Note | None:
        matches = self._by_slug.get(slug_key(slug), ())
        return matches[0] if len(matches) == 1 else None

    # -- rooms and flags ----------------------------------------------------------------------
    def rooms(self) -> list[Room]:
        """Current notes in rooms as the layout groups them (`layout_rules.room_rule`): by type
        in taxonomy order (every type the palace knows), or by top-level folder."""
        by_room = self._groups()[0]
        specs = layout_rules.room_specs(self.config, self.root, by_room, self.layout)
        return [Room(spec, list(by_room.get(spec.name, ()))) for spec in specs]

    def room(self, name: str) -> Room | None:
        """The room whose spec is named `name` (a type, or a folder room's key)."""
        return next((r for r in self.rooms() if r.spec.name == name), None)

    def unfiled(self) -> list[Note]:
        """Current notes in no room (no type, or one palace.toml does not list; a header that
        did not parse in a layout with rooms by type)."""
        filed = {n.rel for room in self._groups()[0].values() for n in room}
        filed.update(n.rel for n in self._groups()[1])
        return [n for n in self.notes if n.rel not in filed]

    def superseded_notes(self) -> list[Note]:
        return list(self._groups()[1])

    def _groups(self) -> groups.Groups:
        if self.lookups.grouped is None:
            self.lookups.grouped = groups.regroup(({}, [], []), (), self.notes, self.room_rule)
        return self.lookups.grouped

    def _predecessors(self) -> dict[str, list[Note]]:
        """rel of a note -> the notes that name it in superseded_by."""
        if self.lookups.preds is None:
            preds: dict[str, list[Note]] = {}
            for other in self._groups()[2]:
                if other.superseded_by:
                    target = self.note_by_slug(other.superseded_by)
                    if target is not None:
                        preds.setdefault(target.rel, []).append(other)
            self.lookups.preds = preds
        return self.lookups.preds

    def chain(self, note: Note) -> list[Note]:
        """The supersede chain through `note`, oldest first."""
        seen = {note.rel}
        older: list[Note] = []
        current = note
        while True:
            prev = next((p for s in current.supersedes if (p := self.note_by_slug(s))), None)
            if prev is None:
                prev = next(iter(self._predecessors().get(current.rel, [])), None)
            if prev is None or prev.rel in seen:
                break
            seen.add(prev.rel)
            older.insert(0, prev)
            current = prev
        newer: list[Note] = []
        current = note
        while current.superseded_by:
            nxt = self.note_by_slug(current.superseded_by)
            if nxt is None or nxt.rel in seen:
                break
            seen.add(nxt.rel)
            newer.append(nxt)
            current = nxt
        return [*older, note, *newer]

    def successor(self, note: Note) -> Note | None:
        """The active end of a note's supersede chain (None when retired without successor)."""
        chain = self.chain(note)
        last = chain[-1]
        return last if last is not note and not last.superseded else None

    def confidence(self, note: Note) -> float:
        """The note's confidence for ranking: its type's default, 0.0 when unknown."""
        return flags.confidence(note, self.config)

    def known_confidence(self, note: Note) -> float | None:
        """The note's confidence as shown to a person: None when nothing says it."""
        return flags.known_confidence(note, self.config)

    def flags(self, note: Note, today: date | None = None) -> list[str]:
        """invalid, stale, due, expired, low-confidence, superseded or retired, in order."""
        return flags.flags(note, self.config, today or date.today())

    def is_due(self, note: Note, today: date | None = None) -> bool:
        return flags.is_due(note, self.config, today or date.today())

    def review_by(self, note: Note) -> date | None:
        """The day after which the note is due for review (None: never)."""
        return flags.review_by(note, self.config)


def _did_you_mean(ref: str, pool: list[Note]) -> str:
    """ "; did you mean X?" naming the closest slug or name in `pool` (only the notes the
    caller may see; `fuzzy`'s rule), or the few as close, "" when none is close."""
    choices = {n.slug: n.slug for n in pool} | {n.name: n.slug for n in pool if n.ok}
    keys = list(choices)
    found = fuzzy.closest(ref, keys, limit=6)
    best = found[0][1] if found else 0.0
    slugs = list(dict.fromkeys(choices[keys[i]] for i, score in found if score == best))[:3]
    return f"; did you mean {' or '.join(slugs)}?" if slugs else ""
