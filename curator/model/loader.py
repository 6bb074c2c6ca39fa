"""Loading a palace's files: walk notes/ and the inbox, parse what changed, report what cannot be
read. Unchanged files come from the cache (see `curator.model.cache`)."""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from curator.model import cache
from curator.model.discovery import INDEX_NAME, NOTES_DIR
from curator.model.finding import Finding
from curator.model.layouts import Layout
from curator.model.layouts.walk import walk
from curator.model.note import Kind, Note, bytes_sha, parse_note, read_file


@dataclass
class Loaded:
    notes: dict[str, Note] = field(default_factory=dict)  # notes and drafts by rel
    problems: list[Finding] = field(default_factory=list)
    index_bytes: bytes | None = None
    started_ns: int = 0
    attachments: list[str] = field(default_factory=list)  # other files under the notes root
    cache: str | None = None  # the name of the cache the load used (None: it used none)


def cache_name(layout: Layout | None) -> str:
    """The name the notes of a palace read through `layout` are cached under: notes read
    through another tool's layout are cached apart, so a palace.toml that changes its layout
    never gets notes read the other way."""
    return "notes" if layout is None or layout.name == "curator" else f"notes-{layout.name}"


def load_files(
    root: Path,
    *,
    use_cache: bool,
    layout: Layout | None = None,
    excludes: tuple[str, ...] = (),
    previous: tuple[Mapping[str, Note], int] | None = None,
    progress: Callable[[int], None] | None = None,
) -> Loaded:
    """Every note and draft under `root` (resolved). INDEX.md is read first, so an action
    landing during the load shows up as a changed INDEX.md when a plan made from it applies.
    With a `layout` other than curator's, notes are its markdown files under its notes root
    (less its excludes) and the other files there are kept as `attachments`. `progress` is
    told the running count of files loaded."""
    out = Loaded(started_ns=time.time_ns())
    try:
        out.index_bytes = (root / INDEX_NAME).read_bytes()
    except FileNotFoundError:
        out.index_bytes = None
    known: Mapping[str, Note] = {}
    trusted_ns = 0
    name = cache_name(layout)
    if use_cache:
        out.cache = name
    if use_cache and previous is not None:
        known, trusted_ns = previous
    elif use_cache:
        known, trusted_ns = cache.read_notes(root, name)
    read = 0  # files read: new or changed since the cache, or too young to trust by stat
    for rel, path, kind in _walk(root, out.problems, layout, excludes, out.attachments):
        note, was_read = _load_one(rel, path, kind, known.get(rel), trusted_ns, out.problems)
        read += was_read
        if note is not None:
            out.notes[rel] = note
        if progress is not None:
            progress(len(out.notes))
    if use_cache:
        gone = len(known) - sum(1 for rel in known if rel in out.notes)
        if stale_enough(read + gone, len(out.notes)) or not cache.notes_cached(root, name):
            cache.write_notes(root, out.notes, out.started_ns, name)
    return out


def read_all_links(root: Path, notes: Sequence[Note], name: str | None) -> None:
    """Read the links of every note in `notes` not read yet (`Note.links`) at once: from the
    links cache `name` (None: none) where it holds the note's bytes under its rule, else from
    the body. The cache is read only for more unread notes than `stale_enough` lets a load
    read again (a palace after a change has two or three: reading the cache costs the whole
    palace), and written anew once it missed as many."""
    unread = [note for note in notes if note._links is None]
    if name is None or not stale_enough(len(unread), len(notes)):
        for note in unread:
            note._links = note.links  # read from the body
        return
    stored = cache.read_links(root, name)
    missed = 0
    for note in unread:
        found = stored.get((note.sha, note.link_rule))
        if found is None:
            missed += 1
            found = note.links  # read from the body
        note._links = found
    if stale_enough(missed, len(notes)) or not stored:
        # a link before the body is a property link (`adapt`): read with the header, not here
        entries = {
            (n.sha, n.link_rule): n.links
            for n in notes
            if n.link_rule and not any(link.line < n.body_line for link in n.links)
        }
        kept = [(sha, rule, links) for (sha, rule), links in entries.items()]
        cache.write_links(root, kept, name)


#: the share of the palace a load may read again before the cache is written anew
STALE_SHARE = 64


