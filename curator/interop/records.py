"""One memory record as other stores hold it, and the readers for their export files.

mem0 (`get_all()` output: a list, `{"results": [...]}` or one object a line), OpenMemory's
backup zip (`memories.jsonl.gz`, else `memories.json`) and plain JSONL (one object a line with
a `text` field) all become `Record`s. A reader never raises on one bad record: it is reported
as a `Problem` with its line, so the import can count it and go on.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from curator.errors import CuratorError
from curator.model.text import not_utf8

MAX_RECORD_BYTES = 1 << 20  # a record is one memory: the note size limit applies
MAX_DECOMPRESSED = 256 << 20  # an export bigger than this is not a memory store
SKIPPED_STATES = ("archived", "deleted")


class ImportFileError(CuratorError):
    """An export file that cannot be read at all (not a zip, not JSON, too large)."""


@dataclass
class Record:
    store: str  # where it came from: mem0, openmemory, jsonl, curator
    id: str  # the id in that store; re-imports are matched by (store, id)
    text: str
    line: int = 0  # where in the file (1-based record number for JSON arrays)
    name: str = ""
    description: str | None = None  # None: the record has none (the import writes one)
    type: str = ""  # as the record says it
    hints: tuple[str, ...] = ()  # categories a type can be mapped from
    created: datetime | None = None
    app: str = ""
    state: str = "active"
    tags: list[str] = field(default_factory=list)
    scope: str = ""
    header: dict[str, Any] = field(default_factory=dict)  # the record's other header fields
    bad_date: str = ""  # the record's date as given, when it is unusable (the import date is used)
    context: str = ""  # the text the memory came from (a conversation), when the store has it


@dataclass(frozen=True)
class Problem:
    line: int
    message: str


Item = Record | Problem


# -- values --------------------------------------------------------------------------------
def parse_time(value: Any) -> datetime | None:
    """ISO 8601 (date, datetime, trailing Z, offset) or epoch seconds, as UTC; None if not, or
    when the moment has no four-digit year in UTC (Go's zero time, an overflow): `check`
    accepts only those."""
    try:
        parsed = _moment(value)
        if parsed is None:
            return None
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        parsed = parsed.astimezone(UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return parsed if 1000 <= parsed.year <= 9999 else None


def _moment(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return datetime.fromtimestamp(float(value), UTC)
    if isinstance(value, str) and value.strip():
        return datetime.fromisoformat(value.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    return None


def unusable_date(value: Any) -> str:
    """The record's date as given when it is there but not usable (else "")."""
    if value is None or value == "" or parse_time(value) is not None:
        return ""
    return " ".join(str(value).split())[:64]


def iso(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ") if moment else ""


def _str(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _str_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list):
        return [str(v) for v in value if isinstance(v, (str, int, float)) and str(v).strip()]
    return []


def content_id(text: str, created: datetime | None) -> str:
    """The id of a record that has none: the same text and date give the same id."""
    digest = hashlib.sha256(f"{iso(created)}\n{text}".encode("utf-8", "surrogatepass"))
    return "sha256:" + digest.hexdigest()[:32]


# -- the record fields the stores share ----------------------------------------------------
def _from_curator(store: str, obj: dict[str, Any], text: str, line: int) -> Record:
    """A record as `curator export` writes it (or a JSONL line in the same shape)."""
    source = obj.get("source")
    app = ""
    rid = _str(obj.get("id"))
    if isinstance(source, dict):
        store = _str(source.get("store")) or store
        rid = _str(source.get("id")) or rid
        app = _str(source.get("app"))
    elif isinstance(source, str):
        app = source.strip()
    created = parse_time(obj.get("created"))
    bad_date = unusable_date(obj.get("created"))
    header = obj.get("header")
    description = obj.get("description")
    return Record(
        store=store,
        id=rid or content_id(text, created),
        text=text,
        line=line,
        name=_str(obj.get("name")),
        description=description if isinstance(description, str) else None,
        type=_str(obj.get("type")),
        created=created,
        app=app,
        state=_str(obj.get("state")).lower() or "active",
        tags=_str_list(obj.get("tags")),
        scope=_str(obj.get("scope")),
        header=dict(header) if isinstance(header, dict) else {},
        bad_date=bad_date,
        context=_str(obj.get("context"))
        or _str(header.get("context") if isinstance(header, dict) else ""),
    )


def not_unicode(obj: Any) -> str | None:
    """Why a parsed JSON value cannot be text curator writes, or None: JSON's `\\ud83d`
    escapes can spell a lone surrogate (text cut mid-emoji), which no UTF-8 file can hold
    (`model.text.not_utf8`). Every record is checked before it becomes a Record."""
    stack = [obj]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str) and (bad := not_utf8(value)) is not None:
            return f"not valid Unicode: a lone surrogate {bad} (text cut mid-character?); skipped"
    return None


def jsonl_record(obj: Any, line: int) -> Item:
    if not isinstance(obj, dict):
        return Problem(line, "not a JSON object")
    if (why := not_unicode(obj)) is not None:
        return Problem(line, why)
    text = obj.get("text")
    if not isinstance(text, str) or not text.strip():
        return Problem(line, "no text: each line needs a non-empty 'text' field")
    return _from_curator("jsonl", obj, text, line)


def mem0_record(obj: Any, line: int, store: str = "mem0") -> Item:
    """A mem0 memory: `memory` (or `content`/`text`), `metadata`, `categories`, `created_at`."""
    if not isinstance(obj, dict):
        return Problem(line, "not a JSON object")
    if (why := not_unicode(obj)) is not None:
        return Problem(line, why)
    text = next((obj[k] for k in ("memory", "content", "text") if isinstance(obj.get(k), str)), "")
    if not text.strip():
        return Problem(line, "no text: a memory needs a non-empty 'memory' or 'content' field")
    raw_metadata = obj.get("metadata")
    metadata: dict[str, Any] = raw_metadata if isinstance(raw_metadata, dict) else {}
    if isinstance(metadata.get("source"), dict):  # written by `curator export --format mem0`
        record = _from_curator(store, {**metadata, "id": obj.get("id")}, text, line)
        if record.created is None and not record.bad_date:
            record.created = parse_time(obj.get("created_at"))
            record.bad_date = unusable_date(obj.get("created_at"))
        return record
    given = obj.get("created_at") or metadata.get("created_at")
    created = parse_time(given)
    rid = _str(obj.get("id")) or content_id(text, created)
    app = _str(obj.get("app")) or _str(obj.get("app_id")) or _str(obj.get("agent_id"))
    state = _str(obj.get("state") or metadata.get("state")).lower() or "active"
    return Record(
        store=store,
        id=rid,
        text=text,
        line=line,
        name=_str(metadata.get("name")),
        description=metadata["description"]
        if isinstance(metadata.get("description"), str)
        else None,
        type=_str(metadata.get("type")),
        hints=tuple(_str_list(obj.get("categories")) + _str_list(metadata.get("categories"))),
        created=created,
        app=app,
        state=state,
        tags=_str_list(metadata.get("tags")),
        bad_date=unusable_date(given),
        context=_str(metadata.get("context")),
    )


# -- files ---------------------------------------------------------------------------------
def _lines(data: bytes, path: Path) -> Iterator[tuple[int, Any]]:
    for number, raw in enumerate(io.BytesIO(data), start=1):
        if not raw.strip():
            continue
        if len(raw) > MAX_RECORD_BYTES:
            yield number, Problem(number, "the line is over 1 MiB; not a memory")
            continue
        try:
            yield number, json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            yield number, Problem(number, f"not JSON: {exc}")
        except RecursionError:
            yield number, Problem(number, "values nested too deeply: not a memory")


def _read_bytes(path: Path) -> bytes:
    try:
        size = path.stat().st_size
        if size > MAX_DECOMPRESSED:
            raise ImportFileError(f"{size} bytes is too large for an export", path=str(path))
        data = path.read_bytes()
    except OSError as exc:
        raise ImportFileError(f"cannot read: {exc.strerror}", path=str(path)) from None
    if data[:2] == b"\x1f\x8b":
        return _gunzip(data, path)
    return data


def _gunzip(data: bytes, path: Path | str) -> bytes:
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as handle:
            out = handle.read(MAX_DECOMPRESSED + 1)
    except (OSError, EOFError) as exc:
        raise ImportFileError(f"not a readable gzip file: {exc}", path=str(path)) from None
    if len(out) > MAX_DECOMPRESSED:
        raise ImportFileError("decompresses to more than 256 MiB; refused", path=str(path))
    return out


def read_jsonl(path: Path) -> Iterator[Item]:
    for number, obj in _lines(_read_bytes(path), path):
        yield obj if isinstance(obj, Problem) else jsonl_record(obj, number)


def read_mem0(path: Path) -> Iterator[Item]:
    """A mem0 export: JSON (a list, or an object with `results` or `memories`) or JSONL."""
    data = _read_bytes(path)
    try:
        whole = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        for number, obj in _lines(data, path):
            yield obj if isinstance(obj, Problem) else mem0_record(obj, number)
        return
    if isinstance(whole, dict):
        items = next((whole[k] for k in ("results", "memories") if k in whole), [whole])
    else:
        items = whole
    if not isinstance(items, list):
        raise ImportFileError("expected a list of memories (or 'results': [...])", path=str(path))
    for number, obj in enumerate(items, start=1):
        yield mem0_record(obj, number)


def read_openmemory(path: Path) -> Iterator[Item]:
    """OpenMemory's backup zip: `memories.jsonl.gz` (one memory a line) or `memories.json`;
    either of those two files on its own is read too."""
    if not zipfile.is_zipfile(path):
        data = _read_bytes(path)  # gunzipped when it is gzip
        if data.lstrip()[:1] == b"{" and b'"memories"' in data[:4096]:
            yield from _openmemory_manifest(data, path)
            return
        for number, obj in _lines(data, path):
            yield obj if isinstance(obj, Problem) else mem0_record(obj, number, "openmemory")
        return
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        raise ImportFileError(f"not a zip file: {exc}", path=str(path)) from None
    with archive:
        members = {info.filename.rsplit("/", 1)[-1]: info for info in archive.infolist()}
        logical, manifest = members.get("memories.jsonl.gz"), members.get("memories.json")
        if logical is None and manifest is None:
            raise ImportFileError(
                "no memories.jsonl.gz or memories.json in the zip: not an OpenMemory backup",
                path=str(path),
            )
        chosen = logical or manifest
        assert chosen is not None
        if chosen.file_size > MAX_DECOMPRESSED:
            raise ImportFileError(f"{chosen.filename} is too large", path=str(path))
        data = archive.read(chosen)
    if logical is not None:
        for number, obj in _lines(_gunzip(data, path), path):
            yield obj if isinstance(obj, Problem) else mem0_record(obj, number, "openmemory")
        return
    yield from _openmemory_manifest(data, path)


def _openmemory_manifest(data: bytes, path: Path) -> Iterator[Item]:
    try:
        whole = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ImportFileError(f"memories.json is not JSON: {exc}", path=str(path)) from None
    except RecursionError:
        raise ImportFileError("memories.json is nested too deeply", path=str(path)) from None
    if not isinstance(whole, dict) or not isinstance(whole.get("memories"), list):
        raise ImportFileError("memories.json has no 'memories' list", path=str(path))
    apps = {a.get("id"): a.get("name") for a in whole.get("apps") or [] if isinstance(a, dict)}
    cats = {
        c.get("id"): c.get("name") for c in whole.get("categories") or [] if isinstance(c, dict)
    }
    for number, obj in enumerate(whole["memories"], start=1):
        if isinstance(obj, dict):
            obj = {
                **obj,
                "app": apps.get(obj.get("app_id")) or "",
                "categories": [cats.get(c) for c in obj.get("category_ids") or [] if cats.get(c)],
            }
        yield mem0_record(obj, number, "openmemory")


READERS = {"mem0": read_mem0, "openmemory": read_openmemory, "jsonl": read_jsonl}
