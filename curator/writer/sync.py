"""`curator sync`: a palace shared over a git remote, with git doing the moving.

One sync is: fetch the remote's branch; replay this clone's commits that the remote lacks onto
its tip; move the branch and work tree there (journaled, :mod:`curator.writer.syncmove`); push
without force. :func:`plan_sync` does everything but the move and the push, creating only git
objects nothing points at, so ``--dry-run`` is the same plan shown instead of applied.

Replaying a commit re-runs what its plan checked when it was made: every file it changed must
still hold what the commit found there (the pre-image check of ``apply_plan``), so a note edited
on both sides, a note retired here and superseded there, or a name promoted here that the remote
took already is a conflict, listed with both sides, and nothing moves. The notes it changed must
pass the same checks a planner runs (``errors_for``). The generated files (INDEX.md, a layout's
MEMORY.md) are never merged: each replayed commit gets them rendered for its own notes.

The remote's history is never rewritten: only commits the remote lacks are replayed, a push is
never forced, and a remote whose branch no longer contains the commit this clone last synced
with is refused. A rejected push (someone pushed first) replays again and retries.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from curator.config import load_config
from curator.errors import WriterError
from curator.model import palace_rules
from curator.model.discovery import STATE_DIR, inbox_of
from curator.model.index_md import hand_part, render_index
from curator.model.layouts import claude_code
from curator.model.layouts import rules as layout_rules
from curator.model.palace import INDEX_NAME, Palace
from curator.writer import gitpy
from curator.writer.actions.common import errors_for
from curator.writer.actions.undo import derived
from curator.writer.committed import committed_palace
from curator.writer.git import (
    NULL_OID,
    Repo,
    TreeChange,
    discover,
    discover_with_head,
    merge3,
    read_blobs,
)
from curator.writer.git import tree_changes as _tree_changes
from curator.writer.gitpy import OnTransfer
from curator.writer.gitsteps import GitStateError, check_git_state, status
from curator.writer.hooks import AfterCommit, run_after_commit
from curator.writer.inbox_share import InboxReport, share_inbox
from curator.writer.lock import WriterLock
from curator.writer.plan import decode_restore
from curator.writer.recovery import recover_locked
from curator.writer.syncmove import Move, move_branch

__all__ = [
    "Commit",
    "Conflict",
    "Resolution",
    "SyncConflictError",
    "SyncError",
    "SyncPlan",
    "SyncResult",
    "plan_sync",
    "sync",
]

PUSH_RETRIES = 5
SYNCED_REF = "refs/curator/synced"  # /<remote>/<branch>: the remote tip this clone last had

Resolution = Literal["mine", "theirs"] | bytes
"""How a reviewer settles a conflict on one file: keep this clone's text ("mine"), keep the
remote's ("theirs": this clone's action is dropped), or the merged text itself."""


class SyncError(WriterError):
    """The sync cannot go on (remote unreachable or rewritten, uncommitted work in the way)."""


@dataclass(frozen=True)
class Commit:
    sha: str
    subject: str
    author: str


@dataclass(frozen=True)
class Conflict:
    """A file this clone's action changed that the remote changed too, differently."""

    path: str  # palace-relative
    kind: Literal["edited-both", "name-taken", "deleted-here", "deleted-there", "check"]
    mine: Commit
    theirs: Commit | None  # the remote's newest commit that changed the file
    base: bytes | None
    mine_text: bytes | None
    theirs_text: bytes | None
    detail: str = ""

    def sentence(self) -> str:
        t = self.theirs
        there = f" by {t.sha[:10]} ({t.subject}, {t.author})" if t is not None else ""
        here = f"{self.mine.sha[:10]} ({self.mine.subject}, {self.mine.author})"
        what = {
            "edited-both": f"{self.path} was changed here by {here} and on the remote{there}",
            "name-taken": f"{self.path}: the {here} here is refused: the remote took that name "
            f"already{there}",
            "deleted-here": f"{self.path} was removed here by {here} and changed on the "
            f"remote{there}",
            "deleted-there": f"{self.path} was changed here by {here} and removed on the "
            f"remote{there}",
            "check": f"{self.path}: {here} no longer passes its checks on the remote's notes: "
            f"{self.detail}",
        }[self.kind]
        return what

    def diff(self) -> str:
        """Both sides as one unified diff (the remote's text, then this clone's)."""

        def lines(data: bytes | None) -> list[str]:
            return [] if data is None else data.decode("utf-8", "replace").splitlines(True)

        return "".join(
            difflib.unified_diff(
                lines(self.theirs_text),
                lines(self.mine_text),
                f"theirs/{self.path}" if self.theirs_text is not None else "/dev/null",
                f"mine/{self.path}" if self.mine_text is not None else "/dev/null",
            )
        )


