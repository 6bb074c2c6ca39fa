"""The header schema: ONE table of the fields a note's header may hold, and the check of a
header against it.

`curator check`, promote's validation and the audit all read this table, so each header rule
is written once. A field's allowed values and ranges that depend on the palace (known types,
scopes, the confidence range of each type) come from its `Config`.

Example::

    from curator.config import default_config
    from curator.model.schema import check_header

    config = default_config(root)
    header = {"name": "N", "description": "d", "type": "user", "confidence": 0.5}
    for finding in check_header(header, config, path="notes/user/n.md"):
        print(finding.format())
    # notes/user/n.md: error: confidence 0.5 is outside the user range 0.8–1.0 [confidence.range]

For a loaded `Note` use `check_note(note, config)`: it gives each finding the line of its key
and makes every finding on a draft a warning (drafts are unreviewed; they never block).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import date
from typing import TYPE_CHECKING, Any, Literal, Protocol

from curator.model.dates import period_span
from curator.model.finding import Finding, Severity
from curator.model.text import has_escapes

if TYPE_CHECKING:
    from curator.config import Config

Kind = Literal["note", "draft"]


class Parsed(Protocol):
    """What the rules here read of a parsed note (`curator.model.note.Note` is one)."""

    rel: str
    kind: Kind
    problems: tuple[Finding, ...]

    @property
    def header(self) -> Mapping[str, Any]: ...

    @property
    def ok(self) -> bool: ...

    @property
    def scope(self) -> str: ...

    def line_of(self, key: str) -> int: ...


MAX_TAGS = 8
# The one table of statuses: status -> (where it may appear, what it means). A note without a
# status is active; retire writes `retired` with a `retired:` reason and no successor.
STATUSES: dict[str, tuple[Kind, str]] = {
    "active": ("note", "a current note (the default)"),
    "superseded": ("note", "replaced by the note superseded_by names"),
    "retired": ("note", "taken out of use with no successor (retire's reason in `retired:`)"),
    "draft": ("draft", "an unreviewed draft in the inbox"),
}
NOTE_STATUSES = tuple(s for s, (kind, _) in STATUSES.items() if kind == "note")
# statuses of a note that no longer holds: listed last, scored down, never a pack's rule
REPLACED_STATUSES = ("superseded", "retired")
#: the statuses a filter may name: a note's, a retired note's, or a draft's
FILTER_STATUSES = tuple(STATUSES)
VERIFY_KEYS = ("paths", "command", "expect")
# keys python-frontmatter based tools treat as their own
RESERVED = ("content", "handler")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?")


def note_status(header: Mapping[str, Any]) -> str:
    """A note's status as every view and filter reads it. A note retired before retire wrote
    `status: retired` says `superseded` with a `retired:` reason and no successor: retired."""
    raw = header.get("status")
    status = raw if isinstance(raw, str) and raw else "active"
    if status == "superseded" and not header.get("superseded_by") and "retired" in header:
        return "retired"
    return status


def unknown_value(label: str, values: Iterable[str], known: Collection[str]) -> str | None:
    """Why `values` may not name a `label` (type, scope, status), or None when every one is
    known: the one rule for every filter and capture, in the CLI, the app and the MCP tools.
    A case slip is answered with the value meant."""
    for value in values:
        if value in known:
            continue
        folded = {k.casefold(): k for k in known}
        hint = f"; did you mean {folded[value.casefold()]!r}?" if value.casefold() in folded else ""
        listed = ", ".join(known) or "none"
        return f"unknown {label} {value!r} (known: {listed}){hint}"
    return None


@dataclass(frozen=True)
class Field:
    """One header field. `type` names an entry of `VALUE_TYPES`; `allowed` gives the values
    the palace accepts (a value outside them is reported with `unknown_code`)."""

    name: str
    type: str
    description: str
    required: bool = False
    allowed: Callable[[Config], Collection[str]] | None = None
    unknown_code: str = "header.invalid"
    max_items: int | None = None


def _types(config: Config) -> Collection[str]:
    return config.types


def _scopes(config: Config) -> Collection[str]:
    return config.scopes


def _statuses(config: Config) -> Collection[str]:
    return NOTE_STATUSES


FIELDS: tuple[Field, ...] = (
    Field("name", "line", "what the note is called; unique in the palace", required=True),
    Field("description", "line", "one line saying what the note holds", required=True),
    Field(
        "type",
        "line",
        "the note's type, from the palace's taxonomy",
        required=True,
        allowed=_types,
        unknown_code="type.unknown",
    ),
    Field("confidence", "confidence", "0..1, within the range of the note's type"),
    Field("status", "text", "active, superseded or retired (drafts: draft)", allowed=_statuses),
    Field(
        "scope",
        "text",
        "the project space it belongs to",
        allowed=_scopes,
        unknown_code="scope.unknown",
    ),
    Field("tags", "words", "a few words to filter by", max_items=MAX_TAGS),
    Field("created", "date", "when it was written, 2026-11-30"),
    Field("dates", "periods", "the days its text speaks of, resolved against created (capture)"),
    Field("reviewed", "date", "when a person last reviewed it"),
    Field("verified", "date", "when the audit last confirmed it"),
    Field("expires", "date", "after this day it no longer holds"),
    Field("sensitive", "bool", "anything but false: hidden from agents unless asked for"),
    Field("superseded_by", "slug", "the note that replaces this one"),
    Field("supersedes", "slugs", "the notes this one replaces"),
    Field("merged_from", "slugs", "the notes merged into this one"),
    Field("source", "source", "where the fact came from: text or a mapping"),
    Field("context", "text", "the text the fact came from (turns, file lines); never the fact"),
    Field("stale", "reason", "set by the audit: reason and since"),
    Field("retired", "reason", "set by retire: reason and since"),
    Field("verify", "verify", "how the audit checks it: paths, command, expect"),
)
BY_NAME: dict[str, Field] = {f.name: f for f in FIELDS}
REQUIRED: tuple[str, ...] = tuple(f.name for f in FIELDS if f.required)


def name_key(name: str) -> str:
    """How two names compare: a name is unique in a palace under this key (case and runs of
    whitespace aside). check, promote, merge and every lookup by name use it."""
    return " ".join(name.split()).casefold()


def slug_key(ref: str) -> str:
    """How a slug, file name or link target names a note: without case and without `.md`.
    Every lookup by slug (links, supersede chains, promote's references) uses it."""
    return ref.casefold().removesuffix(".md")


def is_date(value: Any) -> bool:
    """A header date: 2026-11-30, optionally with a time (a loader's date object too)."""
    if isinstance(value, date):
        return True
    if not isinstance(value, str) or not _DATE.fullmatch(value):
        return False
    try:
        date.fromisoformat(value[:10])
    except ValueError:
        return False
    return True


def _str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and v for v in value)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# value type -> (accepts the value, the sentence when it does not; {key} is the field name)
VALUE_TYPES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "line": (lambda v: isinstance(v, str), "{key!r} must be text"),
    "text": (lambda v: isinstance(v, str), "{key!r} must be text"),
    "confidence": (lambda v: _number(v) and 0 <= v <= 1, "confidence must be a number from 0 to 1"),
    "date": (is_date, "{key!r} must be a date like 2026-11-30"),
    "bool": (lambda v: isinstance(v, bool), "{key} must be true or false"),
    "periods": (
        lambda v: isinstance(v, list) and all(period_span(p) for p in v),
        "{key!r} must be a list of dates, months, years or start/end intervals",
    ),
    "words": (
        lambda v: isinstance(v, list) and all(isinstance(t, str) for t in v),
        "tags must be a list of words",
    ),
    "slug": (lambda v: isinstance(v, str), "{key!r} must be a note slug"),
    "slugs": (
        lambda v: isinstance(v, str) or _str_list(v),
        "{key!r} must be a slug or a list of slugs",
    ),
    "source": (lambda v: isinstance(v, (str, dict)), "source must be text or a mapping"),
    "reason": (
        lambda v: isinstance(v, (dict, str)),
        "{key} must be a mapping with reason and since",
    ),
    "verify": (lambda v: isinstance(v, dict), "verify must be a mapping (paths, command, expect)"),
}

