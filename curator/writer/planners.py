"""One planner per curation action: pure functions from a loaded palace to a Plan.

A planner validates, builds the file changes (byte-preserving header edits), adds the
regenerated INDEX.md and the commit message, and touches nothing on disk. The app shows the
Plan as a diff; `curator.writer.session.commit` applies it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date
from typing import Any

from curator.errors import CuratorError
from curator.model.check import MAX_TAGS, run_checks
from curator.model.header import DELETE
from curator.model.index_md import index_bytes, render_index
from curator.model.links import RawLink, rewrite_links
from curator.model.note import DRAFT_BANNER, Note, edit_header, new_note_text, parse_note
from curator.model.palace import INBOX_DIR, INDEX_NAME, NOTES_DIR, Palace
from curator.writer.plan import Change, Move, Plan, Write, content_hash, effects, encode_restore

REJECTED_DIR = ".curator/rejected"
PROMOTED_DIR = ".curator/promoted"
MERGED_DIR = ".curator/merged"
_DRAFT_ONLY_KEYS = ("status", "similar", "secrets", "secret", "flagged")


class ActionError(CuratorError):
    """An action that cannot be planned as asked; the message says why and what to do."""


# -- shared pieces ----------------------------------------------------------------------------
def slugify(text: str, limit: int = 80) -> str:
    """A file-name slug: lowercase ASCII words joined by hyphens."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return slug[:limit].rstrip("-") or "note"


def _today(today: date | None) -> str:
    return (today or date.today()).isoformat()


def _one_line(value: str, what: str) -> str:
    text = " ".join(value.split())
    if "\n" in value.strip() or "\r" in value.strip():
        raise ActionError(f"{what} must be one line")
    return text


def _note(palace: Palace, ref: str) -> Note:
    note = palace.find(ref, kinds=("note",))
    if not note.ok:
        problem = note.problems[0].message if note.problems else "unreadable header"
        raise ActionError(f"cannot change {note.rel}: its header does not parse ({problem})")
    return note


def _draft(palace: Palace, ref: str) -> Note:
    return palace.find(ref, kinds=("draft",))


def _free_path(palace: Palace, folder: str, slug: str, taken: Iterable[str] = ()) -> str:
    """folder/slug.md, or folder/slug-2.md, ... when that exists on disk or is taken."""
    taken = set(taken)
    candidate = f"{folder}/{slug}.md"
    counter = 2
    while candidate in taken or (palace.root / candidate).exists():
        candidate = f"{folder}/{slug}-{counter}.md"
        counter += 1
    return candidate


def with_index(palace: Palace, changes: list[Change], today: date | None) -> tuple[Change, ...]:
    """The changes plus INDEX.md regenerated for the palace as it will be after them."""
    after = palace.replaced(effects(palace.root, changes))
    existing = index_bytes(palace)
    rendered = render_index(after, existing, today).encode("utf-8")
    if existing != rendered:
        # the expected pre-image is the INDEX.md the palace was loaded with, not the file now:
        # if another action landed since, apply sees the difference and INDEX.md is redone
        before = None if existing is None else content_hash(existing)
        changes = [*changes, Write(INDEX_NAME, rendered, before)]
    return tuple(changes)


def _plan(
    palace: Palace,
    action: str,
    notes: Sequence[str],
    reason: str,
    summary: str,
    changes: list[Change],
    today: date | None,
    trailers: Sequence[tuple[str, str]] = (),
) -> Plan:
    return Plan(
        action=action,
        notes=tuple(notes),
        reason=reason,
        summary=summary,
        changes=with_index(palace, changes, today),
        trailers=tuple(trailers),
        root=palace.root,
    )


def _errors_for(
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
        for other in after._by_name.get(note.name.casefold(), []):
            related.setdefault(other.rel, other)
        current, seen = note, {note.rel}
        while current.ok and current.superseded_by:
            key = current.superseded_by.casefold().removesuffix(".md")
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
    )
    return [
        f.format()
        for f in run_checks(subset, with_index=False)
        if f.path in wanted and f.severity == "error" and not f.code.startswith("link.")
    ]