@dataclass(frozen=True)
class SyncPlan:
    """What a sync would do: the commits coming in, the ones going out (replayed onto the
    remote's tip when both sides moved), and what stands in the way."""

    root: Path
    remote: str
    branch: str
    head: str
    remote_tip: str | None
    incoming: tuple[Commit, ...]
    outgoing: tuple[Commit, ...]
    new_head: str
    conflicts: tuple[Conflict, ...] = ()
    dropped: tuple[Commit, ...] = ()  # this clone's actions a reviewer gave up for theirs
    restores: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    @property
    def up_to_date(self) -> bool:
        return not self.incoming and not self.outgoing and not self.dropped

    def lines(self, *, made: bool = False) -> list[str]:
        """The plan for a person: what comes in, what goes out, what blocks it. A commit to
        be replayed shows no id (the sync gives it one when it makes it) unless `made`."""
        where = f"{self.remote}/{self.branch}"
        if self.up_to_date and not self.conflicts:
            return [f"Up to date with {where}."]
        out: list[str] = []
        if self.incoming:
            out.append(f"{len(self.incoming)} commit(s) to pull from {where}:")
            out += [f"  < {c.sha[:10]}  {c.subject}  ({c.author})" for c in self.incoming]
        if self.outgoing:
            how = " (replayed onto the remote's tip)" if self.incoming else ""
            out.append(f"{len(self.outgoing)} commit(s) to push to {where}{how}:")
            # a replayed commit gets its id when the sync makes it: a plan's would never exist
            out += [
                f"  > {'' if self.incoming and not made else c.sha[:10] + '  '}{c.subject}"
                f"  ({c.author})"
                for c in self.outgoing
            ]
        if self.dropped:
            out.append(f"{len(self.dropped)} action(s) of this clone given up for the remote's:")
            out += [f"  x {c.sha[:10]}  {c.subject}" for c in self.dropped]
        if self.conflicts:
            out.append(
                f"{len(self.conflicts)} conflict(s); nothing will change until each is settled:"
            )
            out += [f"  ! {c.sentence()}" for c in self.conflicts]
        return out


@dataclass(frozen=True)
class SyncResult:
    plan: SyncPlan
    pushed: bool
    attempts: int
    warnings: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()  # palace paths the pull changed
    inbox: InboxReport | None = None  # with [team] share_inbox

    def summary(self) -> str:
        """The one result line, the CLI's and the app's."""
        pulled, pushed = len(self.plan.incoming), len(self.plan.outgoing)
        if self.plan.up_to_date:
            return f"Up to date with {self.plan.remote}/{self.plan.branch}."
        return f"Synced: {pulled} pulled, {pushed} pushed."


class SyncConflictError(SyncError):
    """A real conflict: nothing was changed; `plan.conflicts` lists each with both sides."""

    def __init__(self, plan: SyncPlan) -> None:
        self.plan = plan
        first = plan.conflicts[0].sentence()
        more = f" (and {len(plan.conflicts) - 1} more)" if len(plan.conflicts) > 1 else ""
        super().__init__(
            f"sync stopped, nothing was changed: {first}{more}. Settle each conflict "
            f"(`curator sync --keep-mine PATH`, `--keep-theirs PATH` or `--merged PATH=FILE`), "
            f"then sync again"
        )


# -- the remote ---------------------------------------------------------------------------------
def _remote_name(repo: Repo, root: Path, remote: str | None) -> str:
    name = remote or load_config(root).team.remote
    known = repo.git("remote").stdout.decode("utf-8", "replace").split()
    if name not in known:
        have = ", ".join(known) or "none"
        raise SyncError(
            f"no git remote named {name!r} (remotes: {have}); add one with "
            f"`git remote add {name} URL`, or pass --remote"
        )
    return name


def _branch(repo: Repo) -> str:
    proc = repo.git("symbolic-ref", "-q", "--short", "HEAD", check=False)
    name = proc.stdout.decode().strip()
    if proc.returncode != 0 or not name:
        raise GitStateError(
            f"HEAD is detached in {repo.top}; check out the palace's branch (`git switch "
            f"main`), then sync"
        )
    return name


def _rev(repo: Repo, ref: str) -> str | None:
    proc = repo.git("rev-parse", "-q", "--verify", f"{ref}^{{commit}}", check=False)
    out = proc.stdout.decode().strip()
    return out if proc.returncode == 0 and out else None


