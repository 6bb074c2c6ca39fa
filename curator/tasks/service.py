"""The task operations the CLI, the MCP tools, the hooks and the app all call.

Each change is checked against the revision its caller last read: given explicitly, or else
the one this owner last read or wrote through curator (kept under .curator/tasks-seen/).
"""

from __future__ import annotations

import difflib
import getpass
import os
import socket
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator.fsutil import atomic_write
from curator.tasks import requests as reqs
from curator.tasks.checkpoint import (
    OPEN_STATUSES,
    Checkpoint,
    Header,
    check_sections,
    parse_sections,
)
from curator.tasks.claims import Pending, Saved, Tasks, holder, now_utc, parse_time, stamp
from curator.tasks.commits import (
    Committed,
    commit_task,
    keep_out_of_git,
    should_commit,
    untracked,
)
from curator.tasks.errors import BadCheckpoint, TaskError
from curator.tasks.settings import TaskSettings, load_settings
from curator.tasks.store import REQUESTS_NAME, TaskStore, rev_name

if TYPE_CHECKING:
    from curator.writer.plan import Plan


def default_owner() -> str:
    """$CURATOR_AGENT, else user@host."""
    agent = os.environ.get("CURATOR_AGENT", "").strip()
    if agent:
        return agent
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "user"
    return f"{user}@{socket.gethostname() or 'localhost'}"


@dataclass(frozen=True)
class Outcome:
    """A change that was made: the new revision and what git made of it."""

    slug: str
    header: Header
    path: str
    committed: Committed

    def as_dict(self) -> dict[str, Any]:
        return {
            "task": self.slug,
            "revision": self.header.revision,
            "path": self.path,
            "header": self.header.as_dict(),
            "commit": self.committed.sha,
            "warning": self.committed.warning,
        }


@dataclass(frozen=True)
class Row:
    """One line of the task list, from the newest revision's header alone."""

    header: Header
    age: float | None  # seconds since the last save
    stale: bool  # claimed and not saved for longer than [tasks] stale_after
    lapsed: bool  # the claim has expired

    def as_dict(self) -> dict[str, Any]:
        return self.header.as_dict() | {
            "age_seconds": self.age,
            "stale": self.stale,
            "claim_lapsed": self.lapsed,
        }


