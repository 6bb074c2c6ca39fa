"""Moving a branch and its work tree to the commit a sync made, journaled like an action.

Everything that needs disk space is written first, while nothing the user sees has changed:
the pulled files' new contents in temp files under ``.curator/tmp/`` (as an action stages
them, :class:`curator.writer.install.Temps`), the next git index in a file of its own, and
``.curator/sync.json`` (fsynced: the branch, the commit it is on and the one it moves to). A
full disk at any of those steps removes what was staged and leaves HEAD, the index and the
tree exactly as they were. Then ``update-ref`` with the old value (refused if the branch moved
meanwhile) is the one step that decides; after it only renames and unlinks happen, which need
no space. A kill anywhere leaves the journal; the next writer (``curator recover``, any action,
the next sync) finishes the move with git's own ``checkout``, which only needs objects git
already has, so a sync is never half there.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from curator.errors import WriterError
from curator.fsutil import atomic_write
from curator.model.discovery import ensure_state_dir
from curator.writer.git import NULL_OID, Repo, TreeChange, read_blobs, tree_changes
from curator.writer.install import TMP_REL, Temps
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
    changed. The caller checked that those paths hold no uncommitted work. Raises WriterError
    with nothing changed when the disk has no room for the move."""
    changes = tree_changes(repo, move.old, move.new)
    staged = _Staged(root, repo, changes)
    try:
        try:
            staged.write()
            atomic_write(_journal(root), move.to_json(), 0o600)
            repo.git("update-ref", "-m", "curator sync", move.branch, move.new, move.old)
        except (OSError, WriterError) as exc:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(_journal(root))
            raise WriterError(
                f"sync could not move {move.branch.removeprefix('refs/heads/')} to "
                f"{move.new[:10]}: {exc}; nothing was changed (free some disk space and sync "
                f"again)"
            ) from None
        staged.install()
    finally:
        staged.discard()
    with contextlib.suppress(FileNotFoundError):
        os.unlink(_journal(root))
    return [ch.path for ch in changes]


class _Staged:
    """A move's new files and next git index, written before anything visible changes."""

    def __init__(self, root: Path, repo: Repo, changes: list[TreeChange]) -> None:
        self.repo = repo
        self.changes = changes
        self.files = [ch for ch in changes if ch.new_mode in ("100644", "100755")]
        self.links = [ch for ch in changes if ch.new_mode == "120000"]
        self.temps: Temps | None = None
        self.tmp_dir = root / TMP_REL
        self.root = root
        git_path = repo.git("rev-parse", "--git-path", "index").stdout.decode().strip()
        self.index = repo.top / git_path
        self.next_index = self.index.with_name("curator-sync-next.index")
        self.link_temps: dict[str, Path] = {}

    def write(self) -> None:
        ensure_state_dir(self.root)
        data = read_blobs(self.repo, sorted({ch.new for ch in (*self.files, *self.links)}))
        post: dict[str, bytes | None] = {ch.path: data[ch.new] for ch in self.files}
        modes = {ch.path: 0o755 if ch.new_mode == "100755" else 0o644 for ch in self.files}
        self.temps = Temps(self.repo.top, self.tmp_dir, post, modes)
        self.temps.write()
        for ch in self.links:
            tmp = self.tmp_dir / f"sync-link-{len(self.link_temps)}"
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            os.symlink(os.fsdecode(data[ch.new]), tmp)
            self.link_temps[ch.path] = tmp
        if self.index.exists():
            shutil.copyfile(self.index, self.next_index)
        else:
            self.next_index.unlink(missing_ok=True)
        lines = [
            f"0 {NULL_OID}\t{ch.path}" if ch.new_mode == "000000" else
            f"{ch.new_mode} {ch.new}\t{ch.path}"
            for ch in self.changes
        ]  # fmt: skip
        info = "".join(line + "\0" for line in lines).encode("utf-8", "surrogateescape")
        env = {"GIT_INDEX_FILE": str(self.next_index)}
        self.repo.git("update-index", "-z", "--index-info", input=info, env=env)

    def install(self) -> None:
        """Past the point of no return: renames and unlinks only."""
        os.replace(self.next_index, self.index)
        top = self.repo.top
        assert self.temps is not None
        for ch in self.files:
            self.temps.install(ch.path)
        for rel, tmp in self.link_temps.items():
            os.replace(tmp, top / rel)
        self.link_temps.clear()
        for ch in self.changes:
            if ch.new_mode != "000000":
                continue
            with contextlib.suppress(FileNotFoundError):
                os.unlink(top / ch.path)
            folder = (top / ch.path).parent
            while folder != top:  # as git rm does: a folder left empty goes too
                try:
                    folder.rmdir()
                except OSError:
                    break
                folder = folder.parent

    def discard(self) -> None:
        if self.temps is not None:
            self.temps.discard()
        for tmp in self.link_temps.values():
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        with contextlib.suppress(OSError):
            os.unlink(self.next_index)


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
