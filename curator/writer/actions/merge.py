"""Merge: several notes into a new one, or a draft folded into an existing note."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from curator.fsutil import note_bytes
from curator.model import palace_rules
from curator.model.check import MAX_TAGS
from curator.model.note import Note, new_note_text, parse_note, strip_banner
from curator.model.palace import NOTES_DIR, Palace
from curator.model.schema import is_visible, why_hidden
from curator.writer.actions.common import (
    MERGED_DIR,
    ActionError,
    edit_note,
    errors_for,
    find_draft,
    find_note,
    free_path,
    make_plan,
    relink_over,
    relinked,
    require_one_line,
    secrets_in,
    slugify,
    today_iso,
)
from curator.writer.plan import Change, Move, Plan, Write, encode_restore
from curator.writer.secrets import added_secrets


def _sources(palace: Palace, refs: Sequence[str], name: str) -> list[Note]:
    """The notes to merge, refused unless there are two or more current, distinct ones."""
    sources = [find_note(palace, ref) for ref in refs]
    if len(sources) < 2:
        raise ActionError("merge needs at least two notes")
    if len({s.rel for s in sources}) != len(sources):
        raise ActionError("the same note is named twice")
    for src in sources:
        if src.superseded:
            raise ActionError(f"{src.rel} is already superseded; merge current notes only")
    if not name:
        raise ActionError("the merged note needs a name (--into NAME)")
    if palace.named(name):
        raise ActionError(f"a note named {name!r} already exists")
    return sources


def _merged_header(
    palace: Palace,
    sources: list[Note],
    name: str,
    type: str | None,
    description: str | None,
    today: date | None,
) -> dict[str, Any]:
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
        "description": require_one_line(description, "description")
        if description
        else sources[0].description,
        "type": type_name,
        "confidence": round(confidence, 4),
        "created": today_iso(today),
        "reviewed": today_iso(today),
        "merged_from": [s.slug for s in sources],
    }
    hidden = [s for s in sources if not is_visible(s, palace.config)]
    if len(scopes) == 1:
        header["scope"] = scopes.pop()
    elif hidden:  # mixed scopes: the narrowest, a sensitive one, so the merge stays hidden
        narrow = sorted(str(s) for s in scopes if palace.config.is_sensitive_scope(s))
        if narrow:
            header["scope"] = narrow[0]
    if hidden and is_visible(
        parse_note("notes/merged.md", new_note_text(header, "").encode()), palace.config
    ):
        header["sensitive"] = True  # a merge of anything hidden is hidden
    if tags:
        header["tags"] = tags[:MAX_TAGS]
    return header


def _refuse_widening(palace: Palace, sources: Sequence[Note], result: Note, what: str) -> None:
    """Refuse a merge that would let agents see text the gate hides from them now: anything
    merged from a hidden note or draft must be hidden too (`schema.is_visible`, the one gate)."""
    if not is_visible(result, palace.config):
        return
    for src in sources:
        why = why_hidden(src, palace.config)
        if why is not None:
            raise ActionError(
                f"cannot merge {src.rel} into {what}: {src.rel} is hidden from agents ({why}) "
                f"and {what} is not, so its text would be served to agents; mark the target "
                "sensitive (or give it the same scope) first, or keep them apart"
            )


def _relink_sources(
    palace: Palace, sources: list[Note], dest: str, changes: dict[str, bytes]
) -> None:
    """Links to any source point at `dest` (a note linking to two sources: both)."""
    source_rels = {s.rel for s in sources}
    for src in sources:
        for rel, data in relinked(palace, src, dest, skip=source_rels).items():
            if rel in changes:  # relink on top of the first pass
                changes[rel] = relink_over(palace, rel, changes[rel], src.rel, dest)
            else:
                changes[rel] = data


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
    name = require_one_line(into_name, "the merged note's name")
    sources = _sources(palace, refs, name)
    header = _merged_header(palace, sources, name, type, description, today)
    type_name = str(header["type"])
    body = "\n".join(f"## From {s.name}\n\n{s.body.strip()}\n" for s in sources)
    merged = new_note_text(header, body).encode("utf-8")
    if palace.foreign_layout:  # named and written the way the layout's tool does
        dest = palace_rules.promote_path(palace, name, type_name)
        merged = palace_rules.promoted_bytes(palace, dest, merged)
    else:
        dest = free_path(palace, f"{NOTES_DIR}/{type_name}", slugify(name))
    _refuse_widening(palace, sources, parse_note(dest, merged, "note"), f"the merged note {dest}")
    new_slug = dest.rsplit("/", 1)[-1][:-3]
    changes: dict[str, bytes] = {dest: merged}
    for src in sources:
        changes[src.rel] = edit_note(
            palace, src, {"status": "superseded", "superseded_by": new_slug}
        )
    _relink_sources(palace, sources, dest, changes)
    errors = errors_for(palace, changes, [dest])
    if errors:
        raise ActionError("the merged note would not validate: " + "; ".join(errors))
    write_list: list[Change] = [
        Write.from_disk(palace.root, rel, data) for rel, data in changes.items()
    ]
    return make_plan(
        palace,
        "merge",
        [dest, *(s.rel for s in sources)],
        reason or f"Merged {len(sources)} notes into one; edit the combined body.",
        f"{name} (from {', '.join(s.name for s in sources)})",
        write_list,
        today,
    )


def draft_merge_body(
    palace: Palace, draft_ref: str, into_ref: str, today: date | None = None
) -> tuple[Note, Note, str]:
    """The draft, the note it folds into, and the body that note gets (its own, then the
    draft's without the banner under a heading); refused as the merge would be. Two notes'
    text and no disk: the app shows it for editing the moment the reviewer asks."""
    draft = find_draft(palace, draft_ref)
    target = find_note(palace, into_ref)
    if not draft.ok:
        raise ActionError(f"cannot merge {draft.rel}: its header does not parse")
    _refuse_widening(palace, [draft], target, target.rel)
    secrets = secrets_in(draft)
    if secrets:
        raise ActionError(
            f"cannot merge {draft.rel}: it looks like it holds a secret ({', '.join(secrets)})"
        )
    addition = strip_banner(draft.body).strip()
    when = draft.created[:10] or today_iso(today)
    body = (
        target.body.rstrip("\n")
        + f"\n\n## Merged from draft: {draft.name} ({when})\n\n{addition}\n"
    )
    return draft, target, body


def plan_merge_draft(
    palace: Palace,
    draft_ref: str,
    into_ref: str,
    *,
    body: str | None = None,
    reason: str = "",
    today: date | None = None,
) -> Plan:
    """Fold a draft into an existing note: its body is appended for the reviewer to edit;
    with `body`, the reviewer's edited merged body is the note's body instead."""
    draft, target, merged = draft_merge_body(palace, draft_ref, into_ref, today)
    if body is None:
        body = merged
    else:
        if not body.endswith("\n"):
            body += "\n"
        # the draft was scanned; the reviewer's edited text is scanned again, as promote would
        added = added_secrets(target.body, body)
        if added:
            found = ", ".join(f"{hit.kind} (body line {hit.line})" for hit in added)
            raise ActionError(
                f"cannot merge {draft.rel} into {target.rel}: the edited body looks like it "
                f"holds a secret ({found}); remove it and merge again"
            )
    reviewed = edit_note(palace, target, {"reviewed": today_iso(today)})
    edited = parse_note(target.rel, reviewed, "note")
    data = edited.text[: edited.header_end] + body
    parked = free_path(palace, MERGED_DIR, draft.slug)
    changes: list[Change] = [
        Write.from_disk(palace.root, target.rel, note_bytes(data, target.bom)),
        Move.from_disk(palace.root, draft.rel, parked),
    ]
    return make_plan(
        palace,
        "merge",
        [target.rel, draft.rel],
        reason or f"Draft {draft.rel} folded into {target.rel}.",
        f"{draft.name} into {target.name}",
        changes,
        today,
        [("Curator-Restore", encode_restore(draft.rel, parked))],
    )