def _fetch(repo: Repo, remote: str, branch: str, on: OnTransfer | None = None) -> str | None:
    """The remote branch's tip after fetching it (None: the remote has no such branch yet);
    git's progress goes to ``on``."""
    tracking = f"refs/remotes/{remote}/{branch}"
    try:
        gitpy.fetch(repo.top, remote, f"+refs/heads/{branch}:{tracking}", on)
    except gitpy.TransferError as exc:
        if any("couldn't find remote ref" in line for line in exc.said):
            return None
        # git's whole reason: its last line alone ("and the repository exists.") says nothing
        why = " ".join(exc.said) or "git fetch failed"
        raise SyncError(
            f"cannot reach the remote {remote!r} ({why}); nothing was changed"
        ) from None
    return _rev(repo, tracking)


def _check_history(repo: Repo, remote: str, branch: str, last: str | None, tip: str | None) -> None:
    """Refuse a remote whose branch lost the commit this clone last synced with."""
    if last is None:
        return
    ancestor = ["merge-base", "--is-ancestor", last, tip or ""]
    if tip is not None and repo.git(*ancestor, check=False).returncode == 0:
        return
    now = f"is at {tip[:10]}" if tip else "is gone"
    raise SyncError(
        f"the history of {remote}/{branch} was rewritten: it {now} and no longer contains "
        f"{last[:10]}, which this clone synced with last; nothing was changed. Ask whoever "
        f"force-pushed to push the lost commits back (from a clone that has {last[:10]}), or, "
        f"if the rewrite was meant, make a fresh clone and redo this clone's unpushed actions "
        f"there"
    )


def local_only(repo: Repo) -> tuple[str, ...]:
    """What is never applied from a remote: a clone's machine state (.curator/: the journal,
    the index, parked drafts) and its drafts (the inbox: git-ignored, shared only on their own
    ref), as folders of the palace."""
    return (f"{STATE_DIR}/", f"{inbox_of(repo.top / repo.prefix)}/")


def local_only_paths(repo: Repo, rev_range: str) -> list[tuple[str, str]]:
    """(commit, palace path) for each path of `local_only` a commit in the range adds, changes
    or removes: a teammate's force-added journal or draft would otherwise be applied here."""
    local = local_only(repo)
    proc = repo.git(
        "log", "--format=%x1e%H", "--name-only", "--no-renames", "-z", rev_range, "--",
        *(repo.to_repo(p) for p in local),
    )  # fmt: skip
    found: list[tuple[str, str]] = []
    for record in proc.stdout.decode("utf-8", "surrogateescape").split("\x1e")[1:]:
        sha, _, names = record.partition("\n")  # "<sha>\0\n<name>\0<name>\0"
        for name in filter(None, names.split("\0")):
            rel = repo.to_palace(name.strip("\n"))
            if rel is not None and rel.startswith(local):
                found.append((sha.strip("\0"), rel))
    return found


def _refuse_local_only(repo: Repo, remote: str, branch: str, rev_range: str) -> None:
    found = local_only_paths(repo, rev_range)
    if not found:
        return
    sha, rel = found[0]
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    raise SyncError(
        f"{remote}/{branch} has commit {sha[:10]} that adds {rel}{more}: machine state "
        f"(.curator/) and drafts ({local_only(repo)[1]}) are never taken from a remote, so "
        f"nothing was changed. Ask whoever pushed it to revert it with `git rm --cached` "
        f"(drafts travel with [team] share_inbox, on a ref of their own)"
    )


def _commits(repo: Repo, rev_range: str) -> list[tuple[Commit, str, str]]:
    """(commit, raw message, author date) for the range, oldest first (bench_gitpython "log N
    commits with trailers": one `git log` beats GitPython's commit objects)."""
    proc = repo.git(
        "log", "--reverse", "--no-show-signature", "--date=raw",
        "--format=%x1e%H%x00%an <%ae>%x00%an%x00%ae%x00%ad%x00%s%x00%B", rev_range,
    )  # fmt: skip
    out: list[tuple[Commit, str, str]] = []
    for record in proc.stdout.decode("utf-8", "surrogateescape").split("\x1e")[1:]:
        sha, author, _name, _mail, date, subject, body = record.split("\x00", 6)
        out.append((Commit(sha, subject, author), body.rstrip("\n") + "\n", date))
    return out


