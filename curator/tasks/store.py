"""tasks/<slug>/0001.md, 0002.md, ...: numbered revisions, each created once and never rewritten.

A revision is written to a fsynced temp file under .curator/ and then hard-linked to its
final name: `link` fails when the name exists, so two writers never produce the same number
(the loser learns who won), and a process killed at any point leaves either no new revision or
the complete one, never a partial file. The exclusive create is the compare-and-swap every
ownership rule rests on: a writer names the revision it read, and only one writer can add the
revision after it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

from curator.fsutil import TMP_PREFIX, atomic_write, fsync_dir, write_temp
from curator.model.discovery import STATE_DIR, TASKS_DIR, ensure_state_dir, state_folder
from curator.tasks.checkpoint import Checkpoint, Header, parse, read_header, split
from curator.tasks.errors import BadCheckpoint, TaskError, TaskNotFound

REQUESTS_NAME = "requests.md"
TEMP_DIR = "tasks-tmp"
SLUG = re.compile(r"[a-z0-9][a-z0-9-]{0,79}")
_REVISION = re.compile(r"(\d{4,9})\.md")
_HEAD_BYTES = 4096  # a header is a dozen short lines; the rest of the file is not read


def rev_name(number: int) -> str:
    return f"{number:04d}.md"


def check_slug(slug: str) -> str:
    if not SLUG.fullmatch(slug or ""):
        raise TaskError(
            f"bad task name {slug!r}: use lowercase letters, digits and '-' (at most 80)"
        )
    return slug


def sweep_temps(folder: Path, older_than: float = 3600.0) -> None:
    """Remove temp files a killed process left behind (a live one keeps its temp for
    milliseconds)."""
    limit = time.time() - older_than
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            with contextlib.suppress(OSError):
                if entry.name.startswith(TMP_PREFIX) and entry.stat().st_mtime < limit:
                    os.unlink(entry.path)


class TaskStore:
    """The tasks/ folder of one palace."""

    def __init__(self, palace_root: Path | str) -> None:
        self.root = Path(palace_root)
        self.dir = self.root / TASKS_DIR

    # -- paths -----------------------------------------------------------------------------
    def task_dir(self, slug: str) -> Path:
        """tasks/<slug>/, refused when it (or tasks/) is a symbolic link: see `state_folder`."""
        return state_folder(self.root, f"{TASKS_DIR}/{check_slug(slug)}")

    def rel(self, slug: str, name: str) -> str:
        return f"{TASKS_DIR}/{slug}/{name}"

    def revision_path(self, slug: str, number: int) -> Path:
        return self.task_dir(slug) / rev_name(number)

    def temp_dir(self) -> Path:
        """.curator/tasks-tmp/: the store's own temp folder (the writer empties .curator/tmp/
        under its lock, which the store does not take)."""
        ensure_state_dir(self.root)
        folder = state_folder(self.root, f"{STATE_DIR}/{TEMP_DIR}")
        folder.mkdir(exist_ok=True)
        return folder

    # -- reading ---------------------------------------------------------------------------
    def slugs(self) -> list[str]:
        try:
            with os.scandir(state_folder(self.root, TASKS_DIR)) as entries:
                return sorted(e.name for e in entries if e.is_dir() and SLUG.fullmatch(e.name))
        except FileNotFoundError:
            return []

    def exists(self, slug: str) -> bool:
        return self.newest(slug) > 0

    def revisions(self, slug: str) -> list[int]:
        try:
            names = os.listdir(self.task_dir(slug))
        except (FileNotFoundError, NotADirectoryError):
            return []
        return sorted(int(m.group(1)) for n in names if (m := _REVISION.fullmatch(n)))

    def newest(self, slug: str) -> int:
        numbers = self.revisions(slug)
        return numbers[-1] if numbers else 0

    def _need(self, slug: str, number: int | None) -> int:
        n = self.newest(slug) if number is None else number
        if n <= 0 or not self.revision_path(slug, n).is_file():
            what = f"task {slug!r}" if number is None else f"revision {number} of task {slug!r}"
            raise TaskNotFound(f"no {what} (see `curator task list`)")
        return n

    def read_bytes(self, slug: str, number: int | None = None) -> bytes:
        return self.revision_path(slug, self._need(slug, number)).read_bytes()

    def read(self, slug: str, number: int | None = None) -> Checkpoint:
        n = self._need(slug, number)
        try:
            return parse(self.revision_path(slug, n).read_bytes())
        except BadCheckpoint as exc:
            raise BadCheckpoint(exc.message, path=self.rel(slug, rev_name(n))) from None

    def header(self, slug: str, number: int | None = None) -> Header:
        """The header of a revision (the newest by default), reading only the file's start.

        Plain string paths and one open: the task list reads a thousand of these."""
        n = self.newest(slug) if number is None else number
        path = os.path.join(self.task_dir(slug), rev_name(n))
        try:
            with open(path, "rb") as handle:
                data = handle.read(_HEAD_BYTES)
                if b"\n---\n" not in data[3:]:
                    data += handle.read()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            what = f"task {slug!r}" if number is None else f"revision {number} of task {slug!r}"
            raise TaskNotFound(f"no {what} (see `curator task list`)") from None
        try:
            return read_header(split(data)[0])
        except BadCheckpoint as exc:
            raise BadCheckpoint(exc.message, path=self.rel(slug, rev_name(n))) from None

    def headers(self) -> Iterator[Header | TaskError]:
        """The newest header of every task (a task whose header is broken yields its error)."""
        for slug in self.slugs():
            try:
                yield self.header(slug)
            except TaskNotFound:
                continue  # an empty folder: a `new` in progress or a leftover
            except TaskError as exc:
                yield exc

    def requests_path(self, slug: str) -> Path:
        return self.task_dir(slug) / REQUESTS_NAME

    # -- writing ---------------------------------------------------------------------------
    def create(self, slug: str, number: int, data: bytes) -> Path:
        """Create revision `number` with `data`, all or nothing; FileExistsError when another
        writer created it first. Never replaces a file."""
        folder = self.task_dir(slug)
        folder.mkdir(parents=True, exist_ok=True)
        final = folder / rev_name(number)
        temps = self.temp_dir()
        tmp = write_temp(temps, data)
        try:
            os.link(tmp, final)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        fsync_dir(folder)
        sweep_temps(temps)
        return final

    # -- what each owner last read (the stale-view rule of the CLI) ------------------------
    def _seen_path(self, owner: str, slug: str) -> Path:
        digest = hashlib.sha256(owner.encode("utf-8")).hexdigest()[:20]
        folder = state_folder(self.root, f"{STATE_DIR}/tasks-seen/{digest}")
        return folder / check_slug(slug)

    def mark_seen(self, owner: str, slug: str, number: int) -> None:
        path = self._seen_path(owner, slug)
        try:  # no fsync: a record lost to a power cut only means passing --revision once
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, f"{number}\n".encode(), sync=False)
        except OSError:
            pass  # only a convenience: --revision says the same explicitly

    def seen(self, owner: str, slug: str) -> int | None:
        try:
            return int(self._seen_path(owner, slug).read_text().strip())
        except (OSError, ValueError):
            return None
