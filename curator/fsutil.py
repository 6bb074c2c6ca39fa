"""The one way curator writes a file: whole or not at all, and a note's bytes as they were.

A file is written to a fresh temp file (``O_EXCL``, fsynced), renamed over its target with
``os.replace`` and the folder fsynced: a reader sees the old file or the new one, never half,
and a crash leaves at most a temp file. The temp file may live in another folder of the same
file system (the writer keeps its own under ``.curator/tmp/``, which git ignores, so a killed
writer never leaves draft text where ``git add -A`` would pick it up).

A note keeps the byte order mark it was read with: :func:`note_bytes` is the only place that
puts it back.

A file curator does not own (settings.json, CLAUDE.md, AGENTS.md, MEMORY.md, .gitignore, an
adopted folder's palace.toml) is written with :func:`write_user_file`: through a symbolic link
to the file it points at, so the link the user made stays a link and its target gets the
change, with the target's mode kept.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterable
from pathlib import Path

from curator.errors import CuratorError

__all__ = [
    "BOM",
    "TMP_PREFIX",
    "UserFileError",
    "atomic_write",
    "fsync_dir",
    "install",
    "note_bytes",
    "read_or_none",
    "remove",
    "remove_user_file",
    "split_bom",
    "user_target",
    "write_temp",
    "write_user_file",
]

BOM = b"\xef\xbb\xbf"
TMP_PREFIX = ".curator-tmp-"


def fsync_dir(path: Path) -> None:
    """Make a rename or unlink in ``path`` durable."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_temp(
    folder: Path, data: bytes | Iterable[bytes], mode: int = 0o644, *, sync: bool = True
) -> Path:
    """``data`` (bytes, or chunks of them made as they are written: a large derived file
    never whole in memory) in a fresh file in ``folder`` (fsynced unless ``sync`` is False:
    derived data a crash only makes slower to read); removed again if writing it fails."""
    tmp = Path(folder) / f"{TMP_PREFIX}{secrets.token_hex(8)}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    chunks = [data] if isinstance(data, bytes) else data
    try:
        try:
            for chunk in chunks:
                view = memoryview(chunk)
                while view:
                    view = view[os.write(fd, view) :]
            os.fchmod(fd, mode & 0o7777)
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


def install(tmp: Path, path: Path, *, sync: bool = True) -> None:
    """Rename ``tmp`` over ``path`` and fsync the folder (``tmp`` is removed if that fails)."""
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if sync:
        fsync_dir(path.parent)


def atomic_write(
    path: Path,
    data: bytes | Iterable[bytes],
    mode: int = 0o644,
    *,
    temp_dir: Path | None = None,
    sync: bool = True,
) -> None:
    """Write ``data`` to ``path`` whole or not at all (temp file in ``temp_dir``, which must be
    on the same file system, or next to ``path``). ``sync=False`` for derived data (caches,
    index bookkeeping): whole or not at all still, without waiting for the disk."""
    path = Path(path)
    install(write_temp(temp_dir or path.parent, data, mode, sync=sync), path, sync=sync)


def remove(path: Path) -> None:
    """Delete ``path`` (nothing if it is gone already) and fsync its folder."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return
    fsync_dir(path.parent)


def read_or_none(path: Path) -> bytes | None:
    """The file's bytes, or None when there is no file there."""
    try:
        return Path(path).read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None


def split_bom(data: bytes) -> tuple[bool, bytes]:
    """(whether ``data`` starts with a UTF-8 byte order mark, the bytes after it)."""
    if data.startswith(BOM):
        return True, data[len(BOM) :]
    return False, data


def note_bytes(text: str, bom: bool) -> bytes:
    """A note's text as bytes, with the byte order mark it was read with (newlines as given:
    curator never rewrites a file's line endings)."""
    data = text.encode("utf-8")
    return BOM + data if bom else data


class UserFileError(CuratorError):
    """A file of the user's that curator will not write (a link loop, a folder)."""


def user_target(path: Path) -> Path:
    """The file that writing ``path`` changes: ``path`` itself, or the file its symbolic
    link (or chain of links) points at, which need not exist yet."""
    path = Path(path)
    if not path.is_symlink():
        if path.is_dir():
            raise UserFileError("refusing to write it: it is a folder", path=str(path))
        return path
    target = Path(os.path.realpath(path))
    if target.is_symlink():
        raise UserFileError("refusing to write it: its symbolic links form a loop", path=str(path))
    if target.is_dir():
        raise UserFileError(
            f"refusing to write it: it links to a folder ({target})", path=str(path)
        )
    return target


def write_user_file(path: Path, data: bytes) -> Path:
    """Write a file that belongs to the user whole or not at all, through a symbolic link
    (never over it), keeping the file's mode; the folders it needs are made. Returns the
    file written."""
    target = user_target(path)
    try:
        mode = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o644
        target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(target, data, mode)
    return target


def remove_user_file(path: Path) -> None:
    """Delete a file of the user's that curator created; through a link only its target goes
    (the link the user made stays, dangling as it was before)."""
    remove(user_target(path))
