"""Promote: a reviewed draft becomes a note in notes/<type>/ (optionally superseding one)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

from curator.errors import CuratorError
from curator.fsutil import note_bytes
from curator.model import palace_rules
from curator.model.check import feedback_gaps
from curator.model.header import DELETE
from curator.model.note import Note, edit_header, parse_note, strip_banner
from curator.model.palace import NOTES_DIR, Palace
from curator.model.schema import REQUIRED, WARNINGS, header_problems
from curator.writer.actions.common import (
    DRAFT_ONLY_KEYS,
    PROMOTED_DIR,
    ActionError,
    edit_note,
    errors_for,
    find_draft,
    find_note,
    free_path,
    make_plan,
    require_one_line,
    secrets_in,
    slugify,
    today_iso,
)
from curator.writer.plan import Change, Move, Plan, Write, effects, encode_restore


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


#: what a note must have once promoted: the schema's required fields and a confidence
PROMOTE_REQUIRED = (*REQUIRED, "confidence")


def promote_problems(
    palace: Palace, draft_ref: str, fields: Mapping[str, Any]
) -> list[tuple[str, str]]:
    """(field, message) for each problem with promoting the draft with these values; field ''
    for the draft as a whole. The header rules are the schema's (the ones `check` applies)."""
    try:
        draft = find_draft(palace, draft_ref)
    except CuratorError as exc:
        return [("", str(exc))]
    if not draft.ok:
        problem = draft.problems[0].message if draft.problems else "unreadable header"
        return [("", f"the draft's header does not parse ({problem}): fix the file first")]
    named = [p.message for p in draft.problems if p.code == "file.name"]
    if named:
        return [("", named[0])]
    header = {
        k: v for k, v in promote_fields(palace, draft, fields).items() if k not in DRAFT_ONLY_KEYS
    }  # as the note will hold it
    out: list[tuple[str, str]] = []
    known_type = palace.config.type_spec(header.get("type")) is not None
    for key in PROMOTE_REQUIRED:
        if key == "confidence" and not known_type:
            continue  # the default comes from the type: the type's own problem is the true one
        value = header.get(key)
        if value is None or (isinstance(value, str) and not value.strip()):
            out.append((key, f"{key} is required"))
    missing = {key for key, _ in out}
    for field, code, message in header_problems(header, palace.config, required=()):
        if field not in missing and code not in WARNINGS:
            out.append((field or "", message))
    name = header.get("name")
    if isinstance(name, str) and name.strip() and "name" not in {k for k, _ in out}:
        clash = next(iter(palace.named(name)), None)
        if clash is not None:
            out.append(("name", f"a note named {name.strip()!r} already exists: {clash.rel}"))
    return out


def validate_promote(palace: Palace, draft_ref: str, fields: Mapping[str, Any]) -> list[str]:
    """The problems of `promote_problems` as sentences, each starting with its field."""
    return [
        message if not field or message.startswith(field) or "named" in message[:12]
        else f"{field}: {message}"
        for field, message in promote_problems(palace, draft_ref, fields)
    ]  # fmt: skip


def _note_bytes(
    draft: Note, header: Mapping[str, Any], scope: str | None, today: date | None
) -> bytes:
    """The draft's text as a note: checked fields set, draft-only fields and banner gone."""
    updates: dict[str, Any] = {k: header[k] for k in ("name", "description", "type", "confidence")}
    if scope:
        updates["scope"] = scope
    for key in DRAFT_ONLY_KEYS:
        if key in draft.header:
            updates[key] = DELETE
    updates["reviewed"] = today_iso(today)
    if not draft.header.get("created"):
        updates["created"] = today_iso(today)
    edited = parse_note(draft.rel, edit_header(draft, updates), "draft")
    return note_bytes(edited.text[: edited.header_end] + strip_banner(edited.body), draft.bom)


def _supersede(
    palace: Palace, ref: str, dest: str, new_bytes: bytes, changes: list[Change]
) -> Note:
    """The promoted note supersedes the note `ref`: both headers say so (`changes` edited)."""
    old = find_note(palace, ref)
    new_slug = dest.rsplit("/", 1)[-1][:-3]
    after_new = parse_note(dest, new_bytes, "note")
    changes[1] = Write.from_disk(
        palace.root, dest, edit_note(palace, after_new, {"supersedes": [old.slug]})
    )
    changes.append(
        Write.from_disk(
            palace.root,
            old.rel,
            edit_note(palace, old, {"status": "superseded", "superseded_by": new_slug}),
        )
    )
    return old


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
    draft = find_draft(palace, draft_ref)
    overrides: dict[str, Any] = {
        "type": type,
        "name": require_one_line(name, "name") if name else None,
        "description": require_one_line(description, "description") if description else None,
        "confidence": confidence,
        "scope": scope,
    }
    problems = validate_promote(palace, draft.rel, overrides)
    if problems:
        raise ActionError(f"cannot promote {draft.rel}: " + "; ".join(problems))
    secrets = secrets_in(draft)
    if secrets and not allow_secret:
        raise ActionError(
            f"cannot promote {draft.rel}: it looks like it holds a secret ({', '.join(secrets)}). "
            "Remove it from the draft, or pass --allow-secret if it is not one."
        )
    header = promote_fields(palace, draft, overrides)
    new_bytes = _note_bytes(draft, header, scope, today)

    if palace.foreign_layout:  # a new memory in the layout's own format and file naming
        dest = palace_rules.promote_path(palace, str(header["name"]), str(header["type"]))
        new_bytes = palace_rules.promoted_bytes(palace, dest, new_bytes)
    else:
        dest = free_path(palace, f"{NOTES_DIR}/{header['type']}", slugify(str(header["name"])))
    parked = free_path(palace, PROMOTED_DIR, draft.slug)
    changes: list[Change] = [
        Move.from_disk(palace.root, draft.rel, parked),
        Write.from_disk(palace.root, dest, new_bytes),
    ]
    trailers = [("Curator-Restore", encode_restore(draft.rel, parked))]
    spec = palace.config.type_spec(header.get("type"))
    if spec is not None and spec.name == "feedback":  # what check would warn about at once
        for _, gap in feedback_gaps(parse_note(dest, new_bytes).body):
            trailers.append(("Curator-Asks", f"{gap}: add it with 'curator edit {dest}'"))
    notes = [dest]
    summary = str(header["name"])
    if supersedes:
        old = _supersede(palace, supersedes, dest, new_bytes, changes)
        notes.append(old.rel)
        summary += f" (supersedes {old.name})"
    errors = errors_for(palace, effects(palace.root, changes), [dest])
    if errors:
        raise ActionError(f"cannot promote {draft.rel}: " + "; ".join(errors))
    return make_plan(
        palace,
        "promote",
        notes,
        reason or f"Reviewed draft {draft.rel}.",
        summary,
        changes,
        today,
        trailers,
    )
