"""Moving a branch and its work tree to the commit a sync made, journaled like an action.

``.curator/sync.json`` (fsynced) names the branch, the commit it was on and the one it moves
to, before anything changes. The move itself is git's own commands: ``update-ref`` with the old
value (refused if the branch moved meanwhile), then ``checkout <new> -- <paths>`` and
``rm`` for the files the step changed. A kill anywhere leaves the journal; the next writer
(``curator recover``, any action, the next sync) finishes the move, which only needs objects
git already has, so a sync is never half there.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from curator.fsutil import atomic_write
from curator.writer.git import Repo, tree_changes
from curator.writer.journal import RecoveryError

__all__ = ["SYNC_JOURNAL_REL", "Move", "finish_move", "move_branch"]

SYNC_JOURNAL_REL = ".curator/sync.json"


@dataclass(frozen=True)
class Move:
    branch: str  # refs/heads/<name>
    old: str
    new: str

    def to_json(self) -> bytes:
        return json.dumps({"branch": self.branch, "old": self.old, "new": self.new}).encode()


def _journal(root: Path) -> Path:
    return root / SYNC_JOURNAL_REL


def move_branch(root: Path, repo: Repo, move: Move) -> list[str]:
    """Move ``move.branch`` from ``old`` to ``new`` with the work tree; the repo paths that
    changed. The caller checked that those paths hold no uncommitted work."""
    atomic_write(_journal(root), move.to_json(), 0o600)
    paths = _apply(repo, move)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(_journal(root))
    return paths


def _apply(repo: Repo, move: Move) -> list[str]:
    now = repo.git("rev-parse", "-q", "--verify", move.branch, check=False).stdout.decode().strip()
    if now == move.old:
        repo.git("update-ref", "-m", "curator sync", move.branch, move.new, move.old)
    elif now != move.new:
        raise RecoveryError(
            f"an interrupted sync was moving {move.branch} from {move.old[:10]} to "
            f"{move.new[:10]}, but it is at {now[:10] or 'nothing'} now; check `git log`, then "
            f"remove {SYNC_JOURNAL_REL}"
        )
    changes = tree_changes(repo, move.old, move.new)
    present = [ch.path for ch in changes if ch.new_mode != "000000"]
    gone = [ch.path for ch in changes if ch.new_mode == "000000"]
    if present:
        repo.git(
            "checkout",
            move.new,
            "--pathspec-from-file=-",
            "--pathspec-file-nul",
            input=_nul(present),
        )
    if gone:
        repo.git(
            "rm",
            "-q",
            "-f",
            "--ignore-unmatch",
            "--pathspec-from-file=-",
            "--pathspec-file-nul",
            input=_nul(gone),
        )
    return [ch.path for ch in changes]


def _nul(paths: list[str]) -> bytes:
    return b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in paths)


def finish_move(root: Path, repo: Repo) -> str | None:
    """Finish a sync's move a kill interrupted; a sentence saying so, or None when none was."""
    path = _journal(root)
    try:
        raw = json.loads(path.read_bytes())
        move = Move(str(raw["branch"]), str(raw["old"]), str(raw["new"]))
    except FileNotFoundError:
        return None
    except (ValueError, KeyError, TypeError) as exc:
        raise RecoveryError(f"{path}: unreadable sync journal ({exc})") from None
    _apply(repo, move)
    path.unlink()
    return (
        f"An interrupted sync was finished: {move.branch.removeprefix('refs/heads/')} is at "
        f"{move.new[:10]} with its files."
    )