# -- replaying this clone's commits ---------------------------------------------------------------
def render_derived(after: Palace, existing: Mapping[str, bytes | None]) -> dict[str, bytes]:
    """The generated files for the palace `after`, given the files as they are (their
    preambles stay); a foreign layout's INDEX.md only when curator has written one."""
    out: dict[str, bytes] = {}
    if after.foreign_layout:
        if isinstance(layout_rules.layout_of(after.config), claude_code.ClaudeCode):
            rel = layout_rules.index_name(after.config)
            out[rel] = palace_rules.render_memory_index(after, existing.get(rel))
        if existing.get(INDEX_NAME) is None:
            return out
    out[INDEX_NAME] = render_index(after, existing.get(INDEX_NAME)).encode("utf-8")
    return out


@dataclass
class _Replay:
    """A temporary index holding the tree being built, and what it holds at the paths the
    replayed commits touch."""

    repo: Repo
    palace: Palace
    blobs: dict[str, tuple[str, str] | None]  # repo path -> (mode, blob) in the tree so far
    derived: dict[str, bytes | None]  # palace path -> bytes in the tree so far
    env: dict[str, str]
    identity: list[tuple[str, str]]

    def git(self, *args: str, input: bytes | None = None) -> str:
        proc = self.repo.git(*args, input=input, env=self.env, config=self.identity)
        return proc.stdout.decode("utf-8", "surrogateescape").strip()

    def write(self, entries: Mapping[str, tuple[str, str] | None]) -> str:
        lines = [
            (f"{m} {b}\t{p}" if v else f"0 {NULL_OID}\t{p}")
            for p, v in entries.items()
            for m, b in [v or ("0", NULL_OID)]
        ]
        data = "".join(line + "\0" for line in lines).encode("utf-8", "surrogateescape")
        self.git("update-index", "-z", "--index-info", input=data)
        self.blobs.update(entries)
        return self.git("write-tree")


def _palace_effects(
    repo: Repo, changes: Sequence[tuple[str, str | None]]
) -> dict[str, bytes | None]:
    """{palace path: bytes or None} for (repo path, blob or None) pairs inside the palace."""
    wanted = [(repo.to_palace(p), b) for p, b in changes]
    data = read_blobs(repo, sorted({b for rel, b in wanted if rel is not None and b}))
    return {rel: (data[b] if b else None) for rel, b in wanted if rel is not None}


def _blob(mode_blob: tuple[str, str] | None) -> str | None:
    return None if mode_blob is None else mode_blob[1]


def _last_touch(repo: Repo, base: str | None, tip: str, path: str) -> Commit | None:
    rng = f"{base}..{tip}" if base else tip
    proc = repo.git("log", "-1", "--format=%H%x00%s%x00%an <%ae>", rng, "--", path, check=False)
    parts = proc.stdout.decode("utf-8", "replace").strip().split("\x00")
    return Commit(*parts) if len(parts) == 3 else None


