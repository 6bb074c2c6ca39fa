"""A query answered from the search index without loading the palace: `curator search` in a
fresh process, where reading every note (seconds at 100k notes) cost more than the query.

`cold_searcher(root)` is a `Searcher` over an `IndexedPalace` once the index provably
reflects the palace's files as they are: its table is the one the last sync recorded, at git
HEAD; a walk of the palace (one stat per file, no file read) finds every file with the size
and mtime the sync read it with (none of them young enough then for those to mislead, as the
palace cache trusts them); palace.toml derives the same fields. Once a search found that so at
a HEAD git's status shows every note unchanged from, HEAD is kept as clean, and the next asks
git's status again (its own stat of each tracked file, in C) instead of walking the notes.
When a file or HEAD moved on since, the files changed are read and their rows written first
(`curator.search.catchup`); the corpus statistics are counted from their sample's files when
none are kept. When the index cannot tell what changed (palace.toml derives other fields,
no record of the files, another layout), None, and the caller loads the palace and syncs as
before: nothing is ever served from an index that may lag the files.

An `IndexedPalace` holds no note in memory: a note is read and parsed from its file when the
query asks for it (the candidates, the notes shown, the notes their links and successors
name). What needs every note is read from the index's rows instead: the gate's verdicts (the
`sensitive` column `is_visible` derived at the sync; the notes whose header did not parse,
which the index holds no row of, hidden as the gate hides them), the names matched as you
type, the slugs and names links resolve by.
"""

from __future__ import annotations

import bisect
import copy
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator.config import Config, load_config
from curator.model.discovery import kind_of
from curator.model.layouts import rules as layout_rules
from curator.model.links import RawLink
from curator.model.loader import files_fingerprint, read_note
from curator.model.lookups import Link, Lookups
from curator.model.note import Kind, Note
from curator.model.palace import INDEX_NAME, Loaded, NeedsPalace, Palace, index_bytes_at, notes_sum
from curator.model.schema import name_key, slug_key
from curator.model.served import Served
from curator.search.catchup import catch_up, count_from_files, drafts_moved, vouch, walk
from curator.search.filerecord import read_sums, summed
from curator.search.filters import where_visible
from curator.search.index import (
    derived_config,
    head_commit,
    index_dir,
    open_index_at,
    read_synced,
)
from curator.search.state import STATE_FILE, EmptyIndexRefused, IndexState
from curator.search.store import IndexStore
from curator.search.words import recorded_corpus
from curator.writer.committed import Proof, notes_committed

if TYPE_CHECKING:
    import pyarrow as pa

    from curator.search.catchup import Walked
    from curator.search.searcher import Searcher

# What a query needs of every row: its note's kind, names, and the fields the filter reads.
COLUMNS = (
    "path",
    "slug",
    "name",
    "kind",
    "type",
    "scope",
    "status",
    "stale",
    "confidence",
    "sensitive",
    "tag_keys",
    "created",
    "reviewed",
)

# What a palace read from the index looks notes up by.
LOOKUP_COLUMNS = ("path", "slug", "name", "kind")

__all__ = ["COLUMNS", "LOOKUP_COLUMNS", "IndexedPalace", "cold_searcher", "indexed_palace"]


def cold_searcher(root: Path) -> Searcher | None:
    """A searcher over the index of the palace at `root` reading no more of the palace than
    a query shows, once the index reflects the files as they are now (the files changed
    since the last sync are read and their rows written first: `catch_up`); else None."""
    found = indexed_palace(root, COLUMNS, committed=True)
    if found is None:
        return None
    # here, not at the top: a plan reads its palace from the index too (`indexed_palace`) and
    # needs none of the ranking a search brings in
    from curator.search.searcher import Searcher

    palace, store = found
    config = palace.config
    # the rows the gate hides: the visibility filter's SQL, negated (the one rule, as a query)
    shown = where_visible(config, include_sensitive=False)
    hidden = store.columns(("path", "slug", "name"), f"NOT ({shown})") if shown else None
    palace.gate(hidden)
    stats = recorded_corpus(index_dir(palace.root), palace.index_signature)
    if stats is None:
        parsed = {p: k for p, k in palace.files.kinds.items() if p not in palace.unparsed}
        stats = count_from_files(
            palace.root, config, parsed, index_dir(palace.root), palace.index_signature
        )
    searcher = Searcher(palace, index=store, sync=False)
    searcher._stats = stats  # the palace's statistics as kept (never counted from no notes)
    return searcher


