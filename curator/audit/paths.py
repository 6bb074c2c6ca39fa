"""Check a note's `verify.paths` against its scope's project root, never leaving that root.

A pattern comes from a note, so it is untrusted: it is refused when absolute, when it climbs
out of the root with `..` (refused before anything is probed), and when what it names resolves
(realpath, through symlinks) to somewhere outside the root. Only then is existence checked.
"""

from __future__ import annotations

import glob
import os
import posixpath
from dataclasses import dataclass
from typing import Literal

PathStatus = Literal["ok", "missing", "escapes", "invalid"]

_GLOB_CHARS = frozenset("*?[")
#: a glob that matches more than this is only counted up to here (keeps a `**` cheap to report)
MAX_MATCHES = 1000


@dataclass(frozen=True)
class PathCheck:
    """One pattern's result; `detail` is a phrase for a report."""

    pattern: str
    status: PathStatus
    detail: str
    matches: int = 0


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def check_path(pattern: str, root: str) -> PathCheck:
    """Check one pattern (a path or a glob, posix separators) relative to `root`.

    `root` must be an absolute, already-resolved (realpath) directory.
    """
    if not isinstance(pattern, str) or not pattern.strip():
        return PathCheck(str(pattern), "invalid", "a path must be non-empty text")
    if "\0" in pattern:
        return PathCheck(pattern, "invalid", "a path must not contain NUL characters")
    if pattern.startswith(("/", "\\", "~")) or os.path.isabs(pattern):
        return PathCheck(
            pattern,
            "escapes",
            "absolute paths are not allowed (give a path relative to the scope root)",
        )
    lexical = posixpath.normpath(pattern)
    if lexical == ".." or lexical.startswith("../"):
        return PathCheck(pattern, "escapes", "path escapes the scope root")
    if _GLOB_CHARS.isdisjoint(pattern):
        full = os.path.join(root, lexical)
        real = os.path.realpath(full)
        if not _inside(real, root):
            return PathCheck(pattern, "escapes", "path escapes the scope root (through a symlink)")
        if os.path.lexists(full) and os.path.exists(real):
            return PathCheck(pattern, "ok", "exists", 1)
        return PathCheck(pattern, "missing", "does not exist")
    return _check_glob(pattern, root)


def _check_glob(pattern: str, root: str) -> PathCheck:
    found = 0
    for match in glob.iglob(pattern, root_dir=root, recursive=True):
        if posixpath.normpath(match).startswith("../"):
            return PathCheck(pattern, "escapes", "path escapes the scope root")
        real = os.path.realpath(os.path.join(root, match))
        if not _inside(real, root):
            return PathCheck(
                pattern, "escapes", f"path escapes the scope root (through a symlink at {match})"
            )
        if os.path.exists(real):
            found += 1
            if found >= MAX_MATCHES:
                break
    if found:
        return PathCheck(pattern, "ok", f"{found} match{'es' if found != 1 else ''}", found)
    return PathCheck(pattern, "missing", "no file matches")