def _replay(
    root: Path,
    repo: Repo,
    head: str,
    tip: str,
    base: str | None,
    local: list[tuple[Commit, str, str]],
    resolutions: Mapping[str, Resolution],
) -> tuple[str, list[Commit], list[Conflict], list[Commit], list[tuple[str, str]]]:
    """Replay `local` onto `tip`: (new tip, the commits made, conflicts, dropped, restores)."""
    palace = committed_palace(Palace.open(root), repo)  # never the working copy's notes
    skip = derived(palace)
    per_commit = {c.sha: _tree_changes(repo, c.sha) for c, _, _ in local}
    touched = sorted({ch.path for chs in per_commit.values() for ch in chs})
    listing = (
        repo.git("ls-tree", "-z", tip, "--", *touched).stdout.decode("utf-8", "surrogateescape")
        if touched
        else ""
    )
    blobs: dict[str, tuple[str, str] | None] = dict.fromkeys(touched)
    for item in filter(None, listing.split("\0")):
        meta, path = item.split("\t", 1)
        mode, _type, blob = meta.split()
        blobs[path] = (mode, blob)
    there = _tree_changes(repo, head, tip)
    palace = palace.replaced(
        _palace_effects(repo, [(ch.path, None if ch.new == NULL_OID else ch.new) for ch in there])
    )
    derived_now = _palace_effects(
        repo, [(repo.to_repo(rel), _ls_blob(repo, tip, repo.to_repo(rel))) for rel in skip]
    )
    index_file = repo.git_dir / "curator-sync.index"
    env = {"GIT_INDEX_FILE": str(index_file)}
    state = _Replay(repo, palace, blobs, derived_now, env, repo.identity_config())
    state.git("read-tree", tip)
    parent = tip
    made: list[Commit] = []
    conflicts: list[Conflict] = []
    dropped: list[Commit] = []
    restores: list[tuple[str, str]] = []
    renamed: dict[str, str] = {}  # a replayed commit's old id -> its id in the shared history
    try:
        for commit, message, date in local:
            message = renamed_in(message, renamed)
            result = _replay_one(
                state, commit, per_commit[commit.sha], skip, resolutions, base, tip
            )
            if isinstance(result, list):
                conflicts += result
                continue
            if result is None:
                dropped.append(commit)
                restores += _restores_of(message)
                parent = _record_given_up(state, parent, commit, message)
                made.append(
                    Commit(parent, f"{GIVEN_UP_ACTION}: gave up {commit.subject}", commit.author)
                )
                continue
            entries, resolved, hands = result
            effects = _palace_effects(repo, [(p, _blob(v)) for p, v in entries.items()])
            problems = errors_for(state.palace, effects, list(effects))
            if problems and any(resolutions.get(rel) == "theirs" for rel in effects):
                dropped.append(commit)  # a reviewer gave it up for the remote's notes
                restores += _restores_of(message)
                parent = _record_given_up(state, parent, commit, message)
                made.append(
                    Commit(parent, f"{GIVEN_UP_ACTION}: gave up {commit.subject}", commit.author)
                )
                continue
            if problems:
                conflicts.append(
                    Conflict(
                        next(iter(effects), commit.sha),
                        "check",
                        commit,
                        None,
                        None,
                        None,
                        None,
                        "; ".join(problems),
                    )
                )
                continue
            state.palace = state.palace.replaced(effects)
            for rel, data in render_derived(state.palace, {**state.derived, **hands}).items():
                if data != state.derived.get(rel):
                    blob = state.git("hash-object", "-w", "--stdin", input=data)
                    entries[repo.to_repo(rel)] = ("100644", blob)
                    state.derived[rel] = data
            tree = state.write(entries)
            for rel, how in resolved:
                message = message.rstrip("\n") + f"\nCurator-Resolved: {rel} ({how})\n"
            name, _, mail = commit.author.rpartition(" <")
            author = {
                "GIT_AUTHOR_NAME": name,
                "GIT_AUTHOR_EMAIL": mail.rstrip(">"),
                "GIT_AUTHOR_DATE": date,
                **env,
            }
            proc = repo.git(
                "commit-tree", tree, "-p", parent, "-F", "-", input=message.encode("utf-8"),
                env=author, config=state.identity,
            )  # fmt: skip
            parent = proc.stdout.decode().strip()
            renamed[commit.sha] = parent
            made.append(Commit(parent, commit.subject, commit.author))
    finally:
        index_file.unlink(missing_ok=True)
    return parent, made, conflicts, dropped, restores


GIVEN_UP_ACTION = "settle"
GIVEN_UP_DIFF = 200_000  # characters of the given-up action's diff kept in the record


def _record_given_up(state: _Replay, parent: str, commit: Commit, message: str) -> str:
    """A commit that records an action given up for the remote's version (`--keep-theirs`):
    no file changes, its message holding the action's own message and its diff, so the
    shared history says what was given up and a person can take the text back from it."""
    repo = state.repo
    diff = repo.git("show", "--format=", "--no-color", "--no-ext-diff", commit.sha, check=False)
    patch = diff.stdout.decode("utf-8", "replace")
    if len(patch) > GIVEN_UP_DIFF:
        patch = patch[:GIVEN_UP_DIFF] + f"\n[... cut at {GIVEN_UP_DIFF:,} characters]\n"
    quoted = "".join(
        f"    {line}\n" for line in (message.rstrip("\n") + "\n\n" + patch).splitlines()
    )
    record = (
        f"{GIVEN_UP_ACTION}: gave up {commit.subject}\n\n"
        f"This clone's action was given up for the remote's version (--keep-theirs). What it "
        f"did, as it was made ({commit.sha[:10]}, {commit.author}):\n\n{quoted}\n"
        f"Curator-Action: {GIVEN_UP_ACTION}\n"
    )
    tree = state.git("write-tree")
    name, _, mail = commit.author.rpartition(" <")
    author = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": mail.rstrip(">"), **state.env}
    proc = repo.git(
        "commit-tree", tree, "-p", parent, "-F", "-", input=record.encode("utf-8"),
        env=author, config=state.identity,
    )  # fmt: skip
    return proc.stdout.decode().strip()


_SHA = re.compile(r"\b[0-9a-f]{10,40}\b")


