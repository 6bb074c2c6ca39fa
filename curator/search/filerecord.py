"""What the index holds of each file, kept beside it (`files.msgpack`): the kind, size and
mtime the sync read the file with, its bytes' hash, and whether its header parsed (the index
holds a row of it; else the gate hides it). A later process tells the files changed since by
one stat each and reads only those (`curator.search.catchup`), never the whole palace.

The record names the table and update it was written with: one left from another state of
the index (a crash between the switch and this write, another process's sync) is never used.
A file too young when read for its size and mtime to vouch for its bytes (the palace cache's
racy window) is recorded as not to be trusted, so the next look reads it again.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import msgspec

from curator.fsutil import atomic_write
from curator.model.cache import RACY_NS
from curator.model.loader import file_hash
from curator.model.note import Note
from curator.model.palace import pair_hash
from curator.search.state import IndexState

log = logging.getLogger(__name__)

FILES_FILE = "files.msgpack"
UNTRUSTED = -1  # the size of an entry whose stat vouches for nothing: always read again


class FileEntry(msgspec.Struct, array_like=True, frozen=True, gc=False):
    # gc=False: strings and numbers only, no cycle possible; 100k tracked entries made the
    # collector scan them again and again while a record decodes
    kind: str  # "note" or "draft"
    size: int  # UNTRUSTED: read again whatever the stat says
    mtime_ns: int
    sha: str  # blake2b of the bytes ("" when they could not be read)
    parsed: bool  # the header parsed: the index holds a row of the file

    def same(self, kind: str, size: int, mtime_ns: int) -> bool:
        """Whether a file stat-ing as (kind, size, mtime_ns) is this one as read."""
        return self.size != UNTRUSTED and (self.kind, self.size, self.mtime_ns) == (
            kind,
            size,
            mtime_ns,
        )


Pair = tuple[int, str]  # (how many, the sum of their hashes mod 2**128 in hex: msgpack
# holds no integer that large)


class Sums(msgspec.Struct, array_like=True, frozen=True):
    """Sums over the record's entries, kept with them so that a change moves them by its own
    files alone (never a pass over every entry): what synced.json's fingerprints are of."""

    files: Pair  # every entry's `file_hash`: the files' fingerprint (`fingerprint_of`)
    parsed: Pair  # the parsed entries' `pair_hash`: the index's signature (`signature_from`)
    notes: Pair  # the notes' `pair_hash`: what INDEX.md is rendered from (`Palace.notes_sum`)
    young: int  # entries too young when read to vouch for their bytes (UNTRUSTED)

    def moved(
        self, before: Iterable[tuple[str, FileEntry]], after: Iterable[tuple[str, FileEntry]]
    ) -> Sums:
        """These sums less the parts of the entries `before`, plus those of `after`."""
        out, into = sums_of(before), sums_of(after)
        return Sums(
            _add(self.files, out.files, into.files),
            _add(self.parsed, out.parsed, into.parsed),
            _add(self.notes, out.notes, into.notes),
            self.young - out.young + into.young,
        )


def sums_of(entries: Iterable[tuple[str, FileEntry]]) -> Sums:
    """The sums of the entries given as (rel, entry)."""
    files, parsed, notes = [0, 0], [0, 0], [0, 0]
    young = 0
    for rel, e in entries:
        files[0] += 1
        files[1] += file_hash(rel, e.kind, e.size, e.mtime_ns)
        if e.parsed or e.kind == "note":
            pair = pair_hash(rel, e.sha)
            if e.parsed:
                parsed[0] += 1
                parsed[1] += pair
            if e.kind == "note":
                notes[0] += 1
                notes[1] += pair
        young += e.size == UNTRUSTED
    return Sums(_pair(files), _pair(parsed), _pair(notes), young)


def _pair(summed: list[int]) -> Pair:
    return summed[0], f"{summed[1] % (1 << 128):032x}"


def summed(pair: Pair) -> tuple[int, int]:
    """A `Pair` as (how many, the sum) in numbers."""
    return pair[0], int(pair[1], 16)


def _add(base: Pair, out: Pair, into: Pair) -> Pair:
    (b, bt), (o, ot), (i, it) = summed(base), summed(out), summed(into)
    return _pair([b - o + i, bt - ot + it])


