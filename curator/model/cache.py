"""The one cache of the palace load: parsed notes, reused while a file's size and mtime match,
and apart from them the notes' links, by each file's content hash (a load reads no links; what
needs every note's reads them at once: `loader.read_all_links`).

On disk, a file per palace in the *user's* cache folder (CURATOR_CACHE_HOME, else the
platform's), never inside the palace: a palace copied or cloned from someone else
brings no cache with it, and only this user can write the file (one that another user owns or
may write is not read). The notes are one msgpack file that msgspec decodes as a whole into
`Note`s (typed: a forged file yields plain values or nothing); other values are a pickle of
plain data only (tuples, strings, numbers, dates), read by an unpickler that refuses every
class: even a forged file cannot run code.

A note entry is trusted only for files last modified well before the load that wrote it (file
times are coarse: a same-size edit in the same tick would look unchanged); a younger file is
read again and its note reused only when the bytes hash the same. A links entry never goes
stale: a note's links are what its bytes and its layout's rule make them.

In the process nothing is kept: a caller that reloads passes the palace it holds
(`Palace.open(root, previous=...)`, as a `Session` does), so the reload shares one copy of
every unchanged note with it.
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import io
import os
import pickle
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import msgspec

from curator.fsutil import atomic_write
from curator.model.links import LinkRule, RawLink
from curator.model.note import Note, _shared, _shared_lines

VERSION = 2  # 2: links read by a CommonMark parse (decoded targets, `written`)
RACY_NS = 2_000_000_000  # files younger than this at the last load are checked by content
_DATES = {"date", "datetime", "time", "timedelta", "timezone"}


def cache_folder() -> Path:
    from platformdirs import user_cache_dir

    return Path(os.environ.get("CURATOR_CACHE_HOME") or user_cache_dir("curator"))


def cache_path(root: Path, name: str = "notes") -> Path:
    """The file holding cache `name` of the palace at `root` (one folder per palace)."""
    # fsencode: a folder name that is not UTF-8 (surrogate-escaped) is bytes on disk, as here
    digest = hashlib.blake2b(os.fsencode(Path(root).resolve()), digest_size=12).hexdigest()
    return cache_folder() / "palaces" / digest / f"{name}.pickle"


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if module == "datetime" and name in _DATES:
            return getattr(datetime, name)
        raise pickle.UnpicklingError(f"not plain data: {module}.{name}")


def load(root: Path, name: str) -> Any:
    """The value last stored as `name` for `root`, or None (absent, foreign, damaged)."""
    try:
        with open(cache_path(root, name), "rb") as handle:
            info = os.fstat(handle.fileno())
            if info.st_uid != os.getuid() or info.st_mode & 0o022:
                return None
            version, stored_root, value = _PlainUnpickler(io.BytesIO(handle.read())).load()
    except Exception:  # absent or damaged: only a slower start
        return None
    if version != VERSION or stored_root != str(Path(root).resolve()):
        return None
    return value


def store(root: Path, name: str, value: Any) -> None:
    """Best effort: a cache that cannot be written only makes the next load slower."""
    path = cache_path(root, name)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        data = pickle.dumps((VERSION, str(Path(root).resolve()), value), protocol=5)
        atomic_write(path, data, 0o600, sync=False)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        pass


# -- the notes ------------------------------------------------------------------------------
# The notes are msgpack frames msgspec decodes into `Note`s (typed: a forged file yields plain
# values in Note's fields or nothing), not a pickle rebuilt note by note: a head (version,
# root, load time, frame count), then frames of FRAME notes, each after its length in 8
# bytes, so a load holds one frame's bytes at a time (the whole file's bytes at once added
# ~180 MB to the peak of a 100k-note load). The links cache is framed the same way.
NOTES_VERSION = 4  # 2: in frames; 3: links read on first use (`link_rule`); 4: `_text`
LINKS_VERSION = 1
FRAME = 4096

#: a links cache entry: a file's content hash, the rule its links were read by, the links
LinkEntry = tuple[str, LinkRule, tuple[RawLink, ...]]


class _Head(msgspec.Struct, array_like=True):
    version: int
    root: str
    started_ns: int
    frames: int


@functools.cache
def _decoders() -> tuple[
    msgspec.msgpack.Decoder[_Head],
    msgspec.msgpack.Decoder[list[Note]],
    msgspec.msgpack.Decoder[list[LinkEntry]],
]:
    return (
        msgspec.msgpack.Decoder(_Head),
        msgspec.msgpack.Decoder(list[Note]),
        msgspec.msgpack.Decoder(list[LinkEntry]),
    )


def notes_path(root: Path, name: str = "notes") -> Path:
    """The file holding the cached notes of `root` (`name`: see `read_notes`)."""
    return cache_path(root, name).with_suffix(".msgpack")


def _frame(handle: io.BufferedReader) -> bytes:
    size = int.from_bytes(handle.read(8), "big")
    data = handle.read(size)
    if len(data) != size:
        raise ValueError("truncated notes cache")
    return data


def _read_frames(path: Path, version: int, root: Path, decoder: Any) -> Iterator[Any]:
    """The head of a framed cache file of this user's, then each frame decoded; nothing
    when the file is another user's, or of another version or palace. Raises when damaged."""
    with open(path, "rb") as handle:
        info = os.fstat(handle.fileno())
        if info.st_uid != os.getuid() or info.st_mode & 0o022:
            return
        head = _decoders()[0].decode(_frame(handle))
        if head.version != version or head.root != str(Path(root).resolve()):
            return
        yield head
        for _ in range(head.frames):
            yield decoder.decode(_frame(handle))


