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
from pathlib import Path

import msgspec

from curator.fsutil import atomic_write
from curator.model.cache import RACY_NS
from curator.model.note import Note
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


class _Record(msgspec.Struct):
    table: str
    updated: str
    seen: tuple[int, int, int] | None  # the write of state.json (`IndexTables.seen`)
    files: dict[str, FileEntry]


_decoder = msgspec.msgpack.Decoder(_Record)
_encoder = msgspec.msgpack.Encoder()


def entry_of(note: Note, read_ns: int) -> FileEntry:
    """The entry of `note` as a load that started at `read_ns` read it."""
    trusted = note.sha and note.mtime_ns and note.mtime_ns < read_ns - RACY_NS
    size = note.size if trusted else UNTRUSTED
    return FileEntry(note.kind, size, note.mtime_ns, note.sha, note.ok)


def read_record(
    index_dir: Path, state: IndexState, seen: tuple[int, int, int] | None
) -> dict[str, FileEntry] | None:
    """The files the index of `state`, as state.json's write `seen`, holds, by rel (None:
    no record of that state)."""
    try:
        record = _decoder.decode((index_dir / FILES_FILE).read_bytes())
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None
    if seen is None or (record.table, record.updated, record.seen) != (
        state.table,
        state.updated,
        seen,
    ):
        return None
    return record.files


def write_record(
    index_dir: Path,
    state: IndexState,
    seen: tuple[int, int, int] | None,
    files: dict[str, FileEntry],
) -> None:
    """Record the files the index of `state` (state.json's write `seen`) holds (best effort:
    it only saves work)."""
    try:
        data = _encoder.encode(_Record(state.table, state.updated, seen, files))
        atomic_write(index_dir / FILES_FILE, data, sync=False)
    except OSError as exc:
        log.info("could not record the files the index holds: %s", exc)


__all__ = ["FILES_FILE", "UNTRUSTED", "FileEntry", "entry_of", "read_record", "write_record"]
