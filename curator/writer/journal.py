"""The journal: what an action is about to do, written before it touches a file.

``.curator/journal/<id>.json`` (fsynced; its appearance is the journal's commit point) lists
every touched path with the hash of its content before and after the action; the folder
``.curator/journal/<id>/`` holds each pre-image, as a hard link to the file as it was (no
copy, no space: what a rollback needs is reserved before the action starts; a copy only where
the file system refuses links). Rolling back renames those pre-images into place, which needs
no free space either.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from curator.errors import WriterError
from curator.fsutil import atomic_write, install, remove
from curator.writer.plan import content_hash, normalize_rel

__all__ = ["JOURNAL_REL", "Entry", "Journal", "RecoveryError", "rollback_files"]

JOURNAL_REL = ".curator/journal"
JOURNAL_VERSION = 4  # 4: pre-images are hard links in <id>/


class RecoveryError(WriterError):
    """An unfinished action could be neither completed nor rolled back automatically."""


@dataclass
class Entry:
    path: str  # palace-relative
    before: str | None  # content hash, None: no file
    after: str | None
    mode: int
    backup: str | None = None  # name of the pre-image in <id>/ (None when there was no file)


@dataclass
class Journal:
    id: str
    folder: Path  # .curator/journal/
    action: str
    message: str
    head_before: str | None
    entries: list[Entry]
    commit_paths: list[str]  # palace-relative paths git knows about after the action

    @classmethod
    def new(cls, root: Path, action: str, message: str, head: str | None) -> Journal:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        jid = f"{stamp}-{os.getpid()}-{secrets.token_hex(3)}"
        return cls(jid, root / JOURNAL_REL, action, message, head, [], [])

    @property
    def json_path(self) -> Path:
        return self.folder / f"{self.id}.json"

    @property
    def backups(self) -> Path:
        return self.folder / self.id

    def to_json(self) -> dict[str, Any]:
        return {
            "version": JOURNAL_VERSION,
            "id": self.id,
            "pid": os.getpid(),
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "action": self.action,
            "message": self.message,
            "head_before": self.head_before,
            "entries": [e.__dict__ for e in self.entries],
            "commit_paths": self.commit_paths,
        }

    @classmethod
    def load(cls, json_path: Path) -> Journal:
        try:
            raw = json.loads(json_path.read_text("utf-8"))
            if not isinstance(raw, dict) or raw.get("version") != JOURNAL_VERSION:
                raise RecoveryError(
                    f"{json_path}: not a journal of version {JOURNAL_VERSION}, which this "
                    f"curator reads; finish it with the curator that wrote it"
                )
            fields = set(Entry.__dataclass_fields__)
            entries = [Entry(**{k: v for k, v in e.items() if k in fields}) for e in raw["entries"]]
            for e in entries:
                _check_entry(e)
            return cls(
                id=raw["id"],
                folder=json_path.parent,
                action=raw["action"],
                message=raw["message"],
                head_before=raw["head_before"],
                entries=entries,
                commit_paths=[normalize_rel(p) for p in raw["commit_paths"]],
            )
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise RecoveryError(f"{json_path}: unreadable journal ({exc})") from None

    def write(self, root: Path) -> None:
        """Reserve every pre-image, then write the json: from then on the action can be undone
        from the journal alone."""
        self.backups.mkdir(parents=True)
        for i, e in enumerate(self.entries):
            if e.before is not None:
                e.backup = f"old-{i}"
                _keep(root / e.path, self.backups / e.backup)
        payload = json.dumps(self.to_json(), indent=1).encode("utf-8")
        atomic_write(self.json_path, payload, 0o600)

    def remove(self) -> None:
        # the json first: without it the journal is finished. Not fsynced: should the removal
        # be lost in a power cut, recovery finds the commit made and removes it again.
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.json_path)
        shutil.rmtree(self.backups, ignore_errors=True)


def _check_entry(e: Entry) -> None:
    """Refuse an entry whose values are not what the writer writes (a damaged journal)."""
    optional = (e.before, e.after, e.backup)
    if not all(v is None or isinstance(v, str) for v in optional) or not isinstance(e.mode, int):
        raise TypeError(f"bad entry for {e.path!r}")
    normalize_rel(e.path)
    if e.backup is not None and ("/" in e.backup or e.backup in ("", ".", "..")):
        raise ValueError(f"bad pre-image name {e.backup!r}")


def _keep(path: Path, backup: Path) -> None:
    """``backup`` names the file now at ``path``: a hard link, or a copy where links fail."""
    try:
        os.link(path, backup, follow_symlinks=False)
    except OSError:
        shutil.copy2(path, backup)


def hash_of(path: Path) -> str | None:
    try:
        return content_hash(path.read_bytes())
    except (FileNotFoundError, NotADirectoryError):
        return None


def rollback_files(root: Path, journal: Journal) -> list[str]:
    """Put every touched path back to its pre-image. Returns the paths that changed.

    Pre-images are renamed back first, new files removed after: a moved note always exists
    somewhere."""
    restored: list[str] = []
    for e in journal.entries:
        path = root / e.path
        if e.before is None or hash_of(path) == e.before:
            continue
        backup = journal.backups / (e.backup or "")
        if e.backup is None or hash_of(backup) != e.before:
            raise RecoveryError(
                f"the copy of {e.path} from before the {journal.action} is missing or changed "
                f"in {journal.backups}; the journal stays in {journal.json_path}"
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        install(backup, path)
        restored.append(e.path)
    for e in journal.entries:
        if e.before is None and (root / e.path).exists():
            remove(root / e.path)
            restored.append(e.path)
    return restored