def renamed_in(message: str, renamed: Mapping[str, str]) -> str:
    """`message` with each commit id it names that the replay gave a new id (a Curator-Undo
    trailer, "Undo of 1a2b3c4d5e" in its reason) replaced by the new one, as long as it was
    written: a trailer must name a commit of the shared history."""
    if not renamed:
        return message

    def new(match: re.Match[str]) -> str:
        found = match.group()
        for old, now in renamed.items():
            if old.startswith(found):
                return now[: len(found)]
        return found

    return _SHA.sub(new, message)


def _ls_blob(repo: Repo, rev: str, path: str) -> str | None:
    out = repo.git("ls-tree", "-z", rev, "--", path).stdout.decode("utf-8", "surrogateescape")
    return out.split("\t", 1)[0].split()[2] if out else None


def _restores_undone(repo: Repo, message: str) -> list[tuple[str, str]]:
    """The drafts the action an undo (`message`) takes back had parked: (inbox path, parked
    path) pairs, put back by the sync on the clone that holds the parked file."""
    out: list[tuple[str, str]] = []
    for line in message.splitlines():
        key, _, value = line.partition(":")
        if key.strip().lower() != "curator-undo" or _rev(repo, value.strip()) is None:
            continue
        undone = repo.git("log", "-1", "--format=%B", value.strip(), "--").stdout
        out += _restores_of(undone.decode("utf-8", "surrogateescape"))
    return out


