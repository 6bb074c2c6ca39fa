"""What the action planners share: finding the note or draft, free paths, INDEX.md, checks.

A planner is a pure function from a loaded palace to a Plan: it validates, builds the file
changes (byte-preserving header edits), adds the regenerated INDEX.md and the commit message,
and touches nothing on disk.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextvars import ContextVar
from datetime import date

from curator.errors import CuratorError
from curator.fsutil import note_bytes
from curator.model import palace_rules
from curator.model.check import run_checks
from curator.model.index_md import index_bytes, render_index_hashed
from curator.model.layouts import rules as layout_rules
from curator.model.links import RawLink, rewrite_links
from curator.model.note import Note, edit_header, parse_note, rewrite_header_strings
from curator.model.palace import INDEX_NAME, Palace
from curator.model.schema import slug_key
from curator.writer.committed import committed_at
from curator.writer.plan import Change, Plan, Write, content_hash, effects
from curator.writer.secrets import scan

REJECTED_DIR = ".curator/rejected"
PROMOTED_DIR = ".curator/promoted"
MERGED_DIR = ".curator/merged"
EDITED_DIR = ".curator/edited"  # a draft's text before an edit, for undo
DRAFT_ONLY_KEYS = ("status", "similar", "secrets", "secret", "flagged")


class ActionError(CuratorError):
    """An action that cannot be planned as asked; the message says why and what to do."""


# -- shared pieces ----------------------------------------------------------------------------
def slugify(text: str, limit: int = 80) -> str:
    """A file-name slug: lowercase ASCII words joined by hyphens."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return slug[:limit].rstrip("-") or "note"


def today_iso(today: date | None) -> str:
    return (today or date.today()).isoformat()


def require_one_line(value: str, what: str) -> str:
    """`value` with its whitespace folded; ActionError when it spans lines."""
    text = " ".join(value.split())
    if "\n" in value.strip() or "\r" in value.strip():
        raise ActionError(f"{what} must be one line")
    return text


def find_note(palace: Palace, ref: str) -> Note:
    note = palace.find(ref, kinds=("note",))
    if not note.ok:
        problem = note.problems[0].message if note.problems else "unreadable header"
        raise ActionError(f"cannot change {note.rel}: its header does not parse ({problem})")
    return note


def find_draft(palace: Palace, ref: str) -> Note:
    return palace.find(ref, kinds=("draft",))


def free_path(palace: Palace, folder: str, slug: str, taken: Iterable[str] = ()) -> str:
    """folder/slug.md, or folder/slug-2.md, ... when that exists on disk or is taken."""
    taken = set(taken)
    candidate = f"{folder}/{slug}.md"
    counter = 2
    while candidate in taken or (palace.root / candidate).exists():
        candidate = f"{folder}/{slug}-{counter}.md"
        counter += 1
    return candidate


def edit_note(palace: Palace, note: Note, updates: Mapping[str, object]) -> bytes:
    """`edit_header`, with the fields the palace's layout has no place for under `curator:`."""
    if palace.foreign_layout:
        return edit_header(note, layout_rules.route(palace.config, note, dict(updates)))
    return edit_header(note, updates)


#: True while `plan_bulk` plans its drafts or notes one by one: it renders the generated index
#: once, for the end state, and drops the one each plan would render (10k notes' INDEX.md,
#: most of a bulk plan's time when rendered a draft). Row: "bulk plan" in
#: benchmarks/bench_tuning.py, with and without in the same run
INDEX_DEFERRED: ContextVar[bool] = ContextVar("curator_index_deferred", default=False)


def with_index(
    palace: Palace, changes: list[Change], today: date | None, *, complete: bool = False
) -> tuple[Change, ...]:
    """The changes plus INDEX.md regenerated for the palace as it will be after them (in
    another tool's layout: its own generated index, e.g. MEMORY.md, edited for the notes the
    changes add or remove, or for all of them when `complete`; INDEX.md only once curator has
    written one). The changes alone while INDEX_DEFERRED is set."""
    if INDEX_DEFERRED.get():
        return tuple(changes)
    # rendered from what the commit will hold: a note on disk git does not have (written by
    # hand, never committed) is not named in the INDEX.md pushed to the team
    base, head = committed_at(palace)
    after = base.replaced(effects(palace.root, changes))
    if palace.foreign_layout:
        own = palace_rules.generated_index(palace, after, complete=complete)
        if own is not None:
            rel, now, rendered_own = own
            if now != rendered_own:
                before_own = None if now is None else content_hash(now)
                changes = [*changes, Write(rel, rendered_own, before_own, head)]
        if index_bytes(palace) is None:
            return tuple(changes)
    existing = index_bytes(palace)
    # the expected pre-image is the INDEX.md the palace was loaded with, not the file now:
    # if another action landed since, apply sees the difference and INDEX.md is redone.
    # Each file hashed once, its hash handed on (25 MB at 100k notes)
    before = None if existing is None else content_hash(existing)
    rendered, after_sha = render_index_hashed(after, existing, since=base, existing_sha=before)
    if existing != rendered:
        changes = [*changes, Write(INDEX_NAME, rendered, before, head, data_sha=after_sha)]
    return tuple(changes)


