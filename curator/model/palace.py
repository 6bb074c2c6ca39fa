"""Palace: every note and draft, the problems found while loading, links and rooms.

Loading is cached in `.curator/cache/` by path, size, mtime and content hash. The cache is a
pickle, so it is signed with a key kept in the user's own cache folder: a palace cloned from
someone else's repository cannot smuggle a pickle in.
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import hmac
import marshal
import os
import pickle
import posixpath
import secrets
import tempfile
import threading
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import date
from pathlib import Path
from typing import Any

from curator.config import CONFIG_NAME, Config, TypeSpec, load_config
from curator.errors import NoteNotFound, PalaceNotFound
from curator.model.finding import Finding
from curator.model.links import RawLink, md_target
from curator.model.note import MAX_BYTES, Kind, Note, parse_note

NOTES_DIR = "notes"
INBOX_DIR = "inbox"
STATE_DIR = ".curator"
INDEX_NAME = "INDEX.md"
_CACHE_VERSION = 6
_CACHE_MAGIC = b"curator-notes-cache\n"
_CACHE_BATCH = 500
_SUPERSEDED = ("superseded", "retired")
_FORK_MIN = 3000  # files to parse before a second process pays off


@dataclass(frozen=True, slots=True)
class Link:
    source: str  # rel of the note the link is in
    raw: RawLink
    target: str | None  # rel of the note it resolves to, None when broken


@dataclass(frozen=True)
class Room:
    spec: TypeSpec
    notes: list[Note]


def find_palace(explicit: str | os.PathLike[str] | None = None, cwd: Path | None = None) -> Path:
    """--palace PATH, else CURATOR_PALACE, else walk up from cwd to a palace.toml."""
    for source, value in (
        ("--palace", explicit),
        ("CURATOR_PALACE", os.environ.get("CURATOR_PALACE")),
    ):
        if value:
            path = Path(value).expanduser()
            if not path.is_dir():
                raise PalaceNotFound(f"{source} points at {path}, which is not a folder")
            if not (path / CONFIG_NAME).is_file() and not (path / NOTES_DIR).is_dir():
                raise PalaceNotFound(
                    f"{source}: {path} is not a palace (no palace.toml and no notes/ folder)"
                )
            return path.resolve()
    here = (cwd or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / CONFIG_NAME).is_file():
            return folder
    raise PalaceNotFound(
        f"no palace found: no {CONFIG_NAME} in {here} or above it. "
        "Use --palace PATH, set CURATOR_PALACE, or run 'curator init'."
    )


def _parse_date(value: str) -> date | None:
    try:
        return date.fromisoformat(value[:10]) if value else None
    except ValueError:
        return None


class Palace:
    def __init__(
        self,
        root: Path,
        config: Config,
        notes: Iterable[Note],
        drafts: Iterable[Note],
        problems: Iterable[Finding] = (),
    ) -> None:
        self.root = Path(root)
        self.config = config
        self.notes = sorted(notes, key=lambda n: n.rel)
        self.drafts = sorted(drafts, key=lambda n: n.rel)
        self.problems = list(problems)
        self.by_rel: dict[str, Note] = {n.rel: n for n in (*self.notes, *self.drafts)}
        # notes by case-folded slug and name: built on first use (see _by_slug)
        self._slugs: dict[str, Sequence[Note]] | None = None
        self._names: dict[str, Sequence[Note]] | None = None
        self._outgoing: dict[str, list[Link]] | None = None
        self._backlinks: dict[str, list[Link]] | None = None
        self._preds: dict[str, list[Note]] | None = None
        # active notes by type and the superseded ones (rooms() and superseded_notes()), and
        # the notes naming a successor: built on first use, patched by replaced()
        self._grouped: tuple[dict[str, list[Note]], list[Note], list[Note]] | None = None
        # derived per-note text keyed by content hash, shared with palaces made by replaced()
        self.render_cache: dict[tuple[str, str, str], Any] = {}
        self._replaced_memo: tuple[tuple[tuple[str, bytes | None], ...], Palace] | None = None
        # INDEX.md's bytes as read when the notes were loaded (None: absent; unset: not read).
        # Read *before* the notes, so an action landing during the load shows up as a changed
        # INDEX.md when a plan made from this palace is applied.
        self.index_snapshot: tuple[bytes | None] | None = None

    # -- loading -----------------------------------------------------------------------------
    @classmethod
    def open(cls, root: str | os.PathLike[str], *, cache: bool = True) -> Palace:
        """Load the palace at `root`. With `cache`, a file whose path, size and mtime match
        the last load is not read again: its note comes from the latest palace loaded from
        `root` in this process while that is still alive (the same Note objects, so a reload
        holds one copy of every unchanged note, not two), else from `.curator/cache/`."""
        root = Path(root).resolve()
        config = load_config(root)
        return _Loader(root, use_cache=cache).load(config)

    def replaced(self, changes: Mapping[str, bytes | None]) -> Palace:
        """The palace as it would be with `changes` applied ({rel: new bytes, or None: gone}).

        Built incrementally from this palace (a plan at 10k notes must not pay for a full
        rebuild), and remembered: planners ask for the same "after" palace more than once.
        """
        key = tuple(sorted(changes.items(), key=lambda item: item[0]))
        if self._replaced_memo is not None and self._replaced_memo[0] == key:
            return self._replaced_memo[1]
        gone = {rel for rel in changes if rel in self.by_rel}
        added: list[Note] = []
        for rel, data in key:
            kind = _kind_of(rel)
            if data is not None and kind is not None:
                added.append(parse_note(rel, data, kind))
        new = Palace.__new__(Palace)
        new.root, new.config, new.problems = self.root, self.config, self.problems
        new.notes = _merge_sorted(self.notes, gone, [n for n in added if n.kind == "note"])
        new.drafts = _merge_sorted(self.drafts, gone, [n for n in added if n.kind == "draft"])
        new.by_rel = dict(self.by_rel)
        for rel in gone:
            del new.by_rel[rel]
        new.by_rel.update((n.rel, n) for n in added)
        # the lookups this palace has built, patched; the others are built when first used.
        # Slugs are built here if need be: every plan renders INDEX.md, which resolves
        # successors by slug, and a chain of replaced palaces then builds them once.
        slugs = new._slugs = dict(self._by_slug)
        for rel in gone:
            if (old := self.by_rel[rel]).kind == "note":
                _drop(slugs, old.slug.casefold(), old)
        for note in added:
            if note.kind == "note":
                _add(slugs, note.slug.casefold(), note)
        new._names = None
        if self._names is not None:
            names = new._names = dict(self._names)
            for rel in gone:
                if (old := self.by_rel[rel]).kind == "note" and old.ok:
                    _drop(names, old.name.casefold(), old)
            for note in added:
                if note.kind == "note" and note.ok:
                    _add(names, note.name.casefold(), note)
        new._outgoing = new._backlinks = new._preds = None
        new._grouped = _regroup(self._groups(), gone, added) if added or gone else self._grouped
        new.render_cache = self.render_cache
        # a change to INDEX.md itself (a committed plan's effects) is the new pre-image
        new.index_snapshot = (
            (changes[INDEX_NAME],) if INDEX_NAME in changes else self.index_snapshot
        )
        new._replaced_memo = None
        self._replaced_memo = (key, new)
        return new

    # -- lookups ------------------------------------------------------------------------------
    @property
    def _by_slug(self) -> dict[str, Sequence[Note]]:
        """Notes by case-folded slug (tuples: one note a key, seldom two). Built on first use:
        loading, listing and searching never need it, and at 100k notes it holds ~10 MB."""
        slugs = self._slugs
        if slugs is None:
            slugs = {}
            for note in self.notes:
                _add(slugs, note.slug.casefold(), note)
            self._slugs = slugs
        return slugs

    @property
    def _by_name(self) -> dict[str, Sequence[Note]]:
        """Parsed notes by case-folded name (as `_by_slug`)."""
        names = self._names
        if names is None:
            names = {}
            for note in self.notes:
                if note.ok:
                    _add(names, note.name.casefold(), note)
            self._names = names
        return names

    def all(self) -> list[Note]:
        return [*self.notes, *self.drafts]

    def find(self, ref: str, kinds: tuple[Kind, ...] = ("note", "draft")) -> Note:
        """A note or draft by path, slug or name (case-insensitive); one match or an error."""
        ref = ref.strip()
        candidates: list[Note] = []
        as_path = self._rel_of_path(ref)
        if as_path and as_path in self.by_rel:
            candidates = [self.by_rel[as_path]]
        elif as_path and posixpath.normpath(ref) in self.by_rel:  # palace-relative path
            candidates = [self.by_rel[posixpath.normpath(ref)]]
        if not candidates:
            key = ref.casefold().removesuffix(".md")
            pool = [n for n in self.all() if n.kind in kinds]
            candidates = [n for n in pool if n.slug.casefold() == key]
            if not candidates:
                candidates = [n for n in pool if n.ok and n.name.casefold() == ref.casefold()]
        candidates = [n for n in candidates if n.kind in kinds]
        what = " or ".join(kinds)
        if not candidates:
            raise NoteNotFound(f"no {what} matches {ref!r} (give a path, a slug or a name)")
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
    def resolve(self, source_rel: str, link: RawLink) -> str | None:
        if link.kind == "md":
            target = md_target(source_rel, link.target)
            note = self.by_rel.get(target)
            return note.rel if note is not None and note.kind == "note" else None
        key = link.target.casefold().removesuffix(".md")
        if "/" in key:
            matches: Sequence[Note] = [
                n
                for n in self.notes
                if ("/" + n.rel.casefold().removesuffix(".md")).endswith("/" + key.lstrip("/"))
            ]
        else:
            matches = self._by_slug.get(key) or self._by_name.get(link.target.casefold()) or ()
        return matches[0].rel if len(matches) == 1 else None

    def _graph(self) -> tuple[dict[str, list[Link]], dict[str, list[Link]]]:
        if self._outgoing is None or self._backlinks is None:
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
            self._outgoing, self._backlinks = outgoing, backlinks
        return self._outgoing, self._backlinks

    def outgoing(self, note: Note) -> list[Link]:
        return self._graph()[0].get(note.rel, [])

    def backlinks(self, note: Note) -> list[Link]:
        return self._graph()[1].get(note.rel, [])

    def note_by_slug(self, slug: str) -> Note | None:
        matches = self._by_slug.get(slug.casefold().removesuffix(".md"), ())
        return matches[0] if len(matches) == 1 else None

    # -- rooms and flags ----------------------------------------------------------------------
    def rooms(self) -> list[Room]:
        """Active notes grouped by type, in taxonomy order (only types the palace knows)."""
        by_type = self._groups()[0]
        return [Room(self.config.types[name], list(by_type[name])) for name in self.config.types]

    def superseded_notes(self) -> list[Note]:
        return list(self._groups()[1])

    def _groups(self) -> tuple[dict[str, list[Note]], list[Note], list[Note]]:
        if self._grouped is None:
            self._grouped = _regroup(
                ({name: [] for name in self.config.types}, [], []), (), self.notes
            )
        return self._grouped

    def _predecessors(self) -> dict[str, list[Note]]:
        """rel of a note -> the notes that name it in superseded_by."""
        if self._preds is None:
            preds: dict[str, list[Note]] = {}
            for other in self._groups()[2]:
                if other.superseded_by:
                    target = self.note_by_slug(other.superseded_by)
                    if target is not None:
                        preds.setdefault(target.rel, []).append(other)
            self._preds = preds
        return self._preds

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
        """The note's confidence, or its type's default."""
        if note.confidence is not None:
            return note.confidence
        spec = self.config.type_spec(note.type)
        return spec.default_confidence if spec else 0.0

    def flags(self, note: Note, today: date | None = None) -> list[str]:
        """stale, due, expired, low-confidence, superseded — in that order."""
        today = today or date.today()
        out: list[str] = []
        if note.stale:
            out.append("stale")
        if self.is_due(note, today):
            out.append("due")
        expires = _parse_date(note.expires)
        if expires and expires < today:
            out.append("expired")
        if note.ok and self.confidence(note) < self.config.index.low_confidence:
            out.append("low-confidence")
        if note.superseded:
            out.append("superseded")
        return out

    def is_due(self, note: Note, today: date | None = None) -> bool:
        if note.kind != "note" or note.superseded:
            return False
        spec = self.config.type_spec(note.type)
        if spec is None:
            return False
        dates = [
            d
            for d in (
                _parse_date(note.reviewed),
                _parse_date(_verified(note)),
                _parse_date(note.created),
            )
            if d
        ]
        if not dates:
            return False
        return ((today or date.today()) - max(dates)).days > spec.review_after_days


def _regroup(
    groups: tuple[dict[str, list[Note]], list[Note], list[Note]],
    gone: Iterable[str],
    added: Iterable[Note],
) -> tuple[dict[str, list[Note]], list[Note], list[Note]]:
    """`groups` (rooms by type, superseded, naming a successor; each sorted by rel) without the
    notes at `gone` and with the `added` notes (drafts are in none)."""
    gone = set(gone)
    by_type = {name: [n for n in notes if n.rel not in gone] for name, notes in groups[0].items()}
    superseded = [n for n in groups[1] if n.rel not in gone]
    naming = [n for n in groups[2] if n.rel not in gone]
    grown: set[int] = set()
    for note in added:
        if note.kind != "note":
            continue
        if note.superseded_by:
            naming.append(note)
            grown.add(id(naming))
        if not note.ok:
            continue
        header = note.header
        if header.get("status") in _SUPERSEDED:
            superseded.append(note)
            grown.add(id(superseded))
        elif (room := by_type.get(header.get("type"))) is not None:  # type: ignore[arg-type]
            room.append(note)
            grown.add(id(room))
    for group in (*by_type.values(), superseded, naming):
        if id(group) in grown:
            group.sort(key=_rel)  # sorted runs plus a few: linear
    return by_type, superseded, naming


def _rel(note: Note) -> str:
    return note.rel


def _merge_sorted(notes: list[Note], gone: set[str], added: list[Note]) -> list[Note]:
    """`notes` (sorted by rel) without `gone`, with `added`, still sorted."""
    kept = [n for n in notes if n.rel not in gone] if gone else list(notes)
    for note in added:
        bisect.insort(kept, note, key=lambda n: n.rel)
    return kept


def _add(index: dict[str, Sequence[Note]], key: str, note: Note) -> None:
    found = index.get(key)
    index[key] = (note,) if found is None else (*found, note)


def _drop(index: dict[str, Sequence[Note]], key: str, note: Note) -> None:
    remaining = tuple(n for n in index.get(key, ()) if n is not note)
    if remaining:
        index[key] = remaining
    else:
        index.pop(key, None)


def _verified(note: Note) -> str:
    value = note.header.get("verified")
    return value if isinstance(value, str) else ""


def _kind_of(rel: str) -> Kind | None:
    if not rel.endswith(".md"):
        return None
    if rel.startswith(NOTES_DIR + "/"):
        return "note"
    if rel.startswith(INBOX_DIR + "/"):
        return "draft"
    return None


class _Loader:
    def __init__(self, root: Path, use_cache: bool) -> None:
        self.root = root
        self.use_cache = use_cache
        self.problems: list[Finding] = []

    def load(self, config: Config) -> Palace:
        try:
            index_bytes: bytes | None = (self.root / INDEX_NAME).read_bytes()
        except FileNotFoundError:
            index_bytes = None
        live = _live_palace(self.root) if self.use_cache else None
        cached: Mapping[str, Note] = {}
        if live is not None:
            cached = live.by_rel
        elif self.use_cache:
            cached = self._read_cache()
        fresh: dict[str, Note] = {}
        todo: list[tuple[str, str, Kind, int]] = []
        for rel, path, kind in self._walk():
            try:
                stat = os.stat(path)
            except OSError as exc:
                self._unreadable(rel, exc)
                continue
            old = cached.get(rel)
            if (
                old is not None
                and old.size == stat.st_size
                and old.mtime_ns == stat.st_mtime_ns
                and old.kind == kind
            ):
                fresh[rel] = old
            else:
                todo.append((rel, path, kind, stat.st_mtime_ns))
        for note in self._parse_all(todo):
            fresh[note.rel] = note
        if self.use_cache and (
            todo or set(fresh) != set(cached) or (live is not None and not self._cache_exists())
        ):
            self._write_cache(fresh)
        del cached, live
        notes = [n for n in fresh.values() if n.kind == "note"]
        drafts = [n for n in fresh.values() if n.kind == "draft"]
        palace = Palace(self.root, config, notes, drafts, self.problems)
        palace.index_snapshot = (index_bytes,)
        if self.use_cache:
            _remember_live(self.root, palace)
        return palace

    def _unreadable(self, rel: str, exc: OSError) -> None:
        self.problems.append(
            Finding(rel, 0, "error", "file.unreadable", f"cannot read: {exc.strerror}")
        )

    def _parse_files(self, todo: list[tuple[str, str, Kind, int]]) -> list[Note]:
        out = []
        for rel, path, kind, mtime_ns in todo:
            try:
                with open(path, "rb") as handle:  # never more than the limit plus one byte
                    data = handle.read(MAX_BYTES + 1)
            except OSError as exc:
                self._unreadable(rel, exc)
                continue
            out.append(parse_note(rel, data, kind, mtime_ns=mtime_ns))
        return out

    def _parse_all(self, todo: list[tuple[str, str, Kind, int]]) -> list[Note]:
        """Parse files; a large cold load splits the work with a forked child on a second
        core. Forking is skipped whenever other threads run (the app), where it is unsafe."""
        if len(todo) < _FORK_MIN or not hasattr(os, "fork") or threading.active_count() > 1:
            return self._parse_files(todo)
        half = len(todo) // 2
        known = len(self.problems)
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # child: parse the second half, send it back pickled, exit at once
            code = 1
            try:
                os.close(read_end)
                notes = self._parse_files(todo[half:])
                payload = pickle.dumps((notes, self.problems[known:]), protocol=5)
                with os.fdopen(write_end, "wb") as pipe:
                    pipe.write(payload)
                code = 0
            finally:
                os._exit(code)
        os.close(write_end)
        mine = self._parse_files(todo[:half])
        with os.fdopen(read_end, "rb") as pipe:
            payload = pipe.read()
        _, status = os.waitpid(pid, 0)
        if status != 0 or not payload:
            return mine + self._parse_files(todo[half:])
        theirs, problems = pickle.loads(payload)  # from our own forked child
        self.problems.extend(problems)
        return mine + theirs

    def _walk(self) -> Iterable[tuple[str, str, Kind]]:
        for folder, kind in ((NOTES_DIR, "note"), (INBOX_DIR, "draft")):
            base = self.root / folder
            if base.is_symlink():  # notes/ or inbox/ itself may not lead out of the palace
                target = Path(os.path.realpath(base))
                if not target.is_relative_to(self.root):
                    self.problems.append(
                        Finding(
                            folder,
                            0,
                            "error",
                            "file.symlink-outside",
                            f"symlink leads outside the palace (to {target}); not read",
                        )
                    )
                    continue
            if base.is_dir():
                yield from self._walk_dir(base, folder, kind)  # type: ignore[arg-type]

    def _walk_dir(self, base: str | Path, rel: str, kind: Kind) -> Iterable[tuple[str, str, Kind]]:
        try:
            entries = sorted(os.scandir(base), key=lambda e: e.name)
        except OSError as exc:
            self.problems.append(
                Finding(rel, 0, "error", "file.unreadable", f"cannot list folder: {exc.strerror}")
            )
            return
        for entry in entries:
            if entry.name.startswith("."):
                continue
            entry_rel = f"{rel}/{entry.name}"
            if entry.is_symlink():
                target = Path(os.path.realpath(entry.path))
                if not target.is_relative_to(self.root):
                    self.problems.append(
                        Finding(
                            entry_rel,
                            0,
                            "error",
                            "file.symlink-outside",
                            f"symlink leads outside the palace (to {target}); not read",
                        )
                    )
                    continue
                if not target.exists():
                    self.problems.append(
                        Finding(
                            entry_rel,
                            0,
                            "error",
                            "file.symlink-broken",
                            f"broken symlink (to {target}); not read",
                        )
                    )
                    continue
                if target.is_dir():
                    self.problems.append(
                        Finding(
                            entry_rel,
                            0,
                            "warning",
                            "file.symlink-dir",
                            "symlinked folder not followed",
                        )
                    )
                    continue
            if entry.is_dir(follow_symlinks=False):
                yield from self._walk_dir(entry.path, entry_rel, kind)
            elif entry.name.endswith(".md") and entry.is_file():
                yield entry_rel, entry.path, kind

    # -- cache --------------------------------------------------------------------------------
    def _cache_file(self) -> Path:
        return self.root / STATE_DIR / "cache" / "notes.cache"

    def _cache_exists(self) -> bool:
        return self._cache_file().is_file()

    def _read_cache(self) -> dict[str, Note]:
        """Notes from the signed cache; {} when it is absent, foreign, damaged or tampered with.

        The whole file's MAC is checked in a streaming pass before any record is decoded."""
        key = _cache_key()
        path = self._cache_file()
        if key is None or not path.is_file():
            return {}
        try:
            with open(path, "rb") as handle:
                if handle.read(len(_CACHE_MAGIC)) != _CACHE_MAGIC:
                    return {}
                size = os.fstat(handle.fileno()).st_size
                mac = hmac.new(key, digestmod=hashlib.sha256)
                remaining = size - len(_CACHE_MAGIC) - 32
                while remaining > 0:
                    chunk = handle.read(min(remaining, 1 << 20))
                    if not chunk:
                        return {}
                    mac.update(chunk)
                    remaining -= len(chunk)
                if not hmac.compare_digest(handle.read(32), mac.digest()):
                    return {}
                handle.seek(len(_CACHE_MAGIC))
                head = marshal.loads(_read_record(handle))
                if head != (_CACHE_VERSION, str(self.root)):
                    return {}
                notes: dict[str, Note] = {}
                while True:
                    record = _read_record(handle)
                    if not record:
                        break
                    for row in marshal.loads(record):
                        note = _note_from_row(row)
                        notes[note.rel] = note
                return notes
        except Exception:  # a damaged cache is only a slower start
            return {}

    def _write_cache(self, notes: dict[str, Note]) -> None:
        """Records of a few hundred notes each (no second copy of the palace in memory),
        MAC'd as they are written, the MAC last."""
        key = _cache_key()
        if key is None:
            return
        path = self._cache_file()
        tmp = ""
        try:
            ensure_state_dir(self.root)
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".notes.", suffix=".tmp")
            mac = hmac.new(key, digestmod=hashlib.sha256)
            with os.fdopen(fd, "wb") as handle:
                handle.write(_CACHE_MAGIC)

                def put(data: bytes) -> None:
                    framed = len(data).to_bytes(8, "little") + data
                    mac.update(framed)
                    handle.write(framed)

                put(marshal.dumps((_CACHE_VERSION, str(self.root))))
                batch = list(notes.values())
                for start in range(0, len(batch), _CACHE_BATCH):
                    rows = [_row_of(n) for n in batch[start : start + _CACHE_BATCH]]
                    try:
                        put(marshal.dumps(rows))
                    except ValueError:  # a header value marshal cannot hold: leave it out
                        put(marshal.dumps([r for r in rows if _marshalable(r)]))
                put(b"")
                handle.write(mac.digest())
            os.replace(tmp, path)
        except OSError:
            if tmp:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)


