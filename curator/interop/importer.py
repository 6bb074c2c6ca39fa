"""Import another store's memories as drafts: each record goes through `capture`.

A record becomes a draft in the inbox, never a note: a reviewer promotes it. Its creation
date is kept, its provenance goes into `source` (store, id, app), and re-importing the same
file adds nothing because every draft and note already carrying that (store, id) is skipped.
Archived and deleted records are skipped and counted; a record that cannot be captured is
counted with its line and the reason, and the rest go on.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from curator.config import Config, load_config
from curator.errors import CuratorError
from curator.interop.records import SKIPPED_STATES, Problem, Record, iso
from curator.model.note import Note
from curator.writer.secrets import scan

# header keys capture writes itself (or that describe the draft, not the memory)
RESERVED = frozenset(
    {
        "name",
        "description",
        "type",
        "status",
        "created",
        "dates",  # derived from the text and created: capture resolves it again
        "source",
        "scope",
        "tags",
        "similar",
        "secret",
        "secrets",
    }
)
# words other stores use for a type, mapped onto a palace type when the palace has it
SYNONYMS = {
    "preference": "user",
    "preferences": "user",
    "personal": "user",
    "personal_details": "user",
    "rule": "feedback",
    "rules": "feedback",
    "instruction": "feedback",
    "instructions": "feedback",
    "work": "project",
    "fact": "project",
    "facts": "project",
    "link": "reference",
    "links": "reference",
    "docs": "reference",
    "documentation": "reference",
}
NAME_WORDS = 80
DESCRIPTION_CHARS = 160


class NeedsType(CuratorError):
    """Some records say no type the palace knows, and no default type was given."""


@dataclass
class Planned:
    record: Record
    type: str
    name: str
    description: str
    scope: str | None


@dataclass
class ImportSummary:
    store: str
    imported: list[str] = field(default_factory=list)  # draft paths (names on a dry run)
    already: int = 0  # matched by source id
    skipped: Counter[str] = field(default_factory=Counter)  # by state: archived, deleted
    flagged: int = 0  # drafts flagged for possible secrets
    failed: list[Problem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    dry_run: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "store": self.store,
            "dry_run": self.dry_run,
            "imported": len(self.imported),
            "drafts": list(self.imported),
            "already_imported": self.already,
            "skipped": dict(self.skipped),
            "flagged": self.flagged,
            "failed": [{"line": p.line, "message": p.message} for p in self.failed],
            "warnings": list(self.warnings),
        }


def known_sources(notes: Iterable[Note]) -> set[tuple[str, str]]:
    """(store, id) of every note and draft that came from an import."""
    found: set[tuple[str, str]] = set()
    for note in notes:
        source = note.header.get("source")
        if isinstance(source, dict) and source.get("store") and source.get("id"):
            found.add((str(source["store"]), str(source["id"])))
    return found


def map_type(record: Record, config: Config) -> str | None:
    """The record's own type, else a category naming a palace type; None when neither does."""
    for word in (record.type, *record.hints):
        key = word.strip().lower()
        if key in config.types:
            return key
        synonym = SYNONYMS.get(key)
        if synonym in config.types:
            return synonym
    return None


def _words(text: str, limit: int) -> str:
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    cut = line[:limit].rsplit(" ", 1)[0]
    return (cut or line[:limit]) + "…"


def _title(record: Record) -> str:
    """The draft's name: the record's, else its first line; never text flagged as a secret,
    because the name becomes the file name."""
    first = next((ln.strip(" #>-*\t") for ln in record.text.splitlines() if ln.strip()), "")
    name = " ".join((record.name or first).split())[:200] or f"{record.store} memory"
    if scan(name):
        short = re.sub(r"[^A-Za-z0-9]", "", record.id)[-8:] or "record"
        return f"Imported {record.store} memory {short}"
    return _words(name, NAME_WORDS) if not record.name else name


def _source(record: Record) -> dict[str, str]:
    """The draft's `source` as a mapping, each value exactly as the record has it (a re-import
    matches on the id, so it is never rewritten)."""
    parts = {"store": record.store, "id": record.id, "app": record.app}
    return {k: v for k, v in parts.items() if v}


def plan_records(
    items: Iterable[Record | Problem],
    config: Config,
    existing: set[tuple[str, str]],
    default_type: str | None,
    summary: ImportSummary,
) -> list[Planned]:
    """What the import would capture; skipped and failed records are counted on `summary`."""
    planned: list[Planned] = []
    untyped: list[Record] = []
    seen = set(existing)
    for item in items:
        if isinstance(item, Problem):
            summary.failed.append(item)
            continue
        if item.state in SKIPPED_STATES:
            summary.skipped[item.state] += 1
            continue
        if (item.store, item.id) in seen:
            summary.already += 1
            continue
        seen.add((item.store, item.id))
        kind = map_type(item, config) or default_type
        if kind is None:
            untyped.append(item)
            continue
        scope = item.scope or None
        if scope is not None and scope not in config.scopes:
            summary.warnings.append(
                f"record {item.line}: scope {scope!r} is not in palace.toml; imported without it"
            )
            scope = None
        description = item.description
        if description is None:
            description = _words(item.text, DESCRIPTION_CHARS) if len(item.text) > 80 else ""
        planned.append(Planned(item, kind, _title(item), description, scope))
    if untyped:
        raise NeedsType(
            f"{len(untyped)} record(s) name no type this palace knows "
            f"(first at record {untyped[0].line}); pass --type "
            f"({'|'.join(config.types)}) for them"
        )
    return planned


def untyped_count(items: Iterable[Record | Problem], config: Config) -> int:
    return sum(
        1
        for item in items
        if isinstance(item, Record)
        and item.state not in SKIPPED_STATES
        and map_type(item, config) is None
    )


def run_import(
    root: Path,
    store: str,
    items: Iterable[Record | Problem],
    *,
    default_type: str | None = None,
    dry_run: bool = False,
) -> ImportSummary:
    """Capture each new record as a draft; nothing is written on a dry run."""
    from curator.model.palace import Palace
    from curator.writer.capture import CaptureError, capture

    config = load_config(root)
    if default_type is not None and default_type not in config.types:
        raise CuratorError(f"unknown type {default_type!r} (known: {', '.join(config.types)})")
    palace = Palace.open(root)
    summary = ImportSummary(store, dry_run=dry_run)
    existing = known_sources((*palace.notes, *palace.drafts))
    for plan in plan_records(items, config, existing, default_type, summary):
        record = plan.record
        if dry_run:
            summary.imported.append(f"{plan.type}: {plan.name} ({iso(record.created)})")
            continue
        extra = {k: v for k, v in record.header.items() if k not in RESERVED}
        if record.bad_date:
            note = f"the record's date {record.bad_date!r} is unusable; created is the import date"
            extra["import_note"] = note
            summary.warnings.append(f"record {record.line}: {note}")
        try:
            result = capture(
                root,
                type=plan.type,
                name=plan.name,
                body=record.text,
                description=plan.description,
                source=_source(record),
                scope=plan.scope,
                tags=record.tags or None,
                now=record.created,
                extra=extra or None,
                context=record.context or None,
            )
        except CaptureError as exc:
            summary.failed.append(Problem(record.line, exc.message))
            continue
        except RecursionError:  # a header field nested too deeply to write as YAML
            summary.failed.append(Problem(record.line, "values nested too deeply: skipped"))
            continue
        summary.imported.append(result.path)
        summary.flagged += bool(result.secrets)
    return summary