class TaskService:
    def __init__(self, palace_root: Path | str, settings: TaskSettings | None = None) -> None:
        self.root = Path(palace_root)
        self.settings = settings or load_settings(self.root)
        self.store = TaskStore(self.root)
        self.rules = Tasks(self.store, self.settings.claim_ttl)

    # -- reading -----------------------------------------------------------------------------
    def show(self, slug: str, owner: str | None = None, revision: int | None = None) -> Checkpoint:
        """A revision (the newest by default); remembered as what `owner` last read."""
        checkpoint = self.store.read(slug, revision)
        if owner is not None and revision is None:
            self.store.mark_seen(owner, slug, checkpoint.header.revision)
        return checkpoint

    def rows(self, now: datetime | None = None) -> tuple[list[Row], list[TaskError]]:
        now = now or now_utc()
        rows: list[Row] = []
        broken: list[TaskError] = []
        for item in self.store.headers():
            if isinstance(item, TaskError):
                broken.append(item)
            else:
                rows.append(self.row(item, now))
        return rows, broken

    def row(self, header: Header, now: datetime) -> Row:
        saved = parse_time(header.saved_at)
        age = (now - saved).total_seconds() if saved else None
        claimed = header.owner is not None and header.status in OPEN_STATUSES
        stale = claimed and (age is None or age > self.settings.stale_after)
        lapsed = claimed and holder(header, now) is None
        return Row(header, age, stale, lapsed)

    def history(self, slug: str) -> list[Header]:
        return [self.store.header(slug, n) for n in self.store.revisions(slug)]

    def requests(self, slug: str) -> list[reqs.Request]:
        return self.read_requests(slug)[0]

    def read_requests(self, slug: str) -> tuple[list[reqs.Request], list[BadCheckpoint]]:
        """The person's requests, and a warning for each stretch of requests.md that is not
        one (a hand edit): the rest is still served."""
        self.store.header(slug)  # TaskNotFound for an unknown task
        try:
            data = self.store.requests_path(slug).read_bytes()
        except FileNotFoundError:
            return [], []
        return reqs.read(data, self.store.rel(slug, REQUESTS_NAME))

    def diff(self, slug: str, a: int, b: int) -> str:
        old = self.store.read_bytes(slug, a).decode("utf-8", "replace")
        new = self.store.read_bytes(slug, b).decode("utf-8", "replace")
        return "".join(
            difflib.unified_diff(
                old.splitlines(keepends=True),
                new.splitlines(keepends=True),
                fromfile=self.store.rel(slug, rev_name(a)),
                tofile=self.store.rel(slug, rev_name(b)),
            )
        )

    def current_for(self, owner: str) -> list[Header]:
        """The open tasks whose newest revision names `owner` as holder, lapsed claims too
        (nobody took them over), newest save first: the hooks' "your checkpoint"."""
        mine = [
            h
            for h in self.store.headers()
            if isinstance(h, Header) and h.status in OPEN_STATUSES and h.owner == owner
        ]
        return sorted(mine, key=lambda h: h.saved_at, reverse=True)

    # -- changing ----------------------------------------------------------------------------
    def _base(self, owner: str, slug: str, base: int | None) -> int | None:
        return base if base is not None else self.store.seen(owner, slug)

    def _done(self, saved: Saved, owner: str, status_changed: bool = False) -> Outcome:
        header = saved.header
        self.store.mark_seen(owner, saved.slug, header.revision)
        committed = Committed()
        if not self.settings.tracked:
            keep_out_of_git(self.root)
        elif should_commit(self.settings, header.event, status_changed):
            summary = f"{saved.slug} revision {header.revision}: {header.event} by {owner}"
            committed = commit_task(self.store, saved.slug, header.event, summary)
        rel = self.store.rel(saved.slug, rev_name(header.revision))
        return Outcome(saved.slug, header, rel, committed)

    def new(self, slug: str, objective: str, owner: str) -> Outcome:
        if not objective.strip():
            raise TaskError("a task needs an objective (--objective TEXT)")
        return self._done(self.rules.new(slug, objective, owner), owner)

    def save(
        self,
        slug: str,
        owner: str,
        markdown: str | dict[str, str],
        *,
        base: int | None = None,
        status: str | None = None,
        unverified: bool = False,
    ) -> Outcome:
        """Save a checkpoint: markdown with the seven headings, or the sections by key."""
        sections = (
            parse_sections(markdown) if isinstance(markdown, str) else check_sections(markdown)
        )
        saved = self.rules.save(
            slug,
            owner,
            sections,
            base=self._base(owner, slug, base),
            status=status,
            unverified=unverified,
        )
        changed = saved.previous is not None and saved.previous.status != saved.header.status
        return self._done(saved, owner, changed)

    def claim(
        self, slug: str, owner: str, *, base: int | None = None, take_over: bool = False
    ) -> Outcome:
        base = self._base(owner, slug, base)
        return self._done(self.rules.claim(slug, owner, base=base, take_over=take_over), owner)

    def release(
        self, slug: str, owner: str, *, base: int | None = None, force: bool = False
    ) -> Outcome:
        base = self._base(owner, slug, base)
        return self._done(self.rules.release(slug, owner, base=base, force=force), owner)

    def set_status(
        self, slug: str, owner: str, status: str, *, base: int | None = None, force: bool = False
    ) -> Outcome:
        base = self._base(owner, slug, base)
        saved = self.rules.set_status(slug, owner, status, base=base, force=force)
        return self._done(saved, owner, True)

    # -- the app: propose, show the plan, then write (refused if the task moved on meanwhile) --
    def propose(self, action: str, slug: str, owner: str, *, base: int) -> Pending:
        """A person's action from the Tasks screen: release a stuck claim, done, abandoned."""
        if action == "release":
            return self.rules.propose_release(slug, owner, base=base, force=True)
        return self.rules.propose_set_status(slug, owner, action, base=base, force=True)

    def plan(self, pending: Pending) -> Plan:
        """The writer's Plan of a pending change, for the plan dialog: the new revision and
        the task's saves that ride along in its commit."""
        from curator.writer.plan import Plan, Write, content_hash

        rel = self.store.rel(pending.slug, rev_name(pending.header.revision))
        changes = [Write(rel, pending.data(), None)]
        if self.settings.tracked:
            for other in self._riding_along(pending.slug):
                data = (self.root / other).read_bytes()
                changes.append(Write(other, data, content_hash(data)))
        h = pending.header
        return Plan(
            action=f"task-{h.event}",
            notes=(),
            reason="",
            summary=f"{pending.slug} revision {h.revision}: {h.event} by {h.by}",
            changes=tuple(changes),
            root=self.root,
        )

    def _riding_along(self, slug: str) -> list[str]:
        from curator.writer.plan import WriterError

        try:
            return untracked(self.root, slug)
        except WriterError:  # not a git repository: the commit will say so
            return []

    def apply(self, pending: Pending, owner: str) -> Outcome:
        changed = pending.previous is not None and pending.previous.status != pending.header.status
        return self._done(self.rules.write(pending), owner, changed)

    def request(self, slug: str, owner: str, words: bytes) -> tuple[reqs.Request, Committed]:
        """Append the person's words to requests.md, byte for byte, before work on them starts."""
        from filelock import FileLock

        self.store.header(slug)  # TaskNotFound for an unknown task
        path = self.store.requests_path(slug)
        rel = self.store.rel(slug, REQUESTS_NAME)
        with FileLock(str(self.store.temp_dir() / f"{slug}.requests.lock"), timeout=10):
            try:
                old: bytes | None = path.read_bytes()
            except FileNotFoundError:
                old = None
            request, data = reqs.append(old, slug, owner, words, stamp(now_utc()))
            committed = Committed()
            if self.settings.tracked:
                summary = f"{slug} request {request.number} from {owner}"
                committed = commit_task(
                    self.store, slug, "request", summary, extra=((rel, data, old),)
                )
            else:
                keep_out_of_git(self.root)
            if committed.sha is None:  # the writer did not write it: keep the words anyway
                atomic_write(path, data, temp_dir=self.store.temp_dir())
        return request, committed
