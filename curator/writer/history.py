"""What curator did, read back from git, and how to undo one action.

Every curator commit carries trailers (``Curator-Action``, ``Curator-Note``, ``Curator-Reason``,
and for some actions ``Curator-Restore`` / ``Curator-Previous`` / ``Curator-Undo``).
:func:`history` lists those commits; :mod:`curator.writer.actions.undo` reverts one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from curator.writer.git import Repo, discover_with_head
from curator.writer.plan import PlanError, WriterError, decode_restore

__all__ = ["HistoryEntry", "UndoError", "by_author", "entry_at", "history", "log"]

_FIELDS = "%H%x1f%P%x1f%an <%ae>%x1f%aI%x1f%s%x1f%(trailers:only,unfold)"


NOT_UNDOABLE = ("init", "settle")  # init: its undo would take the palace apart; settle:
# a record of an action given up in a sync (no change of its own; its text is in the message)
#: task checkpoint actions: their revisions are never rewritten or removed, so no undo
NOT_UNDOABLE_PREFIX = "task-"


class UndoError(WriterError):
    """The action cannot be undone (named files changed later, not a curator commit, ...)."""


@dataclass(frozen=True)
class HistoryEntry:
    sha: str
    action: str
    notes: tuple[str, ...]
    reason: str
    author: str
    date: datetime
    subject: str
    undoes: str | None = None
    restores: tuple[tuple[str, str], ...] = ()
    previous: tuple[tuple[str, str], ...] = ()

    @property
    def when(self) -> str:
        """The commit's time as `curator history` and the app's History show it."""
        return f"{self.date:%Y-%m-%d %H:%M}"

    @property
    def undoable(self) -> bool:
        """Whether `undo` takes this action back: not the commit `curator init` made, nor a
        task checkpoint's (a revision, once written, stays)."""
        return self.action not in NOT_UNDOABLE and not self.action.startswith(NOT_UNDOABLE_PREFIX)

    parents: tuple[str, ...] = ()
    trailers: tuple[tuple[str, str], ...] = ()


def _pairs(values: list[str]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for value in values:
        try:
            out.append(decode_restore(value))
        except PlanError:
            continue
    return out


def _parse_record(record: str) -> HistoryEntry | None:
    parts = record.split("\x1f")
    if len(parts) < 6:
        return None
    sha, parents, author, date, subject, trailer_text = parts[:6]
    trailers: list[tuple[str, str]] = []
    for line in trailer_text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip():
            trailers.append((key.strip(), value.strip()))
    values: dict[str, list[str]] = {}
    for key, value in trailers:
        values.setdefault(key.lower(), []).append(value)
    actions = values.get("curator-action")
    if not actions:
        return None
    restores = _pairs(values.get("curator-restore", []))
    undoes = values.get("curator-undo", [None])[0]
    return HistoryEntry(
        sha=sha.strip(),
        action=actions[0],
        notes=tuple(values.get("curator-note", [])),
        reason=(values.get("curator-reason") or [""])[0],
        author=author,
        date=datetime.fromisoformat(date),
        subject=subject,
        undoes=undoes,
        restores=tuple(restores),
        previous=tuple(_pairs(values.get("curator-previous", []))),
        parents=tuple(parents.split()),
        trailers=tuple(trailers),
    )


def log(repo: Repo, *args: str) -> list[HistoryEntry]:
    # bench_gitpython "log N commits with trailers": GitPython's Commit.trailers_list runs
    # `git interpret-trailers` once per commit (x100 and more); one `git log` parses them all
    proc = repo.git(
        "log", "--no-show-signature", "--grep=^Curator-Action:", f"--format=%x1e{_FIELDS}", *args
    )
    out: list[HistoryEntry] = []
    for record in proc.stdout.decode("utf-8", "replace").split("\x1e"):
        entry = _parse_record(record.strip("\n"))
        if entry is not None:
            out.append(entry)
    return out


def by_author(entry: HistoryEntry, who: str) -> bool:
    """Whether `who` (any part of a name or e-mail, case aside) names the entry's author: the
    one reviewer filter of the CLI and the app."""
    return who.casefold() in entry.author.casefold()


def history(
    palace_root: Path, limit: int | None = None, *, author: str | None = None
) -> list[HistoryEntry]:
    """Curator actions reachable from HEAD, newest first (all of them, or the last ``limit``);
    with ``author``, only that reviewer's (:func:`by_author`; git's author, so on a team's
    palace each clone's reviewer).

    The whole repository's history is read: a repository is expected to hold one palace.
    """
    repo, head = discover_with_head(Path(palace_root))
    if head is None:
        return []
    if author:
        found = [e for e in log(repo, head) if by_author(e, author)]
        return found if limit is None else found[: int(limit)]
    args = [f"--max-count={int(limit)}"] if limit is not None else []
    return log(repo, *args, head)


def entry_at(repo: Repo, sha: str) -> HistoryEntry | None:
    # bench_gitpython "one commit's trailers": no clear gain (0.8-1.1x across runs), and
    # Commit.trailers_list runs a git process itself (interpret-trailers); one parser for both
    found = log(repo, "--max-count=1", sha)
    return found[0] if found and found[0].sha == sha else None


def changed_files(palace_root: Path, sha: str) -> list[str]:
    """The files one commit changed: palace-relative, or repo-relative for a file outside the
    palace; [] when git does not know the commit."""
    repo, _head = discover_with_head(Path(palace_root))
    # bench_gitpython "changed files of a commit": no clear gain (0.7-1.3x across runs), and
    # Commit.stats runs `git diff-tree --numstat` itself
    proc = repo.git("show", "--name-only", "--format=", "--no-renames", sha, "--", check=False)
    if proc.returncode != 0:
        return []
    paths = [line for line in proc.stdout.decode("utf-8", "replace").splitlines() if line.strip()]
    return [repo.to_palace(p) or p for p in paths]
