"""Who may change a task, and how: one owner at a time, nothing done from a stale view.

Every change names the revision its caller last read (`base`). The change is allowed only when
that is still the newest revision and the rules below hold; it is then written as revision
base+1 by exclusive create, so of two callers that read the same revision exactly one gets
through and the other is told who did (compare-and-swap, across processes, with no lock).

- claim: a task nobody holds, or one the caller holds already (renews it); someone else's
  claim that has lapsed only with take_over, recorded with both owners.
- save: only by the holder (a lapsed claim that nobody took over still counts); renews it.
- release: by the holder, or by anyone with force (a person freeing a stuck claim).
- status (done, abandoned, waiting, active): by the holder, or anyone when nobody holds it
  (or with force); done and abandoned end the claim.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from curator.tasks.checkpoint import (
    OPEN_STATUSES,
    SECTION_KEYS,
    STATUSES,
    Header,
    first_line,
    render,
)
from curator.tasks.errors import Refused, StaleView, TaskError
from curator.tasks.store import TaskStore


@dataclass(frozen=True)
class Saved:
    """A revision that was just written."""

    slug: str
    header: Header
    path: Path
    previous: Header | None


@dataclass(frozen=True)
class Pending:
    """A revision decided on but not yet written: what a plan dialog shows before it is."""

    slug: str
    previous: Header | None
    header: Header
    sections: dict[str, str]

    def data(self) -> bytes:
        return render(self.header, self.sections)


def now_utc() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def age_text(seconds: float | None) -> str:
    """A short age for a list: 45s, 12m, 3h, 2d."""
    if seconds is None:
        return "?"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(max(seconds, 0))}s"


def holder(header: Header, now: datetime) -> str | None:
    """Who holds the task now: its owner while the claim has not lapsed."""
    if header.owner is None:
        return None
    expires = parse_time(header.expires_at)
    return header.owner if expires is None or expires > now else None


def check_owner(owner: str) -> str:
    text = (owner or "").strip()
    if not text or len(text) > 120 or any(ord(c) < 32 or c == "\x7f" for c in text):
        raise TaskError(f"bad owner {owner!r}: one line of at most 120 printable characters")
    return text


def _describe(h: Header) -> str:
    who = f"held by {h.owner}" if h.owner else "held by nobody"
    return f"revision {h.revision} ({h.event} by {h.by or h.owner or 'unknown'}, {who})"


class Tasks:
    """The ownership rules over one palace's task store."""

    def __init__(self, store: TaskStore, claim_ttl: float) -> None:
        self.store = store
        self.ttl = timedelta(seconds=claim_ttl)

    # -- the compare-and-swap ------------------------------------------------------------------
    def _current(self, slug: str, base: int | None) -> Header:
        head = self.store.header(slug)
        if base is None:
            raise StaleView(
                f"say which revision of task {slug!r} you read (it is at revision "
                f"{head.revision}): read it with `curator task show {slug}` first",
                owner=head.owner,
            )
        if base != head.revision:
            raise StaleView(
                f"task {slug!r} moved on since you read revision {base}: it is at "
                f"{_describe(head)}; read it again before acting",
                owner=head.owner,
            )
        return head

    def write(self, pending: Pending) -> Saved:
        """Write the pending revision by exclusive create: refused when another session wrote
        that revision number first (it read the same revision and got there before)."""
        slug, prev, header = pending.slug, pending.previous, pending.header
        try:
            path = self.store.create(slug, header.revision, pending.data())
        except FileExistsError:
            won = self.store.header(slug, header.revision)
            raise StaleView(
                f"another session changed task {slug!r} first: {_describe(won)}; "
                "read it again before acting",
                owner=won.owner,
            ) from None
        return Saved(slug, header, path, prev)

    def _next(self, prev: Header, by: str, event: str, now: datetime, **fields: object) -> Header:
        base = replace(
            prev,
            revision=prev.revision + 1,
            saved_at=stamp(now),
            event=event,
            by=by,
            unverified=False,
            taken_over_from=None,
        )
        return replace(base, **fields)  # type: ignore[arg-type]

    def _sections(self, slug: str, number: int) -> dict[str, str]:
        return dict(self.store.read(slug, number).sections)

    # -- actions ----------------------------------------------------------------------------
    def new(self, slug: str, objective: str, owner: str, now: datetime | None = None) -> Saved:
        """Revision 1 of a new task, claimed by its creator."""
        owner, now = check_owner(owner), now or now_utc()
        if self.store.exists(slug):
            raise Refused(f"task {slug!r} exists already (see `curator task show {slug}`)")
        header = Header(
            task=slug,
            revision=1,
            owner=owner,
            saved_at=stamp(now),
            status="active",
            claimed_at=stamp(now),
            expires_at=stamp(now + self.ttl),
            event="new",
            by=owner,
        )
        sections = {key: "" for key in SECTION_KEYS} | {"objective": objective.strip()}
        try:
            path = self.store.create(slug, 1, render(header, sections))
        except FileExistsError:
            raise Refused(f"task {slug!r} was just created by another session") from None
        return Saved(slug, header, path, None)

    def propose_save(
        self,
        slug: str,
        owner: str,
        sections: dict[str, str],
        *,
        base: int | None,
        status: str | None = None,
        unverified: bool = False,
        now: datetime | None = None,
    ) -> Pending:
        owner, now = check_owner(owner), now or now_utc()
        prev = self._current(slug, base)
        if prev.status not in OPEN_STATUSES:
            raise Refused(f"task {slug!r} is {prev.status}; a closed task takes no saves")
        if status is not None and status not in OPEN_STATUSES:
            raise TaskError(f"a save sets status {' or '.join(OPEN_STATUSES)}, not {status!r}")
        if prev.owner != owner:
            if prev.owner is None:
                raise Refused(
                    f"nobody holds task {slug!r}: claim it first (`curator task claim {slug}`)"
                )
            raise Refused(
                f"{prev.owner} holds task {slug!r}; only the holder saves it", owner=prev.owner
            )
        header = self._next(
            prev,
            owner,
            "save",
            now,
            status=status or prev.status,
            unverified=unverified,
            expires_at=stamp(now + self.ttl),
            next_action=first_line(sections.get("next_action", "")),
        )
        return Pending(slug, prev, header, sections)

    def propose_claim(
        self,
        slug: str,
        owner: str,
        *,
        base: int | None,
        take_over: bool = False,
        now: datetime | None = None,
    ) -> Pending:
        owner, now = check_owner(owner), now or now_utc()
        prev = self._current(slug, base)
        if prev.status not in OPEN_STATUSES:
            raise Refused(f"task {slug!r} is {prev.status}; there is nothing to claim")
        event, fields = "claim", {}
        if prev.owner is not None and prev.owner != owner:
            if holder(prev, now) is not None:
                raise Refused(
                    f"{prev.owner} holds task {slug!r} until {prev.expires_at}; "
                    "ask them to release it",
                    owner=prev.owner,
                )
            if not take_over:
                raise Refused(
                    f"{prev.owner}'s claim on task {slug!r} lapsed at {prev.expires_at}; "
                    "pass --take-over to take the task over",
                    owner=prev.owner,
                )
            event, fields = "take-over", {"taken_over_from": prev.owner}
        header = self._next(
            prev,
            owner,
            event,
            now,
            owner=owner,
            claimed_at=stamp(now),
            expires_at=stamp(now + self.ttl),
            **fields,
        )
        return Pending(slug, prev, header, self._sections(slug, prev.revision))

    def propose_release(
        self,
        slug: str,
        owner: str,
        *,
        base: int | None,
        force: bool = False,
        now: datetime | None = None,
    ) -> Pending:
        owner, now = check_owner(owner), now or now_utc()
        prev = self._current(slug, base)
        if prev.owner is None:
            raise Refused(f"nobody holds task {slug!r}; there is nothing to release")
        if prev.owner != owner and not force:
            raise Refused(
                f"{prev.owner} holds task {slug!r}; only the holder releases it "
                "(a person frees a stuck claim with --force)",
                owner=prev.owner,
            )
        header = self._next(
            prev, owner, "release", now, owner=None, claimed_at=None, expires_at=None
        )
        return Pending(slug, prev, header, self._sections(slug, prev.revision))

    def propose_set_status(
        self,
        slug: str,
        owner: str,
        status: str,
        *,
        base: int | None,
        force: bool = False,
        now: datetime | None = None,
    ) -> Pending:
        owner, now = check_owner(owner), now or now_utc()
        if status not in STATUSES:
            raise TaskError(f"unknown status {status!r} (known: {', '.join(STATUSES)})")
        prev = self._current(slug, base)
        other = holder(prev, now)
        if other is not None and other != owner and not force:
            raise Refused(
                f"{other} holds task {slug!r}; the holder changes its status "
                "(or release the claim first)",
                owner=other,
            )
        fields: dict[str, object] = {"status": status}
        if status not in OPEN_STATUSES:
            fields |= {"owner": None, "claimed_at": None, "expires_at": None}
        header = self._next(prev, owner, status, now, **fields)
        return Pending(slug, prev, header, self._sections(slug, prev.revision))

    # each action, proposed and written at once (the CLI, the MCP tools)
    def save(self, *args: Any, **kwargs: Any) -> Saved:
        return self.write(self.propose_save(*args, **kwargs))

    def claim(self, *args: Any, **kwargs: Any) -> Saved:
        return self.write(self.propose_claim(*args, **kwargs))

    def release(self, *args: Any, **kwargs: Any) -> Saved:
        return self.write(self.propose_release(*args, **kwargs))

    def set_status(self, *args: Any, **kwargs: Any) -> Saved:
        return self.write(self.propose_set_status(*args, **kwargs))