def indexed_palace(
    root: Path,
    columns: Sequence[str] = LOOKUP_COLUMNS,
    *,
    snapshot: bool = False,
    committed: bool | Proof = False,
) -> tuple[IndexedPalace, IndexStore] | None:
    """The palace at `root` as its index holds it (the rows' `columns`), and the index, once
    the index provably reflects the files as they are now: its table is the one the last
    sync recorded, at git HEAD, and a walk (one stat per file) finds every file as that
    sync read it, or the files changed since are read and their rows written first
    (`catch_up`); else None, and the caller loads the palace. `snapshot`: INDEX.md's bytes
    are read first, as a load reads them (`Loaded.index_snapshot`), for a plan made from it.

    `committed`, for a plan rendered from what HEAD holds (`committed_at`): git's status is
    read first; when it shows no note differing from HEAD (`notes_committed`), the palace is that
    commit's (`Loaded.committed`), and when the rows are known to hold its notes
    (`drafts_moved`) the notes are not walked: the drafts that moved since are read alone.
    `committed` may be that status as the caller took it before (`notes_proof`), so it ran
    while the caller did other work."""
    root = Path(root).resolve()
    config = load_config(root)
    if layout_rules.foreign(config):
        return None  # another tool's layout: its links resolve by its own table
    index = index_bytes_at(root) if snapshot else None
    record = read_synced(index_dir(root))
    if record is None or record.get("derived") != derived_config(config):
        return None
    try:  # read before LanceDB opens it: a damaged index is moved aside by the full path
        state = IndexState.from_json((index_dir(root) / STATE_FILE).read_bytes())
    except (OSError, ValueError, TypeError):
        return None
    if (state.table, state.updated) != (record.get("table"), record.get("updated")):
        return None  # another sync since, with no record of its own
    since_ns, head = (
        committed
        if isinstance(committed, tuple)
        else (time.time_ns(), notes_committed(root) if committed else None)
    )
    vouched = head is not None and record.get("clean") == head
    walked = None if vouched else walk(root, config)
    store = open_index_at(root, config)
    found = store.state
    moved = drafts_moved(root, config, head, store) if head and vouched and store.ready else None
    if moved is not None:  # git vouches for the notes
        if moved:  # the drafts stat-ed as moved since are read, their rows written
            record = _caught_up(root, config, store, changed=moved, keep=snapshot)
            if record is None:
                return None
    elif (
        walked is None
        or not isinstance(record.get("files"), str)
        or files_fingerprint(*walked) != record["files"]
        or not store.ready
        or found is None
        or (found.table, found.updated) != (record.get("table"), record.get("updated"))
        or found.commit != (head or head_commit(root))
    ):
        walked = walked or walk(root, config)
        record = _caught_up(root, config, store, walked)
        if record is None:
            return None
    if head is not None and walked is not None:
        vouch(root, config, head, since_ns, walked, store)
    if not isinstance(record.get("signature"), str) or not _strings(record.get("unparsed")):
        return None
    rows = store.columns(tuple(dict.fromkeys((*LOOKUP_COLUMNS, *columns))))
    palace = IndexedPalace(root, config, rows, record["unparsed"], record["signature"])
    palace.notes_of = _recorded_notes(store)
    if snapshot or head is not None:
        palace.loaded = Loaded(index_snapshot=(index,) if snapshot else None, committed=head)
    return palace, store


def _caught_up(
    root: Path,
    config: Config,
    store: IndexStore,
    walked: Walked | None = None,
    *,
    changed: list[str] | None = None,
    keep: bool = False,
) -> dict[str, Any] | None:
    """The index's record once `catch_up` brought it in step (the walk `walked`, or the
    paths `changed` alone); None when it could not, and the caller loads the palace (the full
    path says which notes failed and what to run)."""
    try:
        if not catch_up(root, config, store, walked, changed, keep=keep):
            return None
    except EmptyIndexRefused:
        return None
    return read_synced(index_dir(root))