def _strip_banner(body: str) -> str:
    lines = body.splitlines(keepends=True)
    while lines and not lines[0].strip():
        lines.pop(0)
    if lines and lines[0].strip() == DRAFT_BANNER.strip():
        lines.pop(0)
        while lines and not lines[0].strip():
            lines.pop(0)
    return "".join(lines)


def _resolver(palace: Palace, source_rel: str) -> Callable[[RawLink], str | None]:
    return lambda raw: palace.resolve(source_rel, raw)


def inbound(palace: Palace, note: Note) -> list[str]:
    """Where other notes link to `note`: 'path:line' strings, sorted."""
    return sorted(f"{link.source}:{link.raw.line}" for link in palace.backlinks(note))


def _relink(palace: Palace, old: Note, new_rel: str, skip: Iterable[str] = ()) -> dict[str, bytes]:
    """Rewrite every link to `old` in other notes so it points at `new_rel`."""
    out: dict[str, bytes] = {}
    skipped = set(skip)
    for source_rel in sorted({link.source for link in palace.backlinks(old)}):
        if source_rel in skipped:
            continue
        source = palace.by_rel[source_rel]
        body, count = rewrite_links(
            source.body,
            source.rel,
            _resolver(palace, source.rel),
            old.rel,
            new_rel,
        )
        if count:
            out[source_rel] = source.text[: source.header_end].encode("utf-8") + body.encode(
                "utf-8"
            )
            if source.bom:
                out[source_rel] = b"\xef\xbb\xbf" + out[source_rel]
    return out


def _secrets_in(draft: Note) -> list[str]:
    from curator.writer.secrets import scan

    found = [f"{hit.kind} (line {hit.line + draft.body_line - 1})" for hit in scan(draft.body)]
    flagged = (
        draft.header.get("secrets") or draft.header.get("secret") or draft.header.get("flagged")
    )
    if flagged and not found:
        found.append("flagged at capture")
    return found