def stale_enough(missed: int, notes: int) -> bool:
    """Whether a cache that missed `missed` files of a load of `notes` is written anew. Writing
    it costs the whole palace (~25 us a note); leaving it costs every later load the files it
    misses (~100 us each): an action changes two or three files, and a rewrite after each made
    its process and the next one pay for all ten thousand (issue 34). So the cache follows the
    palace once it misses more than one file in STALE_SHARE (16 at least)."""
    return missed > max(16, notes // STALE_SHARE)


def _load_one(
    rel: str, path: str, kind: Kind, old: Note | None, trusted_ns: int, problems: list[Finding]
) -> tuple[Note | None, bool]:
    """The note at `path` (`old` when the file is unchanged, else parsed again), and whether
    the file was read. A file with no earlier note is opened and read without a stat first."""
    if old is not None and old.kind != kind:
        old = None
    if old is not None:
        try:
            info = os.stat(path)
        except OSError as exc:
            problems.append(_unreadable(rel, exc))
            return None, False
        if _same_stat(old, info) and info.st_mtime_ns < trusted_ns - cache.RACY_NS:
            return old, False
    try:
        info, data = read_file(path)
    except OSError as exc:
        problems.append(_unreadable(rel, exc))
        return None, True
    if old is not None and _same_stat(old, info) and bytes_sha(data) == old.sha:
        return old, True
    return parse_note(rel, data, kind, mtime_ns=info.st_mtime_ns, size=info.st_size), True


def _same_stat(note: Note, info: os.stat_result) -> bool:
    return note.size == info.st_size and note.mtime_ns == info.st_mtime_ns


def _unreadable(rel: str, exc: OSError) -> Finding:
    return Finding(rel, 0, "error", "file.unreadable", f"cannot read: {exc.strerror}")


def _outside(rel: str, target: Path) -> Finding:
    message = f"symlink leads outside the palace (to {target}); not read"
    return Finding(rel, 0, "error", "file.symlink-outside", message)


def _leaves(rel: str, target: Path, folder: str) -> Finding:
    message = (
        f"symlink leads out of {folder}/ (to {target}): a note is a regular file inside "
        f"{folder}/, never a link that leaves it; not read"
    )
    return Finding(rel, 0, "error", "file.symlink-leaves", message)


def _hidden_place(root: Path, target: Path) -> bool:
    """`target` lies in git's or curator's own state (.git, .curator: any dot folder)."""
    return any(part.startswith(".") for part in target.relative_to(root).parts)


def _walk(
    root: Path,
    problems: list[Finding],
    layout: Layout | None = None,
    excludes: tuple[str, ...] = (),
    attachments: list[str] | None = None,
    *,
    notes: bool = True,
) -> Iterator[tuple[str, str, Kind]]:
    """The files a load reads as (rel, path, kind); `notes` False: the drafts alone (in
    curator's own layout)."""
    inbox = (layout or Layout()).inbox
    folders: tuple[tuple[str, Kind], ...] = ((NOTES_DIR, "note"), (inbox, "draft"))
    if not notes:
        folders = folders[1:]
    if layout is not None and (layout.name != "curator" or layout.notes != NOTES_DIR):
        for rel, is_markdown in walk(root, layout, excludes):
            if is_markdown:
                yield rel, str(root / rel), "note"
            elif attachments is not None:
                attachments.append(rel)
        folders = ((inbox, "draft"),)
    for folder, kind in folders:
        base = root / folder
        if base.is_symlink():  # notes/ or the inbox itself may not lead out of the palace
            target = Path(os.path.realpath(base))
            if not target.is_relative_to(root):
                problems.append(_outside(folder, target))
                continue
            if _hidden_place(root, target):
                problems.append(_leaves(folder, target, folder))
                continue
        if base.is_dir():
            inside = Path(os.path.realpath(base))
            yield from _walk_dir(root, inside, str(base), folder, kind, problems)


def _walk_dir(
    root: Path, inside: Path, base: str, rel: str, kind: Kind, problems: list[Finding]
) -> Iterator[tuple[str, str, Kind]]:
    """The markdown files under `base`; a link among them is read only when it stays inside
    `inside` (the real notes/ or inbox folder), so a committed link can never make a
    rejected draft or curator's own state read as a note."""
    try:
        entries = sorted(os.scandir(base), key=lambda e: e.name)
    except OSError as exc:
        message = f"cannot list folder: {exc.strerror}"
        problems.append(Finding(rel, 0, "error", "file.unreadable", message))
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        entry_rel = f"{rel}/{entry.name}"
        if entry.is_symlink() and not _symlink_ok(root, inside, entry.path, entry_rel, problems):
            continue
        if entry.is_dir(follow_symlinks=False):
            yield from _walk_dir(root, inside, entry.path, entry_rel, kind, problems)
        elif entry.name.endswith(".md") and entry.is_file():
            yield entry_rel, entry.path, kind


def _symlink_ok(root: Path, inside: Path, path: str, rel: str, problems: list[Finding]) -> bool:
    """A symlinked file that stays inside its folder (`inside`) is read; one leading out of
    it, a broken one or a symlinked folder is reported and skipped."""
    target = Path(os.path.realpath(path))
    if not target.is_relative_to(root):
        problems.append(_outside(rel, target))
    elif not target.is_relative_to(inside):
        problems.append(_leaves(rel, target, rel.split("/", 1)[0]))
    elif not target.exists():
        message = f"broken symlink (to {target}); not read"
        problems.append(Finding(rel, 0, "error", "file.symlink-broken", message))
    elif target.is_dir():
        message = "symlinked folder not followed"
        problems.append(Finding(rel, 0, "warning", "file.symlink-dir", message))
    else:
        return True
    return False


def read_note(root: Path, rel: str, kind: Kind, config: Any, layout: Layout | None = None) -> Note:
    """The note at `rel` read and parsed as a load of the palace of `config` reads it, by its
    layout's rules (`layout`: palace.toml's, when the caller has it already); one that cannot
    be read is a note whose header did not parse (the gate hides it), never an error."""
    from curator.model.layouts.rules import adapt_all  # as `Palace.open` reads every note

    problems: list[Finding] = []
    note, _read = _load_one(rel, str(root / rel), kind, None, 0, problems)
    if note is None:
        return Note(rel, kind, problems=tuple(problems))
    return adapt_all([note], config, layout)[0]


# -- the files' fingerprint ---------------------------------------------------------------
def files_fingerprint(files: Iterable[tuple[str, str, int, int]], unread: Iterable[str]) -> str:
    """A fingerprint of the files a load read: each one's rel, kind, size and mtime (as
    (rel, kind, size, mtime_ns)), and the paths it could not read. Equal fingerprints mean
    the same files, unchanged as far as the palace cache can tell (see `walk_fingerprint`).

    The sum of each file's own hash: in any order, holding nothing per file (a list of a
    million files' lines, sorted, held ~600 MB), and moved by a change's files alone
    (`fingerprint_of` a sum kept up to date: `curator.search.filerecord`)."""
    count, total = 0, 0
    for file in files:
        total += file_hash(*file)
        count += 1
    return fingerprint_of((count, total), unread)


def file_hash(rel: str, kind: str, size: int, mtime: int) -> int:
    """One file's part of `files_fingerprint`."""
    return _hashed(f"{rel}\0{kind}\0{size}\0{mtime}")


def fingerprint_of(files: tuple[int, int], unread: Iterable[str]) -> str:
    """`files_fingerprint` of files whose (count, sum of `file_hash`) is `files`."""
    count, total = files
    for rel in unread:
        total += _hashed(f"{rel}\0unread")
        count += 1
    return f"{count}:{total % (1 << 128):032x}"


def _hashed(line: str) -> int:
    digest = hashlib.blake2b(line.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    return int.from_bytes(digest, "big")


def walk_fingerprint(root: Path, layout: Layout | None, excludes: tuple[str, ...] = ()) -> str:
    """`files_fingerprint` of the files under `root` now, read by the walk a load makes and
    one stat each, without reading a file: whether a palace loaded earlier (see
    `loaded_fingerprint`) still holds every file as it is."""
    return files_fingerprint(*walk_stats(root, layout, excludes))


def walk_stats(
    root: Path, layout: Layout | None, excludes: tuple[str, ...] = (), *, notes: bool = True
) -> tuple[list[tuple[str, Kind, int, int]], list[str]]:
    """The files a load would read, as (rel, kind, size, mtime_ns), one stat each and none
    read, and the paths it could not read (as `files_fingerprint` takes them); `notes`
    False: the drafts alone, in curator's own layout."""
    problems: list[Finding] = []
    files: list[tuple[str, Kind, int, int]] = []
    for rel, path, kind in _walk(root, problems, layout, excludes, notes=notes):
        try:
            info = os.stat(path)
        except OSError:
            problems.append(Finding(rel, 0, "error", "file.unreadable", ""))
            continue
        files.append((rel, kind, info.st_size, info.st_mtime_ns))
    return files, [p.path for p in problems]


def loaded_fingerprint(
    notes: Iterable[Note], problems: Iterable[Finding], loaded_ns: int
) -> str | None:
    """`files_fingerprint` of the notes a load read from disk and the paths it could not
    read; None when a file was too young at that load for its size and mtime to vouch for
    its bytes (the cache's racy window), or a note was not read from disk (mtime 0)."""
    files = []
    for note in notes:
        if not note.mtime_ns or note.mtime_ns >= loaded_ns - cache.RACY_NS:
            return None
        files.append((note.rel, note.kind, note.size, note.mtime_ns))
    return files_fingerprint(files, (p.path for p in problems))