def _recorded_notes(store: IndexStore) -> Callable[[], tuple[int, int]]:
    """`notes_sum` of the notes the index's record of files holds (read when first asked)."""

    def notes() -> tuple[int, int]:
        state = store.state
        sums = read_sums(store.index_dir, state, store.tables.seen) if state else None
        if sums is None:
            raise NeedsPalace("the index keeps no record of its files")
        return summed(sums.notes)

    return notes


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


class _Kinds(Mapping[str, Kind]):
    """Each file's kind by rel: a row's found by bisection in the rows' paths (in path order,
    as `IndexStore.columns` gives them: no table of every rel is made for the few a plan
    asks after), the files with no row (their header did not parse) in `others`."""

    def __init__(self, paths: list[str], kinds: list[str | None], others: dict[str, Kind]) -> None:
        self._paths = paths
        self._kinds = kinds
        self._others = {rel: kind for rel, kind in others.items() if self._row(rel) is None}

    def _row(self, rel: str) -> int | None:
        at = bisect.bisect_left(self._paths, rel)
        return at if at < len(self._paths) and self._paths[at] == rel else None

    def __getitem__(self, rel: str) -> Kind:
        at = self._row(rel)
        if at is None:
            return self._others[rel]
        return "draft" if self._kinds[at] == "draft" else "note"

    def __contains__(self, rel: object) -> bool:
        return isinstance(rel, str) and (rel in self._others or self._row(rel) is not None)

    def __iter__(self) -> Iterator[str]:
        yield from self._paths
        yield from self._others

    def __len__(self) -> int:
        return len(self._paths) + len(self._others)


class _Files(Mapping[str, Note]):
    """The palace's notes and drafts by rel, each read from its file when first asked for."""

    def __init__(self, root: Path, kinds: Mapping[str, Kind], config: Config) -> None:
        self._root = root
        self._kinds = kinds
        self._config = config
        self._layout = layout_rules.layout_of(config)
        self._read: dict[str, Note] = {}

    def __getitem__(self, rel: str) -> Note:
        note = self._read.get(rel)
        if note is None:
            kind = self._kinds[rel]  # KeyError: no note of the palace
            note = read_note(self._root, rel, kind, self._config, self._layout)
            self._read[rel] = note
        return note

    def __contains__(self, rel: object) -> bool:
        return rel in self._kinds

    def __iter__(self) -> Iterator[str]:
        return iter(self._kinds)

    def __len__(self) -> int:
        return len(self._kinds)

    @property
    def kinds(self) -> Mapping[str, Kind]:
        return self._kinds

    @property
    def read(self) -> list[str]:
        """The rels read so far."""
        return sorted(self._read)


class _Named(Sequence[Note]):
    """The notes at some rels, each read when first asked for (a slug's or a name's)."""

    def __init__(self, files: _Files, rels: list[str]) -> None:
        self._files = files
        self._rels = rels

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self._files[rel] for rel in self._rels[i]]
        return self._files[self._rels[i]]

    def __len__(self) -> int:
        return len(self._rels)


class _Table(dict[str, Sequence[Note]]):
    """Notes by a key (a slug, a name), each read when first asked for: one rel a key (a
    key shared by several notes keeps them all), so a table of 100k notes holds no note."""

    def __init__(self, files: _Files, keys: list[str], rels: list[str]) -> None:
        super().__init__()
        self._files = files
        self._one = dict(zip(keys, rels, strict=True))
        # a key shared by several notes (thousands in a big palace) is told as it is asked
        # for, by a pass in C over the keys: gathering them all when the table was made cost
        # a promote at 100k notes ~0.1 s, for the one or two names it asks
        self._shared = (keys, rels) if len(self._one) < len(keys) else None

    def _rels(self, key: str) -> list[str] | None:
        one = self._one.get(key)
        if one is None:
            return None
        if self._shared is not None:
            keys, rels = self._shared
            if keys.count(key) > 1:  # every rel of it, in order
                return [rel for k, rel in zip(keys, rels, strict=True) if k == key]
        return [one]

    def get(self, key: str, default: Any = None) -> Any:
        rels = self._rels(key)
        return _Named(self._files, rels) if rels is not None else default

    def __getitem__(self, key: str) -> Sequence[Note]:
        rels = self._rels(key)
        if rels is None:
            raise KeyError(key)
        return _Named(self._files, rels)

    def __contains__(self, key: object) -> bool:
        return key in self._one