def _restores_of(message: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for line in message.splitlines():
        key, _, value = line.partition(":")
        if key.strip().lower() == "curator-restore":
            try:
                out.append(decode_restore(value))
            except WriterError:
                continue
    return out


def _replay_one(
    state: _Replay,
    commit: Commit,
    changes: list[TreeChange],
    skip: set[str],
    resolutions: Mapping[str, Resolution],
    base: str | None,
    tip: str,
) -> _Replayed | list[Conflict] | None:
    """The index entries of one replayed commit, how its conflicts were settled and the
    generated files its hand edits leave; its conflicts when some are not settled; None when
    a reviewer gave it up for theirs."""
    repo = state.repo
    entries: dict[str, tuple[str, str] | None] = {}
    open_: list[Conflict] = []
    resolved: list[tuple[str, str]] = []
    hands: dict[str, bytes] = {}
    give_up = False
    for ch in changes:
        rel = repo.to_palace(ch.path)
        if rel in skip:
            assert rel is not None
            hand = _hand_edit(state, commit, ch, rel, resolutions, base, tip)
            if isinstance(hand, Conflict):
                open_.append(hand)
            elif hand == "theirs":
                give_up = True
            elif hand is not None:
                hands[rel], how = hand
                if how:
                    resolved.append((rel, how))
            continue
        new = None if ch.new_mode == "000000" else (ch.new_mode, ch.new)
        have = _blob(state.blobs.get(ch.path))
        old = None if ch.old == NULL_OID else ch.old
        if have in (old, _blob(new)):
            entries[ch.path] = new
            continue
        key = rel if rel is not None else ch.path
        choice = resolutions.get(key)
        if choice == "theirs":
            give_up = True
        elif choice == "mine":
            entries[ch.path] = new
            resolved.append((key, "kept this clone's"))
        elif isinstance(choice, bytes):
            blob = state.git("hash-object", "-w", "--stdin", input=choice)
            entries[ch.path] = (new[0] if new else "100644", blob)
            resolved.append((key, "merged"))
        else:
            texts = read_blobs(repo, [b for b in (old, ch.new, have) if b and b != NULL_OID])
            kind: Literal["edited-both", "name-taken", "deleted-here", "deleted-there"]
            if old is None:
                kind = "name-taken"
            elif new is None:
                kind = "deleted-here"
            elif have is None:
                kind = "deleted-there"
            else:
                kind = "edited-both"
            open_.append(
                Conflict(
                    key,
                    kind,
                    commit,
                    _last_touch(repo, base, tip, ch.path),
                    texts.get(old or ""),
                    texts.get(ch.new) if new else None,
                    texts.get(have or ""),
                )
            )
    if open_:
        return open_
    if give_up:
        return None
    return entries, resolved, hands


_Replayed = tuple[dict[str, tuple[str, str] | None], list[tuple[str, str]], dict[str, bytes]]


def _hand_edited(rel: str, before: bytes | None, after: bytes) -> bool:
    """Whether a commit changed what a person wrote in a generated file: INDEX.md's preamble;
    in MEMORY.md anything but the entry lines of memories it added or removed (the person's
    file too: an entry reworded or moved by hand is theirs). Curator renders the rest again
    for each replayed commit."""
    if rel == INDEX_NAME:
        return hand_part(before or b"")[0] != hand_part(after)[0]
    return claude_code.edited_by_hand(before or b"", after)


def _hand_edit(
    state: _Replay,
    commit: Commit,
    ch: TreeChange,
    rel: str,
    resolutions: Mapping[str, Resolution],
    base: str | None,
    tip: str,
) -> tuple[bytes, str] | Conflict | Literal["theirs"] | None:
    """A replayed commit's hand edit of a generated file (`rel`) carried onto the file as the
    replay has it so far: (the file to render from, how a conflict was settled or ""); None
    when the commit changed only what curator renders. git merges the person's part: a
    preamble edited on both sides is merged, or a conflict when both changed the same lines."""
    repo = state.repo
    texts = read_blobs(repo, [b for b in (ch.old, ch.new) if b != NULL_OID])
    before = texts.get(ch.old)
    after = None if ch.new_mode == "000000" else texts.get(ch.new)
    if after is None or not _hand_edited(rel, before, after):
        return None
    current = state.derived.get(rel)
    if rel == INDEX_NAME:  # the preamble is merged, the rest is rendered again
        mine, rest = hand_part(after)[0], hand_part(current or b"")[1]
        merged = merge3(repo, mine, hand_part(before or b"")[0], hand_part(current or b"")[0])
    else:
        mine, rest = after, b""  # its entries are rendered again: merge the rest
        theirs = claude_code.without_new_entries(current or b"", before or b"")
        merged = merge3(repo, mine, before or b"", theirs)
    if merged is not None and merged[1] == 0:
        return merged[0] + rest, ""
    choice = resolutions.get(rel)
    if choice == "theirs":
        return "theirs"
    if choice == "mine":
        return mine + rest, "kept this clone's"
    if isinstance(choice, bytes):
        return choice, "merged"
    return Conflict(
        rel, "edited-both", commit, _last_touch(repo, base, tip, ch.path), before, after, current
    )


# -- the plan and the sync ------------------------------------------------------------------------
def plan_sync(
    palace_root: Path | str,
    remote: str | None = None,
    resolutions: Mapping[str, Resolution] | None = None,
    *,
    replay: bool = True,
    on_transfer: OnTransfer | None = None,
) -> SyncPlan:
    """Fetch, then work out the sync (``replay=False``: only count what comes in and goes out,
    for ``--check``). Changes nothing but the remote-tracking ref and unreferenced objects.
    The fetch's progress goes to ``on_transfer``."""
    root = Path(palace_root).absolute()
    repo, head = discover_with_head(root)
    if head is None:
        raise SyncError(
            f"{root} has no commits yet; run `curator init` (or clone the team's palace)"
        )
    name = _remote_name(repo, root, remote)
    branch = _branch(repo)
    last = _rev(repo, f"{SYNCED_REF}/{name}/{branch}") or _rev(
        repo, f"refs/remotes/{name}/{branch}"
    )
    tip = _fetch(repo, name, branch, on_transfer)
    _check_history(repo, name, branch, last, tip)
    if tip is not None:
        _refuse_local_only(repo, name, branch, f"{head}..{tip}")
    if tip is None:
        outgoing = [c for c, _, _ in _commits(repo, head)]
        return SyncPlan(root, name, branch, head, None, (), tuple(outgoing), head)
    base_proc = repo.git("merge-base", head, tip, check=False)
    base = base_proc.stdout.decode().strip() or None
    rng = f"{base}..{head}" if base else head
    local = _commits(repo, rng)
    pulled = _commits(repo, f"{base}..{tip}" if base else tip)
    incoming = tuple(c for c, _, _ in pulled)
    # a teammate's undo of an action that parked a draft here: the draft goes back here
    undone = [pair for _, m, _ in pulled for pair in _restores_undone(repo, m)]
    merges = repo.git("rev-list", "--merges", rng).stdout.decode().split()
    if merges:
        raise SyncError(
            f"this clone's unpushed history holds merge commit(s) ({merges[0][:10]}); curator "
            f"replays a straight line of actions. Push it with git, or rebase it, then sync"
        )
    if not local or not incoming or not replay:
        new_head = tip if not local else head
        going = tuple(c for c, _, _ in local)
        return SyncPlan(
            root, name, branch, head, tip, incoming, going, new_head, restores=tuple(undone)
        )
    new_head, made, conflicts, dropped, restores = _replay(
        root, repo, head, tip, base, local, resolutions or {}
    )
    return SyncPlan(
        root, name, branch, head, tip, incoming, tuple(made), new_head,
        tuple(conflicts), tuple(dropped), tuple(restores + undone),
    )  # fmt: skip


def _move(root: Path, repo: Repo, plan: SyncPlan) -> list[str]:
    """Move the branch and files to the plan's new head (under the writer lock)."""
    changes = _tree_changes(repo, plan.head, plan.new_head)
    paths = [ch.path for ch in changes]
    _branch_line, codes = status(repo, paths)
    if codes:
        path, code = next(iter(codes.items()))
        what = "an untracked file is" if code == "??" else "uncommitted changes are"
        raise SyncError(
            f"{path}: {what} in the way of the sync (git status {code.strip()}); commit or "
            f"move it away, then sync again; nothing was changed"
        )
    moved = move_branch(root, repo, Move(f"refs/heads/{plan.branch}", plan.head, plan.new_head))
    # a promote given up, or undone by a teammate: the draft parked here goes back to the inbox
    # (a draft already at that name keeps its place, and the parked one stays parked)
    for src, dst in plan.restores:
        if (root / dst).is_file() and not (root / src).exists():
            (root / src).parent.mkdir(parents=True, exist_ok=True)
            (root / dst).rename(root / src)
    return [rel for p in moved if (rel := repo.to_palace(p)) is not None]


class _Moved(Exception):
    """The branch or the remote moved since the plan: plan again."""


def _apply(
    plan: SyncPlan,
    changed: list[str],
    warnings: list[str],
    after_commit: Sequence[AfterCommit],
    on: OnTransfer | None = None,
) -> bool:
    """Move, then push (whether it pushed); the palace paths the move changed and the
    after-commit warnings go into `changed` and `warnings`."""
    root = plan.root
    with WriterLock(root):
        repo, _head = discover_with_head(root)
        check_git_state(repo)
        recover_locked(root, repo)
        if repo.head() != plan.head:
            raise _Moved()
        if plan.new_head != plan.head:
            moved = _move(root, repo, plan)
            changed += moved
            warnings += run_after_commit(after_commit, root, None, moved)
    pushed = False
    if plan.outgoing and plan.new_head != plan.remote_tip:
        try:
            gitpy.push(repo.top, plan.remote, f"{plan.new_head}:refs/heads/{plan.branch}", on)
        except gitpy.TransferError as exc:
            if _fetch(repo, plan.remote, plan.branch, on) != plan.remote_tip:
                raise _Moved() from None
            why = exc.said[-1] if exc.said else "no reason"
            raise SyncError(
                f"git push to {plan.remote} was refused ({why}); this clone has the pulled "
                f"commits, the push waits for the next sync"
            ) from None
        pushed = True
    repo.git("update-ref", f"{SYNCED_REF}/{plan.remote}/{plan.branch}", plan.new_head)
    return pushed


def sync(
    palace_root: Path | str,
    remote: str | None = None,
    resolutions: Mapping[str, Resolution] | None = None,
    *,
    on_plan: Callable[[SyncPlan], None] | None = None,
    after_commit: Sequence[AfterCommit] = (),
    on_transfer: OnTransfer | None = None,
) -> SyncResult:
    """Sync the palace with its remote: plan, move, push, retrying when the remote moved;
    `after_commit` runs once the branch has moved (a session's search index follows);
    `on_transfer` is given git's progress of each fetch and push.

    Raises SyncConflictError (nothing changed) when a conflict is not settled in
    `resolutions` ({palace path: "mine" | "theirs" | merged bytes}).
    """
    changed: list[str] = []
    warnings: list[str] = []
    for attempt in range(1, PUSH_RETRIES + 1):
        plan = plan_sync(palace_root, remote, resolutions, on_transfer=on_transfer)
        if on_plan is not None:
            on_plan(plan)
        if plan.conflicts:
            raise SyncConflictError(plan)
        try:
            pushed = _apply(plan, changed, warnings, after_commit, on_transfer)
        except _Moved:
            continue
        inbox = None
        if load_config(plan.root).team.share_inbox:
            with WriterLock(plan.root):
                inbox = share_inbox(plan.root, discover(plan.root), plan.remote)
        return SyncResult(
            plan, pushed, attempt, tuple(warnings), tuple(dict.fromkeys(changed)), inbox
        )
    raise SyncError(
        f"the remote kept moving: {PUSH_RETRIES} tries to push were each beaten by another "
        f"push; this clone is synced up to its last try, sync again"
    )
