"""What curator did, read back from git, and how to undo one action.

Every curator commit carries trailers (``Curator-Action``, ``Curator-Note``, ``Curator-Reason``,
and for some actions ``Curator-Restore`` / ``Curator-Undo``). :func:`history` lists those
commits; :func:`plan_undo` builds the Plan that reverts one of them with a new commit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from curator.writer.git import Repo, discover_with_head
from curator.writer.plan import (
    Change,
    Delete,
    Move,
    Plan,
    PlanError,
    Write,
    WriterError,
    decode_restore,
    encode_restore,
    file_hash,
)

__all__ = ["HistoryEntry", "UndoError", "history", "plan_undo"]

_NULL_SHA = re.compile(r"0{40}|0{64}")
_SHA_ARG = re.compile(r"[0-9a-fA-F]{4,64}")
_FIELDS = "%H%x1f%P%x1f%an <%ae>%x1f%aI%x1f%s%x1f%(trailers:only,unfold)"


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
    parents: tuple[str, ...] = ()
    trailers: tuple[tuple[str, str], ...] = ()


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
    restores: list[tuple[str, str]] = []
    for value in values.get("curator-restore", []):
        try:
            restores.append(decode_restore(value))
        except PlanError:
            continue
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
        parents=tuple(parents.split()),
        trailers=tuple(trailers),
    )


def _log(repo: Repo, *args: str) -> list[HistoryEntry]:
    proc = repo.git(
        "log", "--no-show-signature", "--grep=^Curator-Action:", f"--format=%x1e{_FIELDS}", *args
    )
    out: list[HistoryEntry] = []
    for record in proc.stdout.decode("utf-8", "replace").split("\x1e"):
        entry = _parse_record(record.strip("\n"))
        if entry is not None:
            out.append(entry)
    return out


def history(palace_root: Path, limit: int | None = None) -> list[HistoryEntry]:
    """Curator actions reachable from HEAD, newest first (all of them, or the last ``limit``).

    The whole repository's history is read: a repository is expected to hold one palace.
    """
    repo, head = discover_with_head(Path(palace_root))
    if head is None:
        return []
    args = [f"--max-count={int(limit)}"] if limit is not None else []
    return _log(repo, *args, head)


def _entry_at(repo: Repo, sha: str) -> HistoryEntry | None:
    found = _log(repo, "--max-count=1", sha)
    return found[0] if found and found[0].sha == sha else None


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
    args = ["diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", "--no-ext-diff"]
    if not entry.parents:
        args.append("--root")
    proc = repo.git(*args, entry.sha)
    items = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
    out: list[tuple[str, str, str]] = []
    i = 0
    while i + 1 < len(items):
        meta, path = items[i], items[i + 1]
        i += 2
        if not meta.startswith(":"):
            continue
        fields = meta[1:].split()
        if len(fields) < 5 or repo.to_palace(path) is None:
            continue
        out.append((path, fields[2], fields[3]))
    return out


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


def _blobs(repo: Repo, ids: Sequence[str]) -> dict[str, bytes]:
    if not ids:
        return {}
    proc = repo.git("cat-file", "--batch", input=("\n".join(ids) + "\n").encode())
    data = proc.stdout
    out: dict[str, bytes] = {}
    pos = 0
    for blob_id in ids:
        nl = data.index(b"\n", pos)
        header = data[pos:nl].decode().split()
        if len(header) < 3 or header[1] != "blob":
            raise UndoError(f"git object {blob_id} is missing or not a file")
        size = int(header[2])
        out[blob_id] = data[nl + 1 : nl + 1 + size]
        pos = nl + 1 + size + 1
    return out


Regenerate = Callable[[Mapping[str, bytes | None]], Mapping[str, bytes]]


def plan_undo(
    palace_root: Path,
    sha: str | None = None,
    *,
    reason: str | None = None,
    regenerate: Regenerate | None = None,
    derived: Sequence[str] = ("INDEX.md",),
) -> Plan:
    """The Plan that reverts one curator action (the last one by default) with a new commit.

    Each file the action changed goes back to its content before the action (or is deleted if
    the action created it); a draft the action moved outside git (``Curator-Restore``) is moved
    back. Refuses, naming the files and the later commits, when later commits touched the same
    files. With ``regenerate`` the ``derived`` files (INDEX.md) are not reverted but rebuilt:
    ``regenerate(post)`` gets the undo's post-image of every other path (bytes, or None for a
    deleted file) and returns ``{path: bytes}`` for the derived files; later changes to derived
    files then do not block the undo.
    """
    root = Path(palace_root)
    repo, head = discover_with_head(root)
    if head is None:
        raise UndoError("nothing to undo: the repository has no commits yet")
    if sha is None:
        last = _log(repo, "--max-count=1", head)
        if not last:
            raise UndoError("nothing to undo: no curator action in this repository's history")
        entry = last[0]
    else:
        full = _resolve(repo, sha)
        found = _entry_at(repo, full)
        if found is None:
            raise UndoError(f"{sha} is not a curator action (it has no Curator-Action trailer)")
        entry = found
        anc = repo.git("merge-base", "--is-ancestor", entry.sha, head, check=False)
        if anc.returncode != 0:
            raise UndoError(f"{entry.sha[:10]} is not in the current branch's history")

    short = entry.sha[:10]
    derived_set = set(derived) if regenerate is not None else set()
    changed = [
        (rp, old, new)
        for rp, old, new in _changed(repo, entry)
        if repo.to_palace(rp) not in derived_set
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

    olds = _blobs(repo, [old for _, old, _ in changed if not _NULL_SHA.fullmatch(old)])
    changes: list[Change] = []
    post: dict[str, bytes | None] = {}
    for rp, old, _new in changed:
        rel = repo.to_palace(rp)
        assert rel is not None
        if _NULL_SHA.fullmatch(old):
            changes.append(Delete.from_disk(root, rel))
            post[rel] = None
        else:
            changes.append(Write.from_disk(root, rel, olds[old]))
            post[rel] = olds[old]

    trailers: list[tuple[str, str]] = [("Curator-Undo", entry.sha)]
    for src, dst in entry.restores:
        if not (root / dst).is_file():
            raise UndoError(
                f"cannot undo {short} ({entry.subject}): {dst} is gone, so {src} cannot be restored"
            )
        if (root / src).exists():
            raise UndoError(
                f"cannot undo {short} ({entry.subject}): {src} exists again; move or remove it "
                f"first"
            )
        changes.append(Move.from_disk(root, dst, src))
        post[dst], post[src] = None, (root / dst).read_bytes()
        trailers.append(("Curator-Restore", encode_restore(dst, src)))

    if regenerate is not None:
        for rel, data in regenerate(post).items():
            if file_hash(root, rel) is None or (root / rel).read_bytes() != data:
                changes.append(Write.from_disk(root, rel, data))

    return Plan(
        action="undo",
        notes=entry.notes,
        reason=reason or f"Undo of {short} ({entry.action}: {', '.join(entry.notes) or '-'}).",
        summary=entry.subject,
        changes=tuple(changes),
        trailers=tuple(trailers),
        root=root,
    )