# -- promote ----------------------------------------------------------------------------------
def promote_fields(palace: Palace, draft: Note, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The header a promoted draft would get: the draft's fields with the overrides applied."""
    header = dict(draft.header)
    for key, value in overrides.items():
        if value is not None and value != "":
            header[key] = value
    spec = palace.config.type_spec(header.get("type"))
    if "confidence" not in header and spec is not None:
        header["confidence"] = spec.default_confidence
    return header


def validate_promote(palace: Palace, draft_ref: str, fields: Mapping[str, Any]) -> list[str]:
    """Problems with promoting the draft with these field values (for live form validation)."""
    try:
        draft = _draft(palace, draft_ref)
    except CuratorError as exc:
        return [str(exc)]
    if not draft.ok:
        problem = draft.problems[0].message if draft.problems else "unreadable header"
        return [f"the draft's header does not parse ({problem}): fix the file first"]
    header = promote_fields(palace, draft, fields)
    problems: list[str] = []
    name = header.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.append("name is required")
    elif "\n" in name.strip():
        problems.append("name must be one line")
    else:
        clash = next(iter(palace._by_name.get(name.strip().casefold(), [])), None)
        if clash is not None:
            problems.append(f"a note named {name.strip()!r} already exists: {clash.rel}")
    description = header.get("description")
    if not isinstance(description, str) or not description.strip():
        problems.append("description is required (one line)")
    elif "\n" in description.strip():
        problems.append("description must be one line")
    type_name = header.get("type")
    spec = palace.config.type_spec(type_name)
    if spec is None:
        problems.append(f"type must be one of {', '.join(palace.config.types)} (got {type_name!r})")
    confidence = header.get("confidence")
    if not isinstance(confidence, (int, float)) or isinstance(confidence, bool):
        problems.append("confidence must be a number from 0 to 1")
    elif spec is not None and not spec.confidence[0] <= confidence <= spec.confidence[1]:
        lo, hi = spec.confidence
        problems.append(f"confidence {confidence} is outside the {spec.name} range {lo}–{hi}")
    scope = header.get("scope")
    if scope is not None and scope not in palace.config.scopes:
        problems.append(f"scope must be one of {', '.join(palace.config.scopes)} (got {scope!r})")
    tags = header.get("tags")
    if tags is not None and (not isinstance(tags, list) or len(tags) > MAX_TAGS):
        problems.append(f"tags must be a list of at most {MAX_TAGS} words")
    return problems


def plan_promote(
    palace: Palace,
    draft_ref: str,
    *,
    type: str | None = None,
    name: str | None = None,
    description: str | None = None,
    confidence: float | None = None,
    scope: str | None = None,
    allow_secret: bool = False,
    supersedes: str | None = None,
    reason: str = "",
    today: date | None = None,
) -> Plan:
    """Move a draft into notes/<type>/ with a checked header; optionally superseding a note."""
    draft = _draft(palace, draft_ref)
    overrides: dict[str, Any] = {
        "type": type,
        "name": _one_line(name, "name") if name else None,
        "description": _one_line(description, "description") if description else None,
        "confidence": confidence,
        "scope": scope,
    }
    problems = validate_promote(palace, draft.rel, overrides)
    if problems:
        raise ActionError(f"cannot promote {draft.rel}: " + "; ".join(problems))
    secrets = _secrets_in(draft)
    if secrets and not allow_secret:
        raise ActionError(
            f"cannot promote {draft.rel}: it looks like it holds a secret ({', '.join(secrets)}). "
            "Remove it from the draft, or pass --allow-secret if it is not one."
        )
    header = promote_fields(palace, draft, overrides)
    updates: dict[str, Any] = {k: header[k] for k in ("name", "description", "type", "confidence")}
    if scope:
        updates["scope"] = scope
    for key in _DRAFT_ONLY_KEYS:
        if key in draft.header:
            updates[key] = DELETE
    updates["reviewed"] = _today(today)
    if not draft.header.get("created"):
        updates["created"] = _today(today)
    edited = parse_note(draft.rel, edit_header(draft, updates), "draft")
    data = edited.text[: edited.header_end] + _strip_banner(edited.body)
    note_bytes = (b"\xef\xbb\xbf" if draft.bom else b"") + data.encode("utf-8")

    dest = _free_path(palace, f"{NOTES_DIR}/{header['type']}", slugify(str(header["name"])))
    parked = _free_path(palace, PROMOTED_DIR, draft.slug)
    changes: list[Change] = [
        Move.from_disk(palace.root, draft.rel, parked),
        Write.from_disk(palace.root, dest, note_bytes),
    ]
    trailers = [("Curator-Restore", encode_restore(draft.rel, parked))]
    notes = [dest]
    summary = str(header["name"])
    if supersedes:
        old = _note(palace, supersedes)
        new_slug = dest.rsplit("/", 1)[-1][:-3]
        after_new = parse_note(dest, note_bytes, "note")
        note_bytes = edit_header(after_new, {"supersedes": [old.slug]})
        changes[1] = Write.from_disk(palace.root, dest, note_bytes)
        changes.append(
            Write.from_disk(
                palace.root,
                old.rel,
                edit_header(old, {"status": "superseded", "superseded_by": new_slug}),
            )
        )
        notes.append(old.rel)
        summary += f" (supersedes {old.name})"
    errors = _errors_for(palace, effects(palace.root, changes), [dest])
    if errors:
        raise ActionError(f"cannot promote {draft.rel}: " + "; ".join(errors))
    return _plan(
        palace,
        "promote",
        notes,
        reason or f"Reviewed draft {draft.rel}.",
        summary,
        changes,
        today,
        trailers,
    )


# -- reject ------------------------------------------------------------------------------------
def plan_reject(palace: Palace, draft_ref: str, reason: str, *, today: date | None = None) -> Plan:
    """Move a draft out of the inbox into .curator/rejected/ (kept, restorable by undo)."""
    if not reason or not reason.strip():
        raise ActionError("a reason is required to reject a draft (--reason)")
    draft = _draft(palace, draft_ref)
    dest = _free_path(palace, REJECTED_DIR, draft.slug)
    changes: list[Change] = [Move.from_disk(palace.root, draft.rel, dest)]
    return _plan(
        palace,
        "reject",
        [draft.rel],
        reason,
        draft.name if draft.ok else draft.slug,
        changes,
        today,
        [("Curator-Restore", encode_restore(draft.rel, dest))],
    )


# -- edit --------------------------------------------------------------------------------------
def plan_edit(
    palace: Palace, ref: str, new_bytes: bytes, *, reason: str = "", today: date | None = None
) -> Plan:
    """Replace a note's (or draft's) whole text, refusing text that would not validate."""
    note = palace.find(ref)
    parsed = parse_note(note.rel, new_bytes, note.kind)
    errors = [f.format() for f in parsed.problems if f.severity == "error"]
    if not errors and note.kind == "note":
        errors = _errors_for(palace, {note.rel: new_bytes}, [note.rel])
    if errors:
        raise ActionError(f"the edited {note.rel} does not validate: " + "; ".join(errors))
    if new_bytes == (b"\xef\xbb\xbf" if note.bom else b"") + note.text.encode("utf-8"):
        raise ActionError(f"no change to {note.rel}")
    changes: list[Change] = [Write.from_disk(palace.root, note.rel, new_bytes)]
    return _plan(
        palace, "edit", [note.rel], reason or "Edited by hand.", parsed.name, changes, today
    )


# -- supersede ---------------------------------------------------------------------------------
def plan_supersede(
    palace: Palace,
    old_ref: str,
    new_ref: str,
    *,
    relink: bool = False,
    reason: str = "",
    today: date | None = None,
) -> Plan:
    """OLD gets status superseded and superseded_by NEW; NEW gets supersedes OLD."""
    old, new = _note(palace, old_ref), _note(palace, new_ref)
    if old.rel == new.rel:
        raise ActionError("a note cannot supersede itself")
    if new.superseded:
        raise ActionError(f"{new.rel} is itself superseded; supersede with the current note")
    if old.superseded:
        raise ActionError(
            f"{old.rel} is already superseded (by {old.superseded_by or 'nothing: retired'})"
        )
    if any(n.rel == old.rel for n in palace.chain(new)):
        raise ActionError(f"{new.rel} already descends from {old.rel}: that would make a cycle")
    new_supersedes = [*new.supersedes, old.slug]
    changes: dict[str, bytes] = {
        old.rel: edit_header(old, {"status": "superseded", "superseded_by": new.slug}),
        new.rel: edit_header(new, {"supersedes": new_supersedes}),
    }
    if relink:
        for rel, data in _relink(palace, old, new.rel, skip=[old.rel]).items():
            if rel == new.rel:
                body, _ = rewrite_links(
                    parse_note(rel, changes[rel], "note").body,
                    rel,
                    _resolver(palace, rel),
                    old.rel,
                    new.rel,
                )
                edited = parse_note(rel, changes[rel], "note")
                changes[rel] = edited.text[: edited.header_end].encode("utf-8") + body.encode(
                    "utf-8"
                )
            else:
                changes[rel] = data
    write_list: list[Change] = [
        Write.from_disk(palace.root, rel, data) for rel, data in changes.items()
    ]
    links = inbound(palace, old)
    why = reason or f"{new.name} replaces {old.name}."
    if links and not relink:
        why += "\n\nLinks that still point at the old note: " + ", ".join(links)
    return _plan(
        palace, "supersede", [old.rel, new.rel], why, f"{old.name} -> {new.name}", write_list, today
    )


# -- merge -------------------------------------------------------------------------------------
def plan_merge(
    palace: Palace,
    refs: Sequence[str],
    into_name: str,
    *,
    description: str | None = None,
    type: str | None = None,
    reason: str = "",
    today: date | None = None,
) -> Plan:
    """One new note from several: merged_from, combined bodies; sources superseded, links moved."""
    sources = [_note(palace, ref) for ref in refs]
    if len(sources) < 2:
        raise ActionError("merge needs at least two notes")
    if len({s.rel for s in sources}) != len(sources):
        raise ActionError("the same note is named twice")
    for src in sources:
        if src.superseded:
            raise ActionError(f"{src.rel} is already superseded; merge current notes only")
    name = _one_line(into_name, "the merged note's name")
    if not name:
        raise ActionError("the merged note needs a name (--into NAME)")
    if any(n.ok and n.name.casefold() == name.casefold() for n in palace.notes):
        raise ActionError(f"a note named {name!r} already exists")
    types = {s.type for s in sources}
    type_name = type or (types.pop() if len(types) == 1 else None)
    if type_name is None:
        raise ActionError(
            f"the notes have different types ({', '.join(sorted(types))}): choose one with --type"
        )
    spec = palace.config.type_spec(type_name)
    if spec is None:
        raise ActionError(f"unknown type {type_name!r} (known: {', '.join(palace.config.types)})")
    confidence = min(palace.confidence(s) for s in sources)
    confidence = min(max(confidence, spec.confidence[0]), spec.confidence[1])
    tags: list[str] = []
    for src in sources:
        tags.extend(t for t in src.tags if t not in tags)
    scopes = {s.header.get("scope") for s in sources if s.header.get("scope")}
    header: dict[str, Any] = {
        "name": name,
        "description": _one_line(description, "description")
        if description
        else sources[0].description,
        "type": type_name,
        "confidence": round(confidence, 4),
        "created": _today(today),
        "reviewed": _today(today),
        "merged_from": [s.slug for s in sources],
    }
    if len(scopes) == 1:
        header["scope"] = scopes.pop()
    if tags:
        header["tags"] = tags[:MAX_TAGS]
    body = "\n".join(f"## From {s.name}\n\n{s.body.strip()}\n" for s in sources)
    dest = _free_path(palace, f"{NOTES_DIR}/{type_name}", slugify(name))
    new_slug = dest.rsplit("/", 1)[-1][:-3]
    changes: dict[str, bytes] = {dest: new_note_text(header, body).encode("utf-8")}
    for src in sources:
        changes[src.rel] = edit_header(src, {"status": "superseded", "superseded_by": new_slug})
    source_rels = {s.rel for s in sources}
    for src in sources:
        for rel, data in _relink(palace, src, dest, skip=source_rels).items():
            if rel in changes:  # a note linking to two sources: relink on top of the first pass
                current = parse_note(rel, changes[rel], "note")
                body2, _ = rewrite_links(current.body, rel, _resolver(palace, rel), src.rel, dest)
                changes[rel] = current.text[: current.header_end].encode("utf-8") + body2.encode(
                    "utf-8"
                )
            else:
                changes[rel] = data
    errors = _errors_for(palace, changes, [dest])
    if errors:
        raise ActionError("the merged note would not validate: " + "; ".join(errors))
    write_list: list[Change] = [
        Write.from_disk(palace.root, rel, data) for rel, data in changes.items()
    ]
    return _plan(
        palace,
        "merge",
        [dest, *(s.rel for s in sources)],
        reason or f"Merged {len(sources)} notes into one; edit the combined body.",
        f"{name} (from {', '.join(s.name for s in sources)})",
        write_list,
        today,
    )


def plan_merge_draft(
    palace: Palace, draft_ref: str, into_ref: str, *, reason: str = "", today: date | None = None
) -> Plan:
    """Fold a draft into an existing note: its body is appended for the reviewer to edit."""
    draft = _draft(palace, draft_ref)
    target = _note(palace, into_ref)
    if not draft.ok:
        raise ActionError(f"cannot merge {draft.rel}: its header does not parse")
    secrets = _secrets_in(draft)
    if secrets:
        raise ActionError(
            f"cannot merge {draft.rel}: it looks like it holds a secret ({', '.join(secrets)})"
        )
    addition = _strip_banner(draft.body).strip()
    when = draft.created[:10] or _today(today)
    body = (
        target.body.rstrip("\n")
        + f"\n\n## Merged from draft: {draft.name} ({when})\n\n{addition}\n"
    )
    edited = parse_note(target.rel, edit_header(target, {"reviewed": _today(today)}), "note")
    data = edited.text[: edited.header_end] + body
    parked = _free_path(palace, MERGED_DIR, draft.slug)
    changes: list[Change] = [
        Write.from_disk(
            palace.root, target.rel, (b"\xef\xbb\xbf" if target.bom else b"") + data.encode("utf-8")
        ),
        Move.from_disk(palace.root, draft.rel, parked),
    ]
    return _plan(
        palace,
        "merge",
        [target.rel, draft.rel],
        reason or f"Draft {draft.rel} folded into {target.rel}.",
        f"{draft.name} into {target.name}",
        changes,
        today,
        [("Curator-Restore", encode_restore(draft.rel, parked))],
    )


# -- retire, review, index ---------------------------------------------------------------------
def plan_retire(palace: Palace, ref: str, reason: str, *, today: date | None = None) -> Plan:
    """Soft removal: superseded with no successor. The file stays; nothing is deleted."""
    if not reason or not reason.strip():
        raise ActionError("a reason is required to retire a note (--reason)")
    note = _note(palace, ref)
    if note.superseded:
        raise ActionError(f"{note.rel} is already superseded or retired")
    data = edit_header(
        note,
        {
            "status": "superseded",
            "retired": {"reason": " ".join(reason.split()), "since": _today(today)},
        },
    )
    links = inbound(palace, note)
    why = reason + ("\n\nLinks that still point here: " + ", ".join(links) if links else "")
    return _plan(
        palace,
        "retire",
        [note.rel],
        why,
        note.name,
        [Write.from_disk(palace.root, note.rel, data)],
        today,
    )


def plan_mark_reviewed(
    palace: Palace, ref: str, *, reason: str = "", today: date | None = None
) -> Plan:
    """Set `reviewed` to today: the note was read and still holds."""
    note = _note(palace, ref)
    if note.reviewed == _today(today):
        raise ActionError(f"{note.rel} is already marked reviewed today")
    data = edit_header(note, {"reviewed": _today(today)})
    return _plan(
        palace,
        "review",
        [note.rel],
        reason or "Read and still holds.",
        note.name,
        [Write.from_disk(palace.root, note.rel, data)],
        today,
    )


def plan_index(palace: Palace, *, today: date | None = None) -> Plan:
    """Regenerate INDEX.md (raises IndexRefused rather than drop notes)."""
    changes = with_index(palace, [], today)
    if not changes:
        raise ActionError("INDEX.md is up to date")
    return Plan(
        action="index",
        notes=(INDEX_NAME,),
        reason="Regenerated from the notes.",
        summary="regenerate INDEX.md",
        changes=changes,
        root=palace.root,
    )


def regenerate_index(
    palace: Palace, today: date | None = None
) -> Callable[[Mapping[str, bytes | None]], dict[str, bytes]]:
    """For `plan_undo(regenerate=...)`: INDEX.md rebuilt for the palace after the undo."""

    def regenerate(post: Mapping[str, bytes | None]) -> dict[str, bytes]:
        after = palace.replaced(
            {
                rel: data
                for rel, data in post.items()
                if rel.startswith((NOTES_DIR + "/", INBOX_DIR + "/"))
            }
        )
        return {INDEX_NAME: render_index(after, index_bytes(palace), today).encode("utf-8")}

    return regenerate
