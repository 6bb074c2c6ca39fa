"""Export every note and draft with its header and body: a snapshot another store can load.

`jsonl` writes one record a line in the shape `curator import jsonl` reads; `mem0` writes the
`{"results": [...]}` shape of mem0's `get_all()`, with curator's fields in `metadata`. A
record's id is its provenance (`source.id`) when it came from an import, else its path, so
export → import into an empty palace → export gives the same records. Notes the visibility gate
hides (`schema.is_visible`: sensitive, in a sensitive scope) are left out unless asked for; an
unreadable header is never exported.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from curator.interop.importer import RESERVED
from curator.interop.records import iso, parse_time
from curator.model.note import DRAFT_BANNER, Note
from curator.model.palace import Palace
from curator.model.schema import is_visible, unreadable

FORMATS = ("jsonl", "mem0")


@dataclass
class Export:
    records: list[dict[str, Any]]
    left_out: int  # sensitive notes not exported
    unreadable: int  # files whose header did not parse (`curator check` names them)

    def text(self, fmt: str) -> str:
        if fmt == "mem0":
            results = [_mem0(r) for r in self.records]
            return json.dumps({"results": results}, ensure_ascii=True, indent=1) + "\n"
        return "".join(json.dumps(r, ensure_ascii=True) + "\n" for r in self.records)


def _plain(value: Any) -> Any:
    """Header values as JSON has them (YAML dates become ISO strings)."""
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _body(note: Note) -> str:
    body = note.body
    if note.kind == "draft" and body.lstrip().startswith(DRAFT_BANNER):
        body = body.lstrip()[len(DRAFT_BANNER) :]
    return body.strip()


def record_of(palace: Palace, note: Note) -> dict[str, Any]:
    source = note.header.get("source")
    if isinstance(source, dict) and source.get("store") and source.get("id"):
        provenance = {k: str(v) for k, v in source.items() if k in ("store", "id", "app") and v}
    else:
        provenance = {"store": "curator", "id": note.rel, "app": palace.config.name}
        provenance = {k: v for k, v in provenance.items() if v}
    created = parse_time(note.header.get("created"))
    return {
        "id": provenance["id"],
        "name": note.name,
        "description": note.description,
        "type": note.type,
        "created": iso(created) if created else "",
        "tags": note.tags,
        "scope": note.header.get("scope") or "",
        "source": provenance,
        "header": {k: _plain(v) for k, v in note.header.items() if k not in RESERVED},
        "text": _body(note),
    }


def _mem0(record: dict[str, Any]) -> dict[str, Any]:
    metadata = {k: v for k, v in record.items() if k not in ("id", "text", "created")}
    return {
        "id": record["id"],
        "memory": record["text"],
        "metadata": {**metadata, "created": record["created"]},
        "categories": [record["type"]] if record["type"] else [],
        "created_at": record["created"] or None,
    }


def export_palace(palace: Palace, *, include_sensitive: bool = False) -> Export:
    """Notes and drafts in path order, each a record; sensitive ones only when asked."""
    records: list[dict[str, Any]] = []
    left_out = broken = 0
    for note in (*palace.notes, *palace.drafts):
        if unreadable(note):
            broken += 1
            continue
        if not include_sensitive and not is_visible(note, palace.config):
            left_out += 1
            continue
        records.append(record_of(palace, note))
    records.sort(key=lambda r: (r["source"]["store"], r["id"]))
    return Export(records, left_out, broken)
