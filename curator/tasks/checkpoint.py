"""One checkpoint revision as text: a header of one `key: value` line per field, then the
seven sections as `## ` headings.

Header values are written as JSON scalars that YAML reads the same (a JSON string is a YAML
double-quoted string; the characters YAML would take for line breaks or refuse are escaped),
so the header is valid YAML for any tool, and the one header parser (`curator.model.header`)
reads such lines with `json.loads`: the Tasks screen and `task list` read a thousand headers.
A hand-edited header in plain YAML reads too, through YAML.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from curator.model.finding import Finding
from curator.model.header import HeaderError, parse_header
from curator.model.note import header_bounds
from curator.model.text import one_line
from curator.tasks.errors import BadCheckpoint

# (key, heading) in the order a checkpoint shows them
SECTIONS: tuple[tuple[str, str], ...] = (
    ("objective", "Objective"),
    ("environment", "Environment"),
    ("state", "Where the work stands"),
    ("next_action", "Next action"),
    ("checks", "Checks that remain"),
    ("sources", "Sources"),
    ("risks", "Risks"),
)
SECTION_KEYS = tuple(key for key, _ in SECTIONS)
STATUSES = ("active", "waiting", "done", "abandoned")
OPEN_STATUSES = ("active", "waiting")

# Other spellings a person or an agent may use for a heading (lowercase, no punctuation).
_ALIASES = {
    "objective": "objective",
    "goal": "objective",
    "environment": "environment",
    "where the work stands": "state",
    "state": "state",
    "status of the work": "state",
    "next action": "next_action",
    "the exact next action": "next_action",
    "exact next action": "next_action",
    "next": "next_action",
    "checks that remain": "checks",
    "remaining checks": "checks",
    "checks": "checks",
    "sources": "sources",
    "risks": "risks",
}
_HEADING = re.compile(r"^(#{1,2})[ \t]+(.*?)[ \t#]*$")
_HEADER_KEYS = (
    "task",
    "revision",
    "owner",
    "saved_at",
    "status",
    "unverified",
    "claimed_at",
    "expires_at",
    "event",
    "by",
    "taken_over_from",
    "next_action",
)
_LENGTHS = "lengths"  # header line: each section's length in characters, in SECTIONS order
NEXT_LIMIT = 200  # characters of the next action copied into the header for the task list


@dataclass(frozen=True)
class Header:
    """What the task list needs from a revision without reading its sections."""

    task: str
    revision: int
    owner: str | None
    saved_at: str
    status: str
    unverified: bool = False
    claimed_at: str | None = None
    expires_at: str | None = None
    event: str = "save"
    by: str | None = None
    taken_over_from: str | None = None
    next_action: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {key: getattr(self, key) for key in _HEADER_KEYS}


@dataclass(frozen=True)
class Checkpoint:
    header: Header
    sections: dict[str, str] = field(default_factory=dict)

    def section(self, key: str) -> str:
        return self.sections.get(key, "")


def first_line(text: str, limit: int = NEXT_LIMIT) -> str:
    """The first non-blank line of `text` as `one_line` shows it, cut to `limit` characters."""
    return next((one_line(raw, limit) for raw in text.splitlines() if raw.strip()), "")


def render(header: Header, sections: dict[str, str]) -> bytes:
    """The bytes of a revision file. The header's `lengths` line gives each section's length
    in characters, so a section reads back exactly whatever it holds (a `# next` line, an
    open code fence, a heading of another section)."""
    values = header.as_dict()
    lines = ["---"]
    for key in _HEADER_KEYS:
        value = values[key]
        if value is None and key in ("taken_over_from", "by"):
            continue
        lines.append(f"{key}: {_scalar(value)}")
    texts = [sections.get(key, "") for key in SECTION_KEYS]
    lines.append(f"{_LENGTHS}: {json.dumps([len(text) for text in texts])}")
    lines.append("---")
    parts = ["\n".join(lines), ""]
    for (_, title), body in zip(SECTIONS, texts, strict=True):
        parts.append(f"## {title}\n\n{body}\n" if body else f"## {title}\n")
    return "\n".join(parts).encode("utf-8")


def parse_sections(text: str) -> dict[str, str]:
    """The seven sections of a checkpoint given as markdown; BadCheckpoint names what is wrong.

    A `#` or `##` heading whose words name a section starts it; deeper headings and any other
    text stay inside the section. A title heading before the first section is allowed, other
    text there is refused (it would be lost).
    """
    found: dict[str, list[str]] = {}
    current: str | None = None
    in_fence = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        key = _ALIASES.get(_words(match.group(2))) if match else None
        if key is not None:
            if key in found:
                raise BadCheckpoint(f"line {number}: the section {line.strip()!r} appears twice")
            found[key] = []
            current = key
        elif current is not None:
            found[current].append(line)
        elif line.strip() and not (match and match.group(1) == "#"):
            raise BadCheckpoint(
                f"line {number}: text before the first section heading "
                f"(start with '## {SECTIONS[0][1]}')"
            )
    missing = [title for key, title in SECTIONS if key not in found]
    if missing:
        raise BadCheckpoint(
            "the checkpoint lacks the section(s) "
            + ", ".join(f"'## {t}'" for t in missing)
            + "; give all seven: "
            + ", ".join(t for _, t in SECTIONS)
        )
    return {key: "\n".join(lines).strip("\n") for key, lines in found.items()}


def check_sections(sections: dict[str, str]) -> dict[str, str]:
    """The seven sections given by key (MCP): every key known, every value a string."""
    unknown = sorted(set(sections) - set(SECTION_KEYS))
    if unknown:
        raise BadCheckpoint(f"unknown section {unknown[0]!r} (known: {', '.join(SECTION_KEYS)})")
    if not all(isinstance(v, str) for v in sections.values()):
        raise BadCheckpoint("every section is text")
    for key, value in sections.items():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise BadCheckpoint(f"section {key!r} holds a lone surrogate (not text)") from None
    return {key: sections.get(key, "") for key in SECTION_KEYS}


def _words(heading: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", heading.lower()).split())


def split(data: bytes) -> tuple[str, str]:
    """(header text, body text) of a revision file, the header's fences found as a note's
    are (`header_bounds`); BadCheckpoint when there is no header."""
    text = data.decode("utf-8", errors="replace")
    bounds = header_bounds(text)
    if isinstance(bounds, Finding):
        raise BadCheckpoint(bounds.message)
    _newline, start, stop, body = bounds
    return text[start:stop], text[body:]


def fields(head: str) -> dict[str, Any]:
    """The header's fields, read by the one header parser (`curator.model.header`: lines of
    JSON scalars, as `render` writes them, without YAML; a hand-edited header as YAML)."""
    try:
        return parse_header(head)[0]
    except HeaderError as exc:
        raise BadCheckpoint(f"the header is not readable: {exc.message}") from None


def read_header(head: str) -> Header:
    return header_of(fields(head))


def header_of(values: dict[str, Any]) -> Header:
    """The task list's header from the fields of a revision's header."""
    try:
        header = Header(
            task=str(values["task"]),
            revision=int(values["revision"]),
            owner=_opt_str(values.get("owner")),
            saved_at=str(values.get("saved_at") or ""),
            status=str(values.get("status") or "active"),
            unverified=bool(values.get("unverified", False)),
            claimed_at=_opt_str(values.get("claimed_at")),
            expires_at=_opt_str(values.get("expires_at")),
            event=str(values.get("event") or "save"),
            by=_opt_str(values.get("by")),
            taken_over_from=_opt_str(values.get("taken_over_from")),
            next_action=str(values.get("next_action") or ""),
        )
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise BadCheckpoint(f"the header lacks or mangles a field ({exc})") from None
    if header.status not in STATUSES:
        raise BadCheckpoint(f"unknown status {header.status!r} (known: {', '.join(STATUSES)})")
    return header


def parse(data: bytes) -> Checkpoint:
    head, body = split(data)
    values = fields(head)
    exact = _measured_sections(body, _lengths(values.get(_LENGTHS)))
    return Checkpoint(header_of(values), exact if exact is not None else _body_sections(body))


def _lengths(value: Any) -> list[int] | None:
    ok = isinstance(value, list) and len(value) == len(SECTIONS)
    return value if ok and all(type(n) is int and n >= 0 for n in value) else None


def _measured_sections(body: str, lengths: list[int] | None) -> dict[str, str] | None:
    """The sections as `render` wrote them, cut by their lengths; None when the file is not
    in that form (written before lengths were kept, or edited by hand: read by headings)."""
    if lengths is None:
        return None
    out: dict[str, str] = {}
    pos = 0
    for (key, title), size in zip(SECTIONS, lengths, strict=True):
        opening = f"\n## {title}\n" + ("\n" if size else "")
        if not body.startswith(opening, pos):
            return None
        pos += len(opening)
        out[key] = body[pos : pos + size]
        pos += size
        if size:
            if body[pos : pos + 1] != "\n":
                return None
            pos += 1
    return out if pos == len(body) else None


def _body_sections(body: str) -> dict[str, str]:
    try:
        return parse_sections(body)
    except BadCheckpoint:  # a hand-edited revision: keep what can be read
        out: dict[str, str] = {}
        current = None
        for line in body.splitlines():
            match = _HEADING.match(line)
            key = _ALIASES.get(_words(match.group(2))) if match else None
            if key is not None:
                current = key
                out[key] = ""
            elif current is not None:
                out[current] = (out[current] + "\n" + line) if out[current] else line
        return {k: v.strip("\n") for k, v in out.items()}


# what json.dumps leaves raw but YAML reads otherwise: C1 controls and the byte order mark
# (refused), NEL and the Unicode line and paragraph separators (line breaks), lone surrogates
_NOT_YAML = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")


def _scalar(value: Any) -> str:
    """`value` as JSON that YAML reads the same (see the module's docstring)."""
    text = json.dumps(value, ensure_ascii=False)
    return _NOT_YAML.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _opt_str(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)
