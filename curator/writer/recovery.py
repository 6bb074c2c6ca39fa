"""Finish or roll back what a killed writer left: the journal's other half.

A journal whose files all have their post-images is completed (committed, or found committed
already); otherwise every file goes back to its pre-image. Either way git's index is brought
in line with HEAD for the journal's paths (a kill inside ``git commit``, between the branch
moving and the index being replaced, leaves an index that reverts the action), and the
writer's temp files (``.curator/tmp/``) are removed.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from curator.errors import WriterError
from curator.fsutil import TMP_PREFIX
from curator.writer.git import Repo, discover_with_head
from curator.writer.gitsteps import (
    check_branch,
    check_git_state,
    commit_only,
    reset_index,
    status,
)
from curator.writer.install import TMP_REL
from curator.writer.journal import JOURNAL_REL, Journal, RecoveryError, hash_of, rollback_files
from curator.writer.lock import WriterLock
from curator.writer.syncmove import finish_move

__all__ = ["TMP_REL", "RecoveryReport", "recover", "recover_locked"]


@dataclass(frozen=True)
class RecoveryReport:
    """What :func:`recover` did with an unfinished action, as a sentence for a person."""

    outcome: Literal["completed", "rolled-back", "already-committed"]
    action: str
    subject: str
    paths: tuple[str, ...]
    sha: str | None
    sentence: str

    def __str__(self) -> str:
        return self.sentence


def recover(palace_root: Path, *, lock_timeout: float = 10.0) -> RecoveryReport | None:
    """Finish or roll back an action a killed writer left unfinished; None when there was none."""
    root = Path(palace_root).absolute()
    with WriterLock(root, lock_timeout):
        repo, _ = discover_with_head(root)
        return recover_locked(root, repo)


def _sweep(root: Path) -> None:
    """Temp files of a writer killed before (or while) it wrote its journal: no live writer
    makes them without the lock, which the caller holds."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(root / TMP_REL):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
    jdir = root / JOURNAL_REL
    if not jdir.is_dir():
        return
    for leftover in jdir.iterdir():
        if leftover.is_dir() and not (jdir / f"{leftover.name}.json").exists():
            shutil.rmtree(leftover, ignore_errors=True)  # a journal killed before its json
        elif leftover.name.startswith(TMP_PREFIX):
            with contextlib.suppress(OSError):
                leftover.unlink()


def recover_locked(root: Path, repo: Repo) -> RecoveryReport | None:
    """:func:`recover` for a caller that holds the writer lock already."""
    jdir = root / JOURNAL_REL
    journals = sorted(jdir.glob("*.json")) if jdir.is_dir() else []
    reports: list[RecoveryReport] = []
    if journals:  # finishing an action commits or resets the index: not into a rebase
        check_git_state(repo)
        check_branch(repo, status(repo, [])[0])
    synced = finish_move(root, repo)
    if synced is not None:
        reports.append(RecoveryReport("completed", "sync", "sync", (), repo.head(), synced))
    for json_path in journals:
        try:
            reports.append(_recover_one(root, repo, Journal.load(json_path)))
        except OSError as exc:  # the disk refused: the journal stays for the next try
            raise RecoveryError(
                f"an interrupted action could not be finished: {exc.strerror or exc}"
                f"{f' ({exc.filename})' if exc.filename else ''}; the journal stays in "
                f"{json_path}, try `curator recover` again once that is fixed"
            ) from None
    _sweep(root)
    if not reports:
        return None
    last = reports[-1]
    return RecoveryReport(
        last.outcome,
        last.action,
        last.subject,
        tuple(p for r in reports for p in r.paths),
        last.sha,
        " ".join(r.sentence for r in reports),
    )


def _recover_one(root: Path, repo: Repo, journal: Journal) -> RecoveryReport:
    subject = journal.message.split("\n", 1)[0]
    paths = tuple(e.path for e in journal.entries)
    current = {e.path: hash_of(root / e.path) for e in journal.entries}
    for e in journal.entries:
        if current[e.path] not in (e.before, e.after):
            raise RecoveryError(
                f"an interrupted {journal.action} ({subject!r}) left {e.path} in a state that "
                f"is neither before nor after the action (changed by hand since?). Compare it "
                f"with the copies in {journal.backups}, fix it, then remove {journal.json_path}."
            )
    head = repo.head()
    if all(current[e.path] == e.after for e in journal.entries):
        if head and head != journal.head_before and _is_journal_commit(repo, head, journal):
            outcome: Literal["completed", "rolled-back", "already-committed"] = "already-committed"
            sha: str | None = head
            said = f"had already been committed as {head[:10]}; curator removed its journal."
        else:
            sha = _complete(repo, journal, subject)
            outcome = "completed"
            said = f"had written all its files; curator completed it and committed {sha[:10]}."
        reset_index(repo, journal.commit_paths, sha)
    else:
        restored = _rollback(root, repo, journal, head)
        outcome, sha = "rolled-back", None
        what = (
            f"{len(restored)} file(s) put back as they were ({', '.join(restored)})"
            if restored
            else "no file had been changed yet"
        )
        said = f"was rolled back: {what}; nothing was committed."
    journal.remove()
    sentence = f"An interrupted {journal.action} ({subject}) {said}"
    return RecoveryReport(outcome, journal.action, subject, paths, sha, sentence)


def _rollback(root: Path, repo: Repo, journal: Journal, head: str | None) -> list[str]:
    restored = rollback_files(root, journal)
    reset_index(repo, journal.commit_paths, head)
    return restored


def _complete(repo: Repo, journal: Journal, subject: str) -> str:
    try:
        return commit_only(repo, journal.commit_paths, journal.message)
    except WriterError as exc:
        raise RecoveryError(
            f"an interrupted {journal.action} ({subject}) had written all its files but git "
            f"refused to commit them: {exc}. The journal stays in {journal.json_path}."
        ) from exc


def _is_journal_commit(repo: Repo, sha: str, journal: Journal) -> bool:
    proc = repo.git("log", "-1", "--format=%P%x00%B", sha, check=False)
    if proc.returncode != 0:
        return False
    parents, _, body = proc.stdout.decode("utf-8", "replace").partition("\0")
    return parents.split() == ([journal.head_before] if journal.head_before else []) and (
        body.strip() == journal.message.strip()
    )