class NameCues:
    """Which rows of a column of names may have a given `name_key`, picked out in Arrow's C
    so that `name_key` runs on those alone: a name of printable ASCII with one space between
    words and none around them has its ASCII lower case as its key (the space is the one
    whitespace there, and case folds as ASCII lowers), so it may have only that key; any
    other name (a character beyond, a run of spaces, a tab) may have any. A missing name is
    read as ''."""

    def __init__(self, names: pa.ChunkedArray | pa.Array) -> None:
        import pyarrow.compute as pc

        names = pc.fill_null(names, "")
        spaced = pc.or_(pc.starts_with(names, " "), pc.ends_with(names, " "))
        spaced = pc.or_(spaced, pc.match_substring(names, "  "))
        self._other = pc.or_(pc.invert(pc.ascii_is_printable(names)), spaced)
        self._lowered = pc.ascii_lower(names)

    def rows(self, key: str) -> list[int]:
        """The rows whose name may have `key` (every row that has it, and maybe others)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        maybe = pc.or_(self._other, pc.equal(self._lowered, pa.scalar(key, self._lowered.type)))
        return pc.indices_nonzero(maybe).to_pylist()


class _ByName(Mapping[str, Sequence[Note]]):
    """The rows' notes by `name_key`, each key's found when it is asked for: a plan asks
    after one or two names, and the key of every row's name (100k at 100k notes) cost more
    than the rest of its lookups. `NameCues` picks out the rows that may hold a key, and
    `name_key` decides among those alone."""

    def __init__(self, palace: IndexedPalace) -> None:
        self._palace = palace
        self._found: dict[str, list[str]] = {}
        self._cues: NameCues | None = None  # made when a key is first asked for

    def _rels(self, key: str) -> list[str]:
        rels = self._found.get(key)
        if rels is None:
            palace = self._palace
            names = palace._table.column("name")
            if self._cues is None:
                self._cues = NameCues(names)
            paths, kinds = palace._columns["path"], palace._columns["kind"]
            rels = self._found[key] = [
                paths[i]
                for i in self._cues.rows(key)
                if kinds[i] == "note" and name_key(str(names[i].as_py() or "")) == key
            ]
        return rels

    def get(self, key: str, default: Any = None) -> Any:
        rels = self._rels(key)
        return _Named(self._palace.files, rels) if rels else default

    def __getitem__(self, key: str) -> Sequence[Note]:
        rels = self._rels(key)
        if not rels:
            raise KeyError(key)
        return _Named(self._palace.files, rels)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and bool(self._rels(key))

    def __iter__(self) -> Iterator[str]:
        raise NeedsPalace("the rows' names are looked up one key at a time")

    def __len__(self) -> int:
        raise NeedsPalace("the rows' names are looked up one key at a time")


def _slug(note: Note) -> str:
    return note.slug.casefold()


def _name(note: Note) -> str:
    return name_key(note.name)


class _Over(Mapping[str, Note]):
    """The rows' notes by rel (`files`) with a change laid over them: the rels `gone` are
    not there (unless written again), the notes `added` are."""

    def __init__(self, files: _Files, gone: frozenset[str], added: dict[str, Note]) -> None:
        self._files = files
        self._gone = gone
        self._added = added

    def __getitem__(self, rel: str) -> Note:
        note = self._added.get(rel)
        if note is not None:
            return note
        if rel in self._gone:
            raise KeyError(rel)
        return self._files[rel]

    def __contains__(self, rel: object) -> bool:
        return rel in self._added or (rel not in self._gone and rel in self._files)

    def __iter__(self) -> Iterator[str]:
        yield from (rel for rel in self._files if rel not in self._gone)
        yield from (rel for rel in self._added if rel not in self._files or rel in self._gone)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class _OverTable:
    """A table of the rows' notes by key (`_Table`) with a change laid over it: the notes
    of the rels `gone` left out, the notes `added` after the rows' own (as `replaced()`
    adds them to a loaded palace's tables)."""

    def __init__(
        self,
        table: Mapping[str, Sequence[Note]],
        gone: frozenset[str],
        added: dict[str, list[Note]],
    ) -> None:
        self._table = table
        self._gone = gone
        self._added = added

    def get(self, key: str, default: Any = None) -> Any:
        kept = [n for n in self._table.get(key, ()) if n.rel not in self._gone]
        found = [*kept, *self._added.get(key, ())]
        return found if found else default

    def __getitem__(self, key: str) -> Sequence[Note]:
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return found

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None


