"""A header read as Claude Code reads its memories: line by line, where YAML would refuse.

Claude Code reads `description: Standing rule: ask first` as the text after the first `: `
(its loader splits each `key: value` line; public reports of its memory and skill loaders
show the value kept), though strict YAML calls the second `: ` a nested mapping and refuses
the whole header. `loose_header` reads each top-level field as YAML on its own; a field that
is one `key: value` line YAML refuses only for a `: ` inside the value is that text, and
reported with the quoted line that fixes it. Anything else unreadable leaves the header
unreadable (None), so the note stays hidden and reported as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from curator.model.header import parse_header
from curator.model.yaml import HeaderError, dump_field

_KEY_LINE = re.compile(r"[^\s#\-?:'\"{\[|>!&*%@`][^:]*:(?:[ \t]|$)")
_SLIP = re.compile(r"(?P<key>[A-Za-z_][\w.-]*):[ \t]+(?P<value>[^\s'\"{\[|>!&*#].*?)[ \t]*")


@dataclass(frozen=True, slots=True)
class Slip:
    key: str
    line: int  # 1-based within the header
    fix: str  # the line that says the same in YAML


@dataclass(frozen=True, slots=True)
class LooseHeader:
    fields: dict[str, Any]
    lines: dict[str, int]  # 1-based within the header, as parse_header gives them
    slips: tuple[Slip, ...]


def loose_header(text: str) -> LooseHeader | None:
    """The header's fields read field by field, or None when one is unreadable for a reason
    other than an unquoted `: ` in a one-line value."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if _KEY_LINE.match(line)]
    head = lines[: starts[0]] if starts else lines
    if any(line.strip() and not line.lstrip().startswith("#") for line in head):
        return None
    fields: dict[str, Any] = {}
    at: dict[str, int] = {}
    slips: list[Slip] = []
    for n, start in enumerate(starts):
        chunk = lines[start : starts[n + 1] if n + 1 < len(starts) else len(lines)]
        try:
            # a field ends with the line break it has in the header: the last one may have
            # none, and a block scalar's value (`a: >` then ` :`) keeps a final break only
            # where there is one
            end = "\n" if n + 1 < len(starts) or text.endswith(("\n", "\r")) else ""
            found, key_lines = parse_header("\n".join(chunk) + end)
            where = {k: start + v for k, v in key_lines.items()}
        except HeaderError:
            rest = [
                line for line in chunk[1:] if line.strip() and not line.lstrip().startswith("#")
            ]
            slip = _SLIP.fullmatch(chunk[0])
            if rest or slip is None or ": " not in slip["value"]:
                return None
            key, value = slip["key"], slip["value"]
            try:
                fix = dump_field(key, value).rstrip("\n")
            except HeaderError:
                return None
            found, where = {key: value}, {key: start + 1}
            slips.append(Slip(key, start + 1, fix))
        if set(found) & set(fields):  # a key twice: as unreadable as YAML says
            return None
        fields.update(found)
        at.update(where)
    return LooseHeader(fields, at, tuple(slips))