# (key, code, message): one problem found in a header, before it has a file and a line
Problem = tuple[str | None, str, str]


def header_problems(
    header: Mapping[str, Any],
    config: Config,
    *,
    kind: Kind = "note",
    required: Iterable[str] = REQUIRED,
) -> list[Problem]:
    """Every way `header` breaks the table, as (key or None, code, message); `required` may
    name more fields than the table requires (promote requires a confidence)."""
    out: list[Problem] = []
    for key in required:
        value = header.get(key)
        if value is None or (isinstance(value, str) and not value.strip()):
            out.append((None, "header.missing", f"missing required field {key!r}"))
    for key in sorted(set(RESERVED) & set(header)):
        message = f"key {key!r} breaks python-frontmatter based tools; rename it"
        out.append((key, "header.reserved", message))
    if "sensitive" in header and header["sensitive"] is None:
        out.append(("sensitive", "header.invalid", "sensitive must be true or false"))
    for spec in FIELDS:
        value = header.get(spec.name)
        if value is None or (spec.name == "status" and kind == "draft"):
            continue
        out.extend(_field_problems(spec, value, header, config, kind))
    out.extend(_status_problems(header, kind))
    return out


def _field_problems(
    spec: Field, value: Any, header: Mapping[str, Any], config: Config, kind: Kind
) -> list[Problem]:
    key = spec.name
    accepts, sentence = VALUE_TYPES[spec.type]
    if spec.type == "line" and isinstance(value, str) and not value.strip():
        return []  # blank: reported as missing when required
    if not accepts(value):
        code = "verify.invalid" if spec.type == "verify" else "header.invalid"
        return [(key, code, sentence.format(key=key))]
    if spec.type == "line" and "\n" in value.strip():
        return [(key, "header.invalid", f"{key} must be one line")]
    if spec.type == "line" and has_escapes(value):
        message = f"{key} holds terminal escape sequences or control characters"
        return [(key, "header.escapes", message)]
    if spec.max_items is not None and len(value) > spec.max_items:
        return [(key, "header.invalid", f"at most {spec.max_items} {key} ({len(value)} given)")]
    if spec.allowed is not None:
        allowed = spec.allowed(config)
        if value not in allowed and not (key == "status" and value == "draft"):
            return [(key, spec.unknown_code, _unknown(key, value, allowed))]
    if spec.type == "confidence":
        return _confidence_range(value, header, config)
    if spec.type == "verify":
        return [(key, "verify.invalid", m) for m in verify_problems(value)]
    return []


