"""Undo: revert one curator action with a new commit; the one undo the CLI and the app call.

Each file the action changed goes back to its content before the action (or is deleted if the
action created it); a draft the action moved outside git (``Curator-Restore``) is moved back,
and a draft's text an edit replaced (``Curator-Previous``, kept under ``.curator/edited/``) is
put back. Derived files (INDEX.md) are not reverted but rendered again for the palace after
the undo, so later actions that changed them do not block undoing an older one. Only curator
actions can be undone: not the commit ``curator init`` made, nor anyone else's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from pathlib import Path

from curator.model.layouts import rules as layout_rules
from curator.model.palace import INDEX_NAME, Palace
from curator.writer.actions.common import with_index
from curator.writer.git import Repo, discover_with_head, read_blobs, tree_changes
from curator.writer.history import NOT_UNDOABLE, HistoryEntry, UndoError, entry_at, log
from curator.writer.plan import Change, Delete, Move, Plan, Write, encode_restore

__all__ = ["NOT_UNDOABLE", "UndoError", "derived", "plan_undo", "undo"]

_NULL_SHA = re.compile(r"0{40}|0{64}")
_SHA_ARG = re.compile(r"[0-9a-fA-F]{4,64}")


def _resolve(repo: Repo, sha: str) -> str:
    if not _SHA_ARG.fullmatch(sha):
        raise UndoError(f"{sha!r} is not a commit id (hexadecimal, at least 4 digits)")
    proc = repo.git("rev-parse", "-q", "--verify", f"{sha}^{{commit}}", check=False)
    if proc.returncode != 0:
        raise UndoError(f"no commit {sha} in this repository")
    return proc.stdout.decode().strip()


def _changed(repo: Repo, entry: HistoryEntry) -> list[tuple[str, str, str]]:
    """(repo path, old blob, new blob) for every file the commit changed, palace paths only."""
    if len(entry.parents) > 1:
        raise UndoError(f"{entry.sha[:10]} is a merge commit; curator only undoes its own actions")
    return [
        (ch.path, ch.old, ch.new)
        for ch in tree_changes(repo, entry.sha)
        if repo.to_palace(ch.path) is not None
    ]


def _later_changes(repo: Repo, sha: str, repo_paths: Sequence[str]) -> dict[str, list[str]]:
    """``{repo path: ["<short sha> <subject>", ...]}`` for commits after ``sha`` touching them."""
    if not repo_paths:
        return {}
    proc = repo.git(
        "log",
        "--no-show-signature",
        "--format=%x1e%h %s",
        "--name-only",
        "--no-renames",
        "-z",
        f"{sha}..HEAD",
        "--",
        *repo_paths,
    )
    wanted = set(repo_paths)
    out: dict[str, list[str]] = {}
    for record in proc.stdout.decode("utf-8", "surrogateescape").split("\x1e"):
        fields = record.split("\0")
        if not fields or not fields[0]:
            continue
        label = fields[0].strip()
        for name in fields[1:]:
            name = name.lstrip("\n")
            if name in wanted:
                out.setdefault(name, []).append(label)
    return out


def _target(repo: Repo, head: str, sha: str | None) -> HistoryEntry:
    """The action to undo: ``sha``, or the newest undoable curator action."""
    if sha is None:
        for entry in log(repo, head):
            if entry.undoable:
                return entry
        raise UndoError("nothing to undo: no curator action in this repository's history")
    full = _resolve(repo, sha)
    found = entry_at(repo, full)
    if found is None:
        raise UndoError(f"{sha} is not a curator action (it has no Curator-Action trailer)")
    if not found.undoable:
        why = (
            "a task checkpoint's revisions are never rewritten or removed"
            if found.action.startswith("task-")
            else "it would remove palace.toml and the .gitignore that keeps the drafts out of git"
        )
        raise UndoError(
            f"{found.sha[:10]} is the commit `curator {found.action.replace('-', ' ')}` made; "
            f"it cannot be undone ({why})"
        )
    anc = repo.git("merge-base", "--is-ancestor", found.sha, head, check=False)
    if anc.returncode != 0:
        raise UndoError(f"{found.sha[:10]} is not in the current branch's history")
    return found


def derived(palace: Palace) -> set[str]:
    """The files rendered from the others (INDEX.md; a layout's own index such as MEMORY.md):
    an undo renders them again, never reverts them."""
    out = {INDEX_NAME}
    if palace.foreign_layout:
        out.add(layout_rules.index_name(palace.config))
    return out


def _reverted(repo: Repo, root: Path, entry: HistoryEntry, skip: set[str]) -> list[Change]:
    """The undo's changes to the files the commit changed (the derived ones, `skip`, aside)."""
    short = entry.sha[:10]
    changed = [
        (rp, old, new) for rp, old, new in _changed(repo, entry) if repo.to_palace(rp) not in skip
    ]
    later = _later_changes(repo, entry.sha, [rp for rp, _, _ in changed])
    if later:
        lines = [
            f"{repo.to_palace(rp)} (changed later by {', '.join(labels)})"
            for rp, labels in later.items()
        ]
        raise UndoError(
            f"cannot undo {short} ({entry.subject}): later commits touched the same files: "
            + "; ".join(lines)
            + ". Undo those first, or edit by hand."
        )
    olds = read_blobs(repo, [old for _, old, _ in changed if not _NULL_SHA.fullmatch(old)])
    changes: list[Change] = []
    for rp, old, _new in changed:
        rel = repo.to_palace(rp)
        assert rel is not None
        if _NULL_SHA.fullmatch(old):
            changes.append(Delete.from_disk(root, rel))
        else:
            changes.append(Write.from_disk(root, rel, olds[old]))
    return changes


def _moved_back(
    root: Path, entry: HistoryEntry, changes: list[Change], elsewhere: list[str]
) -> list[tuple[str, str]]:
    """Drafts the action parked outside git go back; the undo's own trailers for them. A
    draft parked on another machine (an action pulled from a teammate: git-ignored files do
    not travel) stays there; its path goes into `elsewhere`."""
    short = entry.sha[:10]
    trailers: list[tuple[str, str]] = []
    for src, dst in entry.restores:
        if not (root / dst).is_file():
            if _pulled(root, entry):
                elsewhere.append(src)
                continue
            raise UndoError(
                f"cannot undo {short} ({entry.subject}): {dst} is gone, so {src} cannot be restored"
            )
        if (root / src).exists():
            raise UndoError(
                f"cannot undo {short} ({entry.subject}): {src} exists again; move or remove it "
                f"first"
            )
        # a draft git tracked was also deleted by the commit: the parked file is its text,
        # so it moves back instead of git's copy being written beside it
        changes[:] = [ch for ch in changes if src not in ch.touched()]
        changes.append(Move.from_disk(root, dst, src))
        trailers.append(("Curator-Restore", encode_restore(dst, src)))
    for src, kept in entry.previous:
        if not (root / kept).is_file():
            raise UndoError(
                f"cannot undo {short} ({entry.subject}): the previous text of {src} ({kept}) "
                f"is gone"
            )
        changes.append(Move.from_disk(root, kept, src))
    return trailers


def _pulled(root: Path, entry: HistoryEntry) -> bool:
    """Whether the action came from another clone: a remote-tracking branch has it, and its
    author is not this clone's git identity."""
    repo = discover_with_head(root)[0]
    remotes = repo.git("branch", "-r", "--contains", entry.sha, check=False).stdout.strip()
    me = repo.git("config", "user.email", check=False).stdout.decode().strip()
    return bool(remotes) and not entry.author.endswith(f"<{me}>")


def undo(
    palace_root: Path,
    commit: str | None = None,
    *,
    palace: Palace | None = None,
    before: Palace | None = None,
    reason: str | None = None,
    today: date | None = None,
) -> Plan:
    """The Plan that reverts one curator action (the newest by default) with a new commit.

    `before`: the palace as it is now, when the caller has just read it (`palace`: one it
    loaded earlier, whose unchanged notes a load shares). The one undo: the CLI (`curator
    undo`) and the app both call it and commit the Plan with
    `curator.writer.session.commit`. Refuses, naming the files and the later commits, when
    later commits touched the same files (derived files aside: they are rendered again).
    """
    root = Path(palace_root)
    repo, head = discover_with_head(root)
    if head is None:
        raise UndoError("nothing to undo: the repository has no commits yet")
    entry = _target(repo, head, commit)
    # never a palace the caller loaded before the last commit (with_index renders INDEX.md
    # from what HEAD holds, not from notes on disk never committed); `before`: one read
    # just now (the CLI's, from the search index), else the palace is loaded here
    if before is None:
        before = Palace.open(root, previous=palace)
    changes = _reverted(repo, root, entry, derived(before))
    elsewhere: list[str] = []
    trailers = [("Curator-Undo", entry.sha), *_moved_back(root, entry, changes, elsewhere)]
    short = entry.sha[:10]
    said = reason or f"Undo of {short} ({entry.action}: {', '.join(entry.notes) or '-'})."
    if elsewhere:
        said += (
            f" The draft(s) {', '.join(elsewhere)} go back to the inbox of the clone that "
            f"parked them ({entry.author}) at its next sync."
        )
    return Plan(
        action="undo",
        notes=entry.notes,
        reason=said,
        summary=entry.subject,
        changes=with_index(before, changes, today),  # the one rule for derived files
        trailers=tuple(trailers),
        root=root,
    )


plan_undo = undo  # the name the writer's tests and older callers use
