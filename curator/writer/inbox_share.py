"""Drafts shared over the team's remote, on a ref of their own (``[team] share_inbox = true``).

The main branch never holds drafts: they travel as one commit whose tree is the inbox, on
``refs/curator/inbox`` at the remote, next to the notes but out of every clone's history. A
sync with the option on fetches that ref, brings in the drafts this clone lacks, sets aside
the drafts an action in the main history took (promoted, rejected or merged anywhere), and
pushes the inbox as it then is, without force, in a commit on top of the remote's. A draft
stays in this clone's inbox only (`stays_local` says why) when the secret scanner flags any
byte of it (its header fields as well as its body), when its header does not parse, or when
it is sensitive (`sensitive: true`, a sensitive scope) unless `[team] share_sensitive`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from curator.config import Config
from curator.errors import WriterError
from curator.fsutil import atomic_write
from curator.model.discovery import in_inbox, inbox_of
from curator.model.note import Note
from curator.model.palace import Palace
from curator.model.schema import is_visible
from curator.writer.actions.common import secrets_in
from curator.writer.git import Repo, read_blobs
from curator.writer.history import log
from curator.writer.plan import TOOK, content_hash, decode_took, normalize_rel

__all__ = ["INBOX_REF", "TAKEN_DIR", "InboxReport", "is_taken", "share_inbox", "taken_drafts"]

INBOX_REF = "refs/curator/inbox"
TAKEN_DIR = ".curator/taken"  # drafts a teammate's action took, kept here instead of deleted
RETRIES = 3


@dataclass(frozen=True)
class InboxReport:
    received: tuple[str, ...] = ()
    taken: tuple[str, ...] = ()  # set aside: an action took them on some clone
    kept_local: tuple[str, ...] = ()  # not pushed (`stays_local`): secrets, unreadable, hidden
    shared: int = 0  # drafts on the remote's inbox ref after the sync
    why_local: tuple[str, ...] = ()  # for each of kept_local, why

    def lines(self) -> list[str]:
        out = []
        if self.received:
            out.append(f"{len(self.received)} draft(s) came in: {', '.join(self.received)}")
        if self.taken:
            out.append(
                f"{len(self.taken)} draft(s) left the inbox (an action took them): "
                f"{', '.join(self.taken)}"
            )
        whys = self.why_local or ("the secret scanner flagged it",) * len(self.kept_local)
        for rel, why in zip(self.kept_local, whys, strict=True):
            out.append(f"{rel} is not shared: {why}")
        return out


def stays_local(draft: Note, config: Config) -> str | None:
    """Why the draft must not leave this machine (None: it may be shared)."""
    if not draft.ok:
        return "its header does not parse"
    if secrets_in(draft):
        return "the secret scanner flagged it"
    if not is_visible(draft, config) and not config.team.share_sensitive:
        return "it is sensitive ([team] share_sensitive = true shares such drafts)"
    return None


Taken = dict[str, frozenset[str] | None]
"""{draft path: the sha256 of each text actions took from there (None: an action recorded
before ``Curator-Took``, so any text at that path)}."""


def taken_drafts(repo: Repo, rev: str, inbox: str) -> Taken:
    """Drafts an action in `rev`'s history moved out of the inbox (the drafts folder `inbox`)
    and no undo brought back: by path and text, so a new draft reusing a taken draft's name is
    not taken with it."""
    taken: Taken = {}
    took_by: dict[str, list[str]] = {}  # commit -> the drafts it took
    for entry in reversed(log(repo, rev)):
        for rel in took_by.get(entry.undoes or "", []):
            taken.pop(rel, None)  # undone anywhere: the clone that parked it puts it back
        took: dict[str, set[str]] = {}
        for key, value in entry.trailers:
            found = decode_took(value) if key.lower() == TOOK.lower() else None
            if found is not None:
                took.setdefault(found[0], set()).add(found[1])
        for src, dst in entry.restores:
            taken.pop(dst, None)  # an undo moves a parked draft back to where it was
            if not in_inbox(src, inbox):
                continue
            before = taken.get(src, frozenset())
            texts = took.get(src)
            taken[src] = None if before is None or not texts else before | texts
            took_by.setdefault(entry.sha, []).append(src)
    return taken


def is_taken(taken: Taken, rel: str, data: bytes) -> bool:
    """Is the draft `rel` holding `data` one an action took?"""
    if rel not in taken:
        return False
    texts = taken[rel]
    return texts is None or content_hash(data) in texts


def _free_name(folder: Path, name: str) -> Path:
    """A path in `folder` nothing is at yet: a draft set aside never overwrites one set aside
    before under the same name."""
    folder.mkdir(parents=True, exist_ok=True)
    stem, suffix = name.removesuffix(".md"), ".md" if name.endswith(".md") else ""
    path, n = folder / name, 1
    while path.exists() or path.is_symlink():
        n += 1
        path = folder / f"{stem}-{n}{suffix}"
    return path


def _a_draft_path(rel: str, inbox: str) -> bool:
    try:
        return normalize_rel(rel) == rel and in_inbox(rel, inbox) and rel.endswith(".md")
    except WriterError:
        return False


def _fetch(repo: Repo, remote: str) -> str | None:
    mirror = f"refs/curator/remote-inbox/{remote}"
    proc = repo.git("fetch", "--quiet", "--no-tags", remote, f"+{INBOX_REF}:{mirror}", check=False)
    if proc.returncode != 0:
        said = proc.stderr.decode("utf-8", "replace")
        if "couldn't find remote ref" in said:
            return None
        raise WriterError(f"cannot fetch the shared inbox from {remote!r}: {said.strip()[-200:]}")
    return repo.git("rev-parse", mirror).stdout.decode().strip()


def _tree(repo: Repo, tip: str | None) -> dict[str, str]:
    if tip is None:
        return {}
    out = repo.git("ls-tree", "-r", "-z", tip).stdout.decode("utf-8", "surrogateescape")
    found: dict[str, str] = {}
    for item in filter(None, out.split("\0")):
        meta, path = item.split("\t", 1)
        found[path] = meta.split()[2]
    return found


def _commit(repo: Repo, root: Path, rels: list[str], parent: str | None) -> str:
    index = repo.git_dir / "curator-inbox.index"
    env = {"GIT_INDEX_FILE": str(index)}
    try:
        repo.git("read-tree", "--empty", env=env)
        for rel in rels:
            blob = repo.git("hash-object", "-w", "--", str(root / rel)).stdout.decode().strip()
            repo.git("update-index", "--add", "--cacheinfo", f"100644,{blob},{rel}", env=env)
        tree = repo.git("write-tree", env=env).stdout.decode().strip()
    finally:
        index.unlink(missing_ok=True)
    args = ["commit-tree", tree, "-m", "curator: the shared inbox"]
    if parent:
        args += ["-p", parent]
    return repo.git(*args, config=repo.identity_config()).stdout.decode().strip()


def share_inbox(root: Path, repo: Repo, remote: str) -> InboxReport:
    """Fetch, merge and push the shared inbox (the caller holds the writer lock)."""
    inbox = inbox_of(root)
    for _attempt in range(RETRIES):
        tip = _fetch(repo, remote)
        there = _tree(repo, tip)
        taken = taken_drafts(repo, "HEAD", inbox)
        received: list[str] = []
        set_aside: list[str] = []
        for rel in sorted(taken):  # first, so a new text under a taken name can come in
            path = root / rel
            if path.is_file() and not path.is_symlink() and is_taken(taken, rel, path.read_bytes()):
                path.replace(_free_name(root / TAKEN_DIR, Path(rel).name))
                set_aside.append(rel)
        data = read_blobs(repo, list(there.values()))
        for rel, blob in sorted(there.items()):
            if not _a_draft_path(rel, inbox):
                continue  # a tree that names files outside the inbox: never written
            if not is_taken(taken, rel, data[blob]) and not (root / rel).exists():
                # a fresh clone has no inbox folder (git keeps no empty folder), nor its subfolders
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                atomic_write(root / rel, data[blob], 0o644)
                received.append(rel)
        palace = Palace.open(root)
        shared: list[str] = []
        flagged: list[str] = []
        whys: list[str] = []
        for draft in palace.drafts:
            why = stays_local(draft, palace.config)
            if why is None:
                shared.append(draft.rel)
            else:
                flagged.append(draft.rel)
                whys.append(why)
        same = set(shared) == set(there) and all(
            (root / rel).read_bytes() == data[there[rel]] for rel in shared
        )
        if same:
            return InboxReport(
                tuple(received), tuple(set_aside), tuple(flagged), len(shared), tuple(whys)
            )
        new = _commit(repo, root, sorted(shared), tip)
        pushed = repo.git("push", "--quiet", remote, f"{new}:{INBOX_REF}", check=False)
        if pushed.returncode == 0:
            return InboxReport(
                tuple(received), tuple(set_aside), tuple(flagged), len(shared), tuple(whys)
            )
    raise WriterError(f"the shared inbox on {remote!r} kept moving; sync again")