def _unknown(key: str, value: Any, allowed: Collection[str]) -> str:
    if key == "status":
        return "status must be " + " or ".join(allowed)
    return f"unknown {key} {value!r} (known: {', '.join(allowed)})"


def _confidence_range(value: float, header: Mapping[str, Any], config: Config) -> list[Problem]:
    spec = config.type_spec(header.get("type"))
    if spec is None:
        return []
    lo, hi = spec.confidence
    if lo <= value <= hi:
        return []
    message = f"confidence {value} is outside the {spec.name} range {lo}–{hi}"
    return [("confidence", "confidence.range", message)]


def verify_problems(value: dict[Any, Any]) -> list[str]:
    """What is wrong with a `verify` mapping (check reports these; the audit refuses to run
    a note that has any)."""
    out = []
    unknown = sorted(str(k) for k in value if k not in VERIFY_KEYS)
    if unknown:
        out.append(f"unknown verify keys: {', '.join(unknown)}")
    if "paths" in value and not (_str_list(value["paths"]) or isinstance(value["paths"], str)):
        out.append("verify.paths must be a list of paths or globs")
    if "command" in value and not _str_list(value["command"]):
        out.append("verify.command must be an argument list such as [git, ls-files, src/app.py]")
    if "expect" in value and not isinstance(value["expect"], str):
        out.append("verify.expect must be text")
    if "expect" in value and "command" not in value:
        out.append("verify.expect needs a verify.command")
    if not value.get("paths") and "command" not in value:
        out.append("verify has neither paths nor a command")
    return out


def _status_problems(header: Mapping[str, Any], kind: Kind) -> list[Problem]:
    """Where a status may appear: no draft among the notes, no rule in the inbox, and a note
    naming a successor says it is superseded."""
    raw = header.get("status")
    if kind == "draft":
        if raw is not None and raw != "draft":
            message = f"status {raw!r} on a draft in the inbox: drafts are not rules until promoted"
            return [("status", "rule.in-inbox", message)]
        return []
    out: list[Problem] = []
    if raw == "draft":
        message = "a draft among the notes: promote it ('curator promote') or move it to the inbox"
        out.append(("status", "draft.in-notes", message))
    successor = header.get("superseded_by")
    if isinstance(successor, str) and successor and raw != "superseded":
        key = "status" if "status" in header else "superseded_by"
        out.append((key, "supersede.status", "has superseded_by but status is not superseded"))
    return out


# codes that inform rather than fail
WARNINGS = frozenset({"rule.in-inbox", "supersede.status"})