class IndexedPalace(Palace):
    """The palace as its search index holds it: no note loaded (`notes` and `drafts` are
    empty); `by_rel` reads a note from its file when asked; what needs every note (the gate's
    verdicts, the names, the slug and name tables, the signature) comes from the rows.

    `replaced()` gives the palace after a change the same way: the rows as they are, with
    the notes the change writes and removes laid over them (`delta`), so a plan made from it
    asks its questions (a name taken, a slug, INDEX.md's rooms) of no more than those."""

    partial = True
    # `notes_sum` of the notes the rows are of (set by `indexed_palace`)
    notes_of: Callable[[], tuple[int, int]] | None = None

    def __init__(
        self,
        root: Path,
        config: Config,
        columns: pa.Table,
        unparsed: list[str],
        signature: str,
    ) -> None:
        super().__init__(root, config, [], [], layout=layout_rules.layout_of(config))
        # the columns every file is looked up by as lists; the slugs and names made lists when
        # first needed (a plan asks after one name: `_ByName`), the others read a row at a time
        whole = {c: columns.column(c).to_pylist() for c in ("path", "kind")}
        self._columns = whole
        self._table = columns
        others = {rel: kind_of(rel, config.inbox) or "note" for rel in unparsed}
        self.files = _Files(root, _Kinds(whole["path"], whole["kind"], others), config)
        self.by_rel = self.files  # type: ignore[assignment]
        self.index_signature = signature
        self.unparsed = frozenset(unparsed)
        self._unparsed = unparsed
        self._names: list[str] | None = None  # every row's name as a string (`index_names`)

        self._root = self
        self._gone: frozenset[str] = frozenset()  # rels of the rows' notes changed or removed
        self._added: dict[str, Note] = {}  # what the change writes, by rel
        self._sum: tuple[int, int] | None = None

    # -- the palace after a change ------------------------------------------------------------
    def replaced(self, changes: Mapping[str, bytes | None]) -> Palace:
        """The palace as it would be with `changes` applied: this one's rows with the notes
        written laid over them (nothing read but the changed notes as they were)."""
        key = tuple(sorted(changes.items(), key=lambda item: item[0]))
        if self.lookups.after is not None and self.lookups.after[0] == key:
            return self.lookups.after[1]
        gone, added = self._parsed(key)
        new = copy.copy(self)
        root = self._root
        new._gone = self._gone | {rel for rel in gone if rel in root.files}
        new._added = {r: n for r, n in self._added.items() if r not in gone}
        new._added.update((n.rel, n) for n in added)
        new.by_rel = _Over(root.files, new._gone, new._added)  # type: ignore[assignment]
        new.lookups = Lookups()
        new._sum = None
        if INDEX_NAME in changes:  # a committed plan's INDEX.md is the next pre-image
            new.loaded = replace(self.loaded, index_snapshot=(changes[INDEX_NAME],))
        self.lookups.after = (key, new)
        return new

    def delta(self) -> tuple[tuple[Note, ...], tuple[Note, ...]]:
        """(the rows' notes and drafts the changes replaced or removed, as they were; the
        notes and drafts the changes write)."""
        files = self._root.files
        return tuple(files[rel] for rel in sorted(self._gone)), tuple(
            self._added[rel] for rel in sorted(self._added)
        )

    def notes_sum(self) -> tuple[int, int]:
        """`notes_sum` of the rows' notes as the record of files has them, moved by the
        change (NeedsPalace: the index keeps no record)."""
        if self._sum is None:
            root = self._root
            if root._sum is None:
                if root.notes_of is None:
                    raise NeedsPalace("no record of the notes the index holds")
                root._sum = root.notes_of()
            count, total = root._sum
            gone, added = self.delta()
            out = notes_sum((n.rel, n.sha) for n in gone if n.kind == "note")
            into = notes_sum((n.rel, n.sha) for n in added if n.kind == "note")
            self._sum = (count - out[0] + into[0], (total - out[1] + into[1]) % (1 << 128))
        return self._sum

    def _listed(self, column: str) -> list[Any]:
        """Every row's `column` as a list, made when first asked for."""
        root = self._root
        found = root._columns.get(column)
        if found is None:
            found = root._columns[column] = root._table.column(column).to_pylist()
        return found

    @property
    def index_names(self) -> tuple[list[str], list[str], Callable[[int], dict[str, Any]]]:
        """(every row's path, its name as a string, the row at a position): what names
        matched as you type are read from (`curator.search.names`)."""
        root = self._root
        if root._names is None:
            root._names = [str(n or "") for n in root._listed("name")]
        return root._columns["path"], root._names, root._row

    def _row(self, i: int) -> dict[str, Any]:
        """The `i`th row (in path order) as a filter reads it."""
        return {c: self._table.column(c)[i].as_py() for c in self._table.column_names}

    def gate(self, hidden: pa.Table | None) -> None:
        """The gate's verdicts: the `hidden` rows (those the visibility filter hides:
        sensitive, or in a scope palace.toml marks sensitive; None: none) and every note
        whose header did not parse are hidden; every other row's path is shown."""
        found = {
            c: hidden.column(c).to_pylist() if hidden else [] for c in ("path", "slug", "name")
        }
        names = [str(n or "") for n in found["name"]]
        gone = list(zip(found["path"], found["slug"], names, strict=True))
        for rel in self._unparsed:
            gone.append((rel, rel.rsplit("/", 1)[-1].removesuffix(".md"), ""))
        shown = frozenset(self._columns["path"]).difference(found["path"])
        Served.of(self).hiding(gone, shown)

    def all(self) -> list[Note]:
        """Never every note (what this palace avoids): a caller that needs them all loads
        the palace (NeedsPalace); one that slipped through fails loudly rather than see none."""
        raise NeedsPalace("a palace read from the search index holds no note list")

    def _over(self, table: Mapping[str, Sequence[Note]], key: Callable[[Note], str]) -> Any:
        """The rows' `table` with the change laid over it (the rows' own, unchanged)."""
        if self._root is self:
            return table
        added: dict[str, list[Note]] = {}
        for note in self._added.values():
            if note.kind == "note" and (note.ok or key is _slug):
                added.setdefault(key(note), []).append(note)
        return _OverTable(table, self._gone, added)

    @property
    def _by_slug(self) -> Mapping[str, Sequence[Note]]:
        if self._root is not self:
            return self._over(self._root._by_slug, _slug)
        if self.lookups.slugs is None:
            notes = self._notes_only()
            slugs = self._listed("slug")
            keys = [str(slugs[i]).casefold() for i in notes]
            rels = [self._columns["path"][i] for i in notes]
            # the unparsed notes have no row, but a slug (their file name) all the same
            unparsed = [rel for rel in self._unparsed if self.files.kinds[rel] == "note"]
            keys += [rel.rsplit("/", 1)[-1].removesuffix(".md").casefold() for rel in unparsed]
            rels += unparsed
            self.lookups.slugs = _Table(self.files, keys, rels)
        return self.lookups.slugs

    @property
    def _by_name(self) -> Mapping[str, Sequence[Note]]:
        if self._root is not self:
            return self._over(self._root._by_name, _name)
        if self.lookups.names is None:
            self.lookups.names = _ByName(self)
        return self.lookups.names

    def _notes_only(self) -> list[int]:
        """The rows of notes (not drafts), by position."""
        return [i for i, kind in enumerate(self._columns["kind"]) if kind == "note"]

    def resolve(self, source_rel: str, link: RawLink) -> str | None:
        key = slug_key(link.target)
        if link.kind != "md" and "/" in key:  # a path-like wikilink: matched by its tail
            tail = "/" + key.lstrip("/")
            notes = [r for r, kind in self.files.kinds.items() if kind == "note"]
            matches = [r for r in notes if ("/" + slug_key(r)).endswith(tail)]
            return matches[0] if len(matches) == 1 else None
        return super().resolve(source_rel, link)

    def link_graph(self) -> tuple[dict[str, list[Link]], dict[str, list[Link]]]:
        raise NotImplementedError("a palace read from the index has no whole link graph")