def _write_frames(path: Path, head: _Head, items: list[Any]) -> None:
    """Write `items` as a framed cache file (best effort, as `store`); an item msgpack cannot
    hold is left out of its frame (`_encodes`, asked only of a frame that failed to encode)."""

    def frames() -> Iterator[bytes]:  # made as they are written: one frame in memory
        yield _framed(msgspec.msgpack.encode(head))
        for start in range(0, len(items), FRAME):
            chunk = items[start : start + FRAME]
            try:
                yield _framed(msgspec.msgpack.encode(chunk))
            except (TypeError, ValueError, OverflowError):
                yield _framed(msgspec.msgpack.encode([item for item in chunk if _encodes(item)]))

    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        atomic_write(path, frames(), 0o600, sync=False)
    except OSError:
        pass


def _frame_count(items: list[Any]) -> int:
    return len(range(0, len(items), FRAME))


def read_notes(root: Path, name: str = "notes") -> tuple[dict[str, Note], int]:
    """The cached notes of `root` and the time of the load that wrote them ({} and 0: none).
    `name` tells caches apart that hold notes read another way (another tool's layout)."""
    notes: dict[str, Note] = {}
    started_ns = 0
    try:
        for frame in _read_frames(notes_path(root, name), NOTES_VERSION, root, _decoders()[1]):
            if isinstance(frame, _Head):
                started_ns = frame.started_ns
                continue
            for note in frame:
                note.header = _shared(note.header)  # one copy of each key and short value
                note.lines = _shared_lines(note.lines)
                note._texts = None  # a cache holds text, never where to read it
                notes[note.rel] = note
    except Exception:  # absent or damaged: only a slower start
        return {}, 0
    return notes, started_ns


def write_notes(
    root: Path, notes: Mapping[str, Note], started_ns: int, name: str = "notes"
) -> None:
    """Best effort, as `store`. A note msgpack cannot hold (a header number beyond 64 bits)
    is left out: it is read again on the next load. Notes that let go of their text (a
    server's palace: `Note.let_go`) are not written: the next load that holds them does."""
    kept = list(notes.values())
    if not all(note.held for note in kept):
        return
    head = _Head(NOTES_VERSION, str(Path(root).resolve()), started_ns, _frame_count(kept))
    _write_frames(notes_path(root, name), head, kept)


def _framed(data: bytes) -> bytes:
    return len(data).to_bytes(8, "big") + data


def _encodes(item: Any) -> bool:
    try:
        msgspec.msgpack.encode(item)
    except (TypeError, ValueError, OverflowError):
        return False
    return True


def notes_cached(root: Path, name: str = "notes") -> bool:
    return notes_path(root, name).is_file()


# -- the links --------------------------------------------------------------------------------
def links_path(root: Path, name: str = "notes") -> Path:
    """The file holding the links of the notes cached as `name` (see `read_notes`)."""
    return cache_path(root, f"{name}-links").with_suffix(".msgpack")


def read_links(root: Path, name: str = "notes") -> dict[tuple[str, LinkRule], tuple[RawLink, ...]]:
    """The cached links of `root`'s notes by (content hash, link rule): a note's links are
    what its bytes and its layout's rule make them, so an entry never goes stale ({}: none)."""
    links: dict[tuple[str, LinkRule], tuple[RawLink, ...]] = {}
    try:
        for frame in _read_frames(links_path(root, name), LINKS_VERSION, root, _decoders()[2]):
            if not isinstance(frame, _Head):
                links.update(((sha, rule), found) for sha, rule, found in frame)
    except Exception:  # absent or damaged: the links are read from the notes again
        return {}
    return links


def write_links(root: Path, entries: list[LinkEntry], name: str = "notes") -> None:
    """Best effort, as `store`."""
    head = _Head(LINKS_VERSION, str(Path(root).resolve()), 0, _frame_count(entries))
    _write_frames(links_path(root, name), head, entries)