def make_plan(
    palace: Palace,
    action: str,
    notes: Sequence[str],
    reason: str,
    summary: str,
    changes: list[Change],
    today: date | None,
    trailers: Sequence[tuple[str, str]] = (),
) -> Plan:
    planned = with_index(palace, changes, today)
    return Plan(
        action=action,
        notes=tuple(notes),
        reason=reason,
        summary=summary,
        changes=planned,
        trailers=(*trailers, *index_notices(palace, planned)),
        root=palace.root,
    )


def index_notices(palace: Palace, changes: Sequence[Change]) -> list[tuple[str, str]]:
    """A `Curator-Index-Cap` trailer when the action writes the layout's own index (MEMORY.md)
    past what its tool loads: the plan and the commit say where the new entry went."""
    if not palace.foreign_layout:
        return []
    rel = layout_rules.index_name(palace.config)
    out = []
    for change in changes:
        if isinstance(change, Write) and change.path == rel:
            before = index_before(palace, rel)
            notice = palace_rules.index_cap_notice(palace, before, change.data)
            if notice:
                out.append(("Curator-Index-Cap", notice))
    return out


def index_before(palace: Palace, rel: str) -> bytes | None:
    try:
        return (palace.root / rel).read_bytes()
    except FileNotFoundError:
        return None


def errors_for(
    palace: Palace, changes: Mapping[str, bytes | None], rels: Iterable[str]
) -> list[str]:
    """Check errors the changed notes would have (links and index aside).

    Only the notes that can bear on those errors are checked (the changed notes as they would
    be, the notes sharing a name with one, and the supersede chains they start, with every note
    sharing a slug on the way): checking the whole palace took ~300 ms at 10,000 notes.
    """
    after = palace.replaced(changes)
    wanted = {rel for rel in rels if rel in after.by_rel}
    related: dict[str, Note] = {}
    for rel in sorted(wanted):
        note = after.by_rel[rel]
        related[rel] = note
        if not note.ok:
            continue
        for other in after.named(note.name):
            related.setdefault(other.rel, other)
        current, seen = note, {note.rel}
        while current.ok and current.superseded_by:
            key = slug_key(current.superseded_by)
            matches = after._by_slug.get(key, [])
            for match in matches:
                related.setdefault(match.rel, match)
            if len(matches) != 1 or matches[0].rel in seen:
                break
            current = matches[0]
            seen.add(current.rel)
    subset = Palace(
        after.root,
        after.config,
        [n for n in related.values() if n.kind == "note"],
        [n for n in related.values() if n.kind == "draft"],
        [f for f in after.problems if f.path in wanted],
        layout=after.layout,
    )
    return [
        f.format()
        for f in run_checks(subset, with_index=False)
        if f.path in wanted and f.severity == "error" and not f.code.startswith("link.")
    ]


def resolver(palace: Palace, source_rel: str) -> Callable[[RawLink], str | None]:
    return lambda raw: palace.resolve(source_rel, raw)


def inbound(palace: Palace, note: Note) -> list[str]:
    """Where other notes link to `note`: 'path:line' strings, sorted."""
    return sorted(f"{link.source}:{link.raw.line}" for link in palace.backlinks(note))


def relinked(palace: Palace, old: Note, new_rel: str, skip: Iterable[str] = ()) -> dict[str, bytes]:
    """Rewrite every link to `old` in other notes so it points at `new_rel`."""
    out: dict[str, bytes] = {}
    skipped = set(skip)
    for source_rel in sorted({link.source for link in palace.backlinks(old)}):
        if source_rel in skipped:
            continue
        data = relink(palace, palace.by_rel[source_rel], old.rel, new_rel)
        if data is not None:
            out[source_rel] = data
    return out


def relink_over(palace: Palace, rel: str, data: bytes, old_rel: str, new_rel: str) -> bytes:
    """`relink` on bytes an earlier step of the same plan wrote for `rel` (read as the layout
    reads them: a vault note without front matter is all body)."""
    note = layout_rules.adapt_all([parse_note(rel, data, "note")], palace.config, palace.layout)[0]
    return relink(palace, note, old_rel, new_rel) or data


def relink(palace: Palace, note: Note, old_rel: str, new_rel: str) -> bytes | None:
    """The note's bytes with every link to `old_rel` pointing at `new_rel`: in its body, and
    in its header's values where the layout reads links there (`up: "[[Old]]"`), every other
    byte kept; None when no link changes."""
    resolve = resolver(palace, note.rel)
    text = note.text
    layout = layout_rules.layout_of(palace.config)
    if layout.property_links:

        def wiki(raw: RawLink) -> str | None:  # a property's links are wikilinks only
            return resolve(raw) if raw.kind == "wiki" else None

        def rewrite(value: str) -> str:
            return rewrite_links(value, note.rel, wiki, old_rel, new_rel)[0]

        text = rewrite_header_strings(note, rewrite)
    header_end = note.header_end + len(text) - len(note.text)
    body, count = rewrite_links(
        note.body, note.rel, resolve, old_rel, new_rel, any_md=layout.bare_md_links
    )
    if not count and text == note.text:
        return None
    return note_bytes(text[:header_end] + body, note.bom)


def secrets_in(draft: Note) -> list[str]:
    """What the secret scanner flags anywhere in the draft's file (header fields such as
    `description:` and `context:` leave the machine as the body does), or the capture's flag."""
    found = [f"{hit.kind} (line {hit.line})" for hit in scan(draft.text)]
    flagged = (
        draft.header.get("secrets") or draft.header.get("secret") or draft.header.get("flagged")
    )
    if flagged and not found:
        found.append("flagged at capture")
    return found