def _read_record(handle: Any) -> bytes:
    size = int.from_bytes(handle.read(8), "little")
    data = handle.read(size)
    if len(data) != size:
        raise ValueError("truncated cache record")
    return bytes(data)


def _marshalable(row: tuple[Any, ...]) -> bool:
    try:
        marshal.dumps(row)
    except ValueError:
        return False
    return True


# Note fields in constructor order, all marshal-able, then problems and links as tuples.
_ROW_PLAIN = tuple(f.name for f in fields(Note) if f.name not in ("problems", "links"))


def _row_of(note: Note) -> tuple[Any, ...]:
    problems = tuple((f.path, f.line, f.severity, f.code, f.message) for f in note.problems)
    return (*(getattr(note, name) for name in _ROW_PLAIN), problems, tuple(map(tuple, note.links)))


def _note_from_row(row: tuple[Any, ...]) -> Note:
    *plain, problems, links = row
    return Note(  # type: ignore[call-arg]  # the row holds every field
        *plain,
        tuple(Finding(*f) for f in problems) if problems else (),
        tuple(RawLink(*link) for link in links) if links else (),
    )


# The palaces loaded from each root in this process, held weakly, oldest first: a reload takes
# its unchanged notes from the latest one still alive (see Palace.open); nothing is kept alive
# for it.
_LIVE: dict[Path, list[weakref.ref[Palace]]] = {}
_LIVE_LOCK = threading.Lock()


def _live_palace(root: Path) -> Palace | None:
    with _LIVE_LOCK:
        refs = _LIVE.get(root, [])
        alive = [ref for ref in refs if ref() is not None]
        if len(alive) != len(refs):
            _LIVE[root] = alive
        return alive[-1]() if alive else None


def _remember_live(root: Path, palace: Palace) -> None:
    with _LIVE_LOCK:
        _LIVE.setdefault(root, []).append(weakref.ref(palace))


def ensure_state_dir(root: Path) -> Path:
    """.curator/ with a .gitignore of its own, so machine state never enters history."""
    state = Path(root) / STATE_DIR
    state.mkdir(exist_ok=True)
    ignore = state / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# curator machine state: caches, index, journal. Never committed.\n*\n")
    return state


def _cache_key() -> bytes | None:
    from platformdirs import user_cache_dir

    folder = Path(os.environ.get("CURATOR_CACHE_HOME") or user_cache_dir("curator"))
    path = folder / "cache.key"
    try:
        if path.is_file():
            key = path.read_bytes()
            if len(key) >= 32:
                return key
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            key = secrets.token_bytes(32)
            handle.write(key)
        return key
    except OSError:
        return None
