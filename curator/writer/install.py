"""Putting an action's files in place: checked paths, new contents staged in temp files under
``.curator/tmp/`` (git ignores it), then installed by rename.

Every new content is written (and fsynced) before the journal and before any file of the
palace changes, so a full disk refuses the action while the tree is still as it was; after
that only renames and unlinks happen, which need no space.
"""

from __future__ import annotations

import contextlib
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from curator.errors import WriterError
from curator.fsutil import fsync_dir, write_temp
from curator.writer.journal import Entry

__all__ = [
    "TMP_REL",
    "Temps",
    "UnsafePathError",
    "check_path_safe",
    "file_mode",
    "install_files",
]

TMP_REL = ".curator/tmp"  # a writer's temp files: git ignores .curator/, recovery sweeps it


class UnsafePathError(WriterError):
    def __init__(self, path: str, detail: str) -> None:
        super().__init__(f"refusing to touch this file: {detail}", path=path)


def check_path_safe(root: Path, real_root: Path, rel: str) -> None:
    path = root / rel
    # The deepest existing ancestor must resolve inside the palace.
    probe = path.parent
    while not probe.exists() and probe != root:
        probe = probe.parent
    try:
        probe.resolve().relative_to(real_root)
    except ValueError:
        detail = "its folder resolves outside the palace (symbolic link)"
        raise UnsafePathError(rel, detail) from None
    if path.is_symlink():
        raise UnsafePathError(rel, "it is a symbolic link")
    if path.exists() and not path.is_file():
        raise UnsafePathError(rel, "it is not a regular file")


def file_mode(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return 0o644


class Temps:
    """The plan's new contents in fsynced temp files in ``tmp_dir``, installed by rename once
    the journal is written. Whatever is not installed (a refused or failed action) is removed,
    with the folders made for it."""

    def __init__(
        self, root: Path, tmp_dir: Path, post: dict[str, bytes | None], modes: dict[str, int]
    ):
        self.root = root
        self.tmp_dir = tmp_dir
        self.jobs = [(p, data, modes[p]) for p, data in post.items() if data is not None]
        self.made: dict[str, Path] = {}
        self.new_dirs: list[Path] = []

    def write(self) -> None:
        self.tmp_dir.mkdir(parents=True, exist_ok=True)
        for rel, _data, _mode in self.jobs:
            missing = []
            folder = (self.root / rel).parent
            while not folder.exists():
                missing.append(folder)
                folder = folder.parent
            for folder in reversed(missing):
                folder.mkdir(exist_ok=True)
                self.new_dirs.append(folder)
        # the fsyncs overlap: one wait for the disk instead of one per file
        with ThreadPoolExecutor(max_workers=max(1, len(self.jobs))) as pool:
            futures = {
                rel: pool.submit(write_temp, self.tmp_dir, data, mode)
                for rel, data, mode in self.jobs
            }
            for rel, future in futures.items():
                with contextlib.suppress(BaseException):
                    self.made[rel] = future.result()  # every temp made is known, to discard
            for future in futures.values():
                future.result()  # raises what writing a temp file raised

    def install(self, rel: str) -> None:
        os.replace(self.made.pop(rel), self.root / rel)

    def discard(self) -> None:
        for tmp in self.made.values():
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        self.made.clear()
        for folder in reversed(self.new_dirs):
            with contextlib.suppress(OSError):
                folder.rmdir()  # only when empty: an installed file keeps its folder


def install_files(
    root: Path, entries: list[Entry], post: dict[str, bytes | None], temps: Temps
) -> None:
    """Writes first, deletes after: a moved note exists somewhere at every instant. Each
    folder is fsynced once, at the end (the journal covers a crash before that)."""
    for e in entries:
        if post[e.path] is not None:
            temps.install(e.path)
    for e in entries:
        if post[e.path] is None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(root / e.path)
    folders = {(root / e.path).parent for e in entries}
    with ThreadPoolExecutor(max_workers=len(folders) or 1) as pool:
        list(pool.map(fsync_dir, folders))