class Record(msgspec.Struct):
    table: str
    updated: str
    seen: tuple[int, int, int] | None  # the write of state.json (`IndexTables.seen`)
    files: dict[str, FileEntry]
    sums: Sums | None = None  # None: a record written before they were kept


class _Summed(msgspec.Struct):
    """A record's head and sums, its entries skipped unread."""

    table: str
    updated: str
    seen: tuple[int, int, int] | None
    sums: Sums | None = None


_decoder = msgspec.msgpack.Decoder(Record)
_summed = msgspec.msgpack.Decoder(_Summed)
_encoder = msgspec.msgpack.Encoder()


def entry_of(note: Note, read_ns: int) -> FileEntry:
    """The entry of `note` as a load that started at `read_ns` read it."""
    trusted = note.sha and note.mtime_ns and note.mtime_ns < read_ns - RACY_NS
    size = note.size if trusted else UNTRUSTED
    return FileEntry(note.kind, size, note.mtime_ns, note.sha, note.ok)


# (the bytes, the record decoded from them) that `read_record(..., keep=True)` or
# `write_record(..., keep=True)` kept for the next read of the same bytes in this process: a
# command's plan and the index following its commit read the record twice (at 100k files
# 13 MB, ~0.1 s to decode), with no other write between. Taken by that next read, so it is
# never held longer.
_kept: list[tuple[bytes, Record]] = []


def read_record(
    index_dir: Path, state: IndexState, seen: tuple[int, int, int] | None, *, keep: bool = False
) -> Record | None:
    """The record of the files the index of `state`, as state.json's write `seen`, holds
    (None: no record of that state). `keep`: the next read finding the same bytes takes the
    record decoded here instead of decoding them again."""
    try:
        data = (index_dir / FILES_FILE).read_bytes()
    except OSError:
        return None
    kept = _kept.pop() if _kept else None
    if kept is not None and kept[0] == data:
        record: Record | None = kept[1]
    else:
        record = _decoded(_decoder, data)
    if record is not None and keep:
        _kept.append((data, record))
    return record if _of(record, state, seen) else None


def read_sums(index_dir: Path, state: IndexState, seen: tuple[int, int, int] | None) -> Sums | None:
    """The sums of `read_record`'s record, its entries not decoded (None: no record of that
    state, or one kept without sums)."""
    head = _read(_summed, index_dir, state, seen)
    return head.sums if head is not None else None


def _read(
    decoder: msgspec.msgpack.Decoder[Any],
    index_dir: Path,
    state: IndexState,
    seen: tuple[int, int, int] | None,
) -> Any:
    """The record (as `decoder` reads it) when it is of `state` as `seen`, else None."""
    try:
        data = (index_dir / FILES_FILE).read_bytes()
    except OSError:
        return None
    record = _decoded(decoder, data)
    return record if _of(record, state, seen) else None


def _decoded(decoder: msgspec.msgpack.Decoder[Any], data: bytes) -> Any:
    try:
        return decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def _of(record: Any, state: IndexState, seen: tuple[int, int, int] | None) -> bool:
    """Whether `record` (decoded, or None) is the one of `state` as state.json's write `seen`."""
    return (
        record is not None
        and seen is not None
        and (record.table, record.updated, record.seen) == (state.table, state.updated, seen)
    )


def write_record(
    index_dir: Path,
    state: IndexState,
    seen: tuple[int, int, int] | None,
    files: dict[str, FileEntry],
    sums: Sums,
    *,
    keep: bool = False,
) -> None:
    """Record the files the index of `state` (state.json's write `seen`) holds, with their
    `sums` (best effort: it only saves work). `keep`: the next `read_record` finding these
    bytes takes the record from here instead of decoding them (see `_kept`)."""
    record = Record(state.table, state.updated, seen, files, sums)
    try:
        data = _encoder.encode(record)
        atomic_write(index_dir / FILES_FILE, data, sync=False)
    except OSError as exc:
        log.info("could not record the files the index holds: %s", exc)
        return
    if keep:
        _kept[:] = [(data, record)]


__all__ = [
    "FILES_FILE",
    "UNTRUSTED",
    "FileEntry",
    "Record",
    "Sums",
    "entry_of",
    "read_record",
    "read_sums",
    "summed",
    "sums_of",
    "write_record",
]
