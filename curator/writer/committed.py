"""The palace as a commit holds it: what the generated files (INDEX.md, MEMORY.md) are rendered
from when an action is written on top of history (a sync's replay, an undo).

A palace loaded from the disk holds the working copy: a note written by hand and never
committed, a note edited and not committed. A generated file rendered from that would name
notes the commit does not hold (and push their names to the team). Git says which files differ
from HEAD; those notes are taken as HEAD has them (or dropped, when HEAD has none), every other
note is the one already loaded. `curator index --check` still judges the working copy: as a
pre-commit hook it checks what is about to be committed.
"""

from __future__ import annotations

import time
from pathlib import Path

from curator.errors import WriterError
from curator.model.palace import INDEX_NAME, NOTES_DIR, NeedsPalace, Palace
from curator.writer.git import Repo, discover_with_head, read_blobs

__all__ = ["Proof", "committed_at", "committed_palace", "notes_committed", "notes_proof"]

_REGULAR = ("100644", "100755")


def committed_at(palace: Palace) -> tuple[Palace, str | None]:
    """(:func:`committed_palace` of the repository holding `palace`, the commit HEAD was at);
    (the palace as loaded, None) when there is none yet (no git repository, no commit). HEAD
    is read before git's status, so a commit landing in between makes the pair older than
    what it holds, never newer: a render from it is done again, not trusted. A palace read
    from the index once such a status showed its notes as HEAD holds them (`Loaded.committed`:
    `notes_committed`) is that palace at that commit."""
    if palace.partial and palace.loaded.committed is not None:
        return palace, palace.loaded.committed
    try:
        repo, head = discover_with_head(palace.root)
    except WriterError:
        return palace, None
    return (palace, None) if head is None else (committed_palace(palace, repo), head)


def notes_committed(root: Path) -> str | None:
    """The commit HEAD is at when git's status shows no note or folder that may hold notes
    of the palace at `root` differing from it (changed, staged, gone, untracked, ignored);
    else None, as outside git or before a first commit. HEAD is read first, as
    `committed_at` reads it.

    Git is asked about the notes folder alone (the only paths `_may_hold_notes` looks at),
    not the whole palace: the scan of every other folder for untracked files was work for
    nothing. INDEX.md is so left out: a plan splices it only when its bytes are a render
    remembered of exactly these notes (`curator.model.index_md`), and the writer refuses it
    when it differs from HEAD (its own status of the paths it writes). Asked here too, git
    hashed its 25 MB again at 100k notes: written in the same second as git's index by the
    last commit, its size and mtime cannot vouch for it (git's "racy" entries)."""
    try:
        repo, head = discover_with_head(root)
    except WriterError:
        return None
    if head is None:
        return None
    loose, changed = _differences(repo, notes_only=True)
    if any(map(_may_hold_notes, loose)) or any(map(_may_hold_notes, changed)):
        return None
    return head


#: (the time in ns read before git's status was asked, `notes_committed`'s answer)
Proof = tuple[int, str | None]


def notes_proof(root: Path) -> Proof:
    """`notes_committed` of the palace at `root`, with the time it was asked at: what a vouch
    for the notes needs (`curator.search.catchup.vouch`: a file written near or after that
    time is not vouched for). Taken first, its git status runs while the caller does other
    work (a plan imports LanceDB meanwhile)."""
    since_ns = time.time_ns()
    return since_ns, notes_committed(root)


def committed_palace(palace: Palace, repo: Repo) -> Palace:
    """`palace` without the notes the working copy adds to HEAD's and with the ones it changes
    as HEAD holds them (drafts stay: the inbox is never committed)."""
    loose, changed = _differences(repo)
    if palace.partial:  # it holds no note list to take them out of or put back in
        if any(map(_may_hold_notes, loose)) or any(map(_may_hold_notes, changed)):
            raise NeedsPalace("the working copy's notes differ from what HEAD holds")
        return palace
    notes = {n.rel for n in palace.notes}
    changes: dict[str, bytes | None] = {}
    for rel in loose:
        if rel.endswith("/"):
            changes.update((n, None) for n in notes if n.startswith(rel))
        elif rel in notes:
            changes[rel] = None
    # a note deleted from the disk is not put back: what curator cannot read is not listed
    wanted = [rel for rel in changed if rel in notes or rel == INDEX_NAME]
    if wanted:
        listing = repo.git("ls-tree", "-z", "HEAD", "--", *(repo.to_repo(r) for r in wanted))
        held: dict[str, str] = {}
        for entry in filter(None, listing.stdout.decode("utf-8", "surrogateescape").split("\0")):
            meta, path = entry.split("\t", 1)
            mode, _type, blob = meta.split()
            found = repo.to_palace(path)
            if found is not None and mode in _REGULAR:
                held[found] = blob
        data = read_blobs(repo, sorted(set(held.values())))
        for rel in wanted:
            changes[rel] = data[held[rel]] if rel in held else None
    return palace.replaced(changes) if changes else palace


def _may_hold_notes(rel: str) -> bool:
    """Whether the path git names (a folder ends in /; "" is the palace's own folder, which
    git names when the whole of it is untracked or ignored) is, or may hold, a note or
    INDEX.md."""
    if rel.endswith("/") or not rel:
        return rel.startswith(NOTES_DIR + "/") or f"{NOTES_DIR}/".startswith(rel)
    return rel == INDEX_NAME or rel.startswith(NOTES_DIR + "/")


def _differences(repo: Repo, *, notes_only: bool = False) -> tuple[list[str], list[str]]:
    """(untracked or ignored paths: a file, or a folder ending in /; tracked paths different
    from HEAD or staged as new), palace-relative, as git's status of the palace shows them. A
    submodule is looked into: one whose files changed shows as changed (a load reads its
    notes as the palace's own). `notes_only`: the notes folder alone is looked at."""
    spec = repo.to_repo(NOTES_DIR) if notes_only else repo.to_repo("") or "."
    proc = repo.git(
        "status", "--porcelain", "-z", "--no-renames", "--untracked-files=normal",
        "--ignored=traditional", "--ignore-submodules=none", "--", spec,
        env={"GIT_OPTIONAL_LOCKS": "0"},
    )  # fmt: skip
    loose: list[str] = []
    changed: list[str] = []
    for item in proc.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if len(item) < 4:
            continue
        code, rel = item[:2], repo.to_palace(item[3:])
        if rel is None:
            continue
        (loose if code in ("??", "!!") else changed).append(rel)
    return loose, changed