def check_header(
    header: Mapping[str, Any],
    config: Config,
    *,
    path: str = "",
    line_of: Callable[[str], int] | None = None,
    kind: Kind = "note",
    required: Iterable[str] = REQUIRED,
) -> list[Finding]:
    """`header_problems` as Findings at `path`, each at the line `line_of(key)` gives (1 for
    a missing key, or when `line_of` is None)."""
    out = []
    for key, code, message in header_problems(header, config, kind=kind, required=required):
        line = line_of(key) if key is not None and line_of is not None else 1
        severity: Severity = "warning" if code in WARNINGS else "error"
        out.append(Finding(path, line, severity, code, message))
    return out


def check_note(note: Parsed, config: Config) -> list[Finding]:
    """The header of a parsed note against the table; on a draft every finding is a warning."""
    found = check_header(note.header, config, path=note.rel, line_of=note.line_of, kind=note.kind)
    if note.kind == "draft":
        return [replace(f, severity="warning") for f in found]
    return found


# --------------------------------------------------------------------------- the two predicates


def is_replaced(note: Parsed) -> bool:
    """A note that no longer holds: superseded or retired (drafts never are)."""
    return note.kind == "note" and note.header.get("status") in REPLACED_STATUSES


def unreadable(note: Parsed) -> bool:
    """The header could not be read (bad YAML, no fence, not UTF-8...): what it says is unknown."""
    return not note.ok or any(
        p.severity == "error" and p.code.startswith(("header.", "file.")) for p in note.problems
    )


def hidden_by_header(note: Parsed) -> bool:
    """The note's own header hides it from agents, failing closed: an unreadable header,
    `sensitive` holding anything but exactly false (`"true"`, `1`, `yes`, null...), or a scope
    that is not text (a list or mapping could name a sensitive scope)."""
    if unreadable(note):
        return True
    header = note.header
    scope = header.get("scope")
    return header.get("sensitive", False) is not False or not (
        scope is None or isinstance(scope, str)
    )


def path_problem(rel: str) -> str | None:
    """Why a note's file name cannot be listed on one line (INDEX.md, MEMORY.md, a link, an
    answer), or None: a line break, a control character or an escape sequence. Such a file
    is reported and hidden from agents (`unreadable`), and promote refuses it."""
    if len(rel.splitlines()) > 1 or rel.endswith(("\n", "\r")) or has_escapes(rel):
        shown = rel.encode("unicode_escape").decode("ascii")
        return f"the file name {shown} holds a line break or control characters; rename it"
    return None


def stale_mark(value: Any) -> dict[str, Any] | None:
    """What a header's `stale` value says, failing closed: absent, null or exactly false is
    not stale; the audit's mapping (reason, since) or a text reason is; any other value
    (`true`, a number, a list...) is a stale mark curator cannot read, so stale too."""
    if value is None or value is False:
        return None
    if isinstance(value, dict):
        return {"reason": value.get("reason", ""), "since": value.get("since")}
    return {"reason": value if isinstance(value, str) else "", "since": None}


def not_current(note: Parsed, today: date) -> str | None:
    """Why `note` may not be served as a current hint, or None when it may: the one rule pack,
    ask, the prompt hook, `list --stale` and search read. Fails closed: an unreadable header,
    a stale mark of any kind (`stale_mark`), an `expires` that has passed or is not a date."""
    if unreadable(note):
        return "its header cannot be read"
    header = note.header
    mark = stale_mark(header.get("stale"))
    if mark is not None:
        reason = mark["reason"]
        return f"stale: {reason}" if isinstance(reason, str) and reason.strip() else "stale"
    expires = header.get("expires")
    if expires is None:
        return None
    if not is_date(expires):
        return "its expires date cannot be read"
    day = date.fromisoformat(str(expires)[:10])  # a loader's date or datetime, or text
    return f"expired on {day.isoformat()}" if day < today else None


def why_hidden(note: Parsed, config: Config) -> str | None:
    """Why the gate hides `note` from agents (a phrase for a refusal), or None when it shows
    it: `is_visible` is this being None."""
    if unreadable(note):
        return "its header cannot be read"
    if hidden_by_header(note):
        return "it is marked sensitive"
    if config.is_sensitive_scope(note.scope):
        return f"its scope {note.scope!r} is sensitive"
    return None


def is_visible(note: Parsed, config: Config) -> bool:
    """The visibility gate: may agents (MCP, hooks, search, ask, pack, export) see `note`?
    Not when its header hides it (`hidden_by_header`) or its scope is sensitive in palace.toml.
    `curator.search.filters` renders this same rule over index rows (SQL, a mask, a row)."""
    return why_hidden(note, config) is None
