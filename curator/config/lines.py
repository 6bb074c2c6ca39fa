"""Errors in palace.toml with their line: tomllib keeps no positions, so the line of a key is
found in the file's text, and msgspec's error path (`$.audit.timeout`) says which key."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import msgspec

from curator.errors import ConfigError

_ERROR = re.compile(r"^(?P<reason>.*?)(?: - at `(?P<path>[^`]*)`(?: in `[^`]*`)?)?$", re.DOTALL)
_UNKNOWN = re.compile(r"^Object contains unknown field `(?P<key>[^`]*)`")
_STEP = re.compile(r"\.([^.\[]+)|\[(\d+|\.\.\.)\]")


class Locator:
    """Finds the line of a key in the TOML text."""

    def __init__(self, text: str, path: Path) -> None:
        self.lines = text.splitlines()
        self.path = path

    def fail(self, section: str, key: str | None, message: str) -> ConfigError:
        return ConfigError(message, path=str(self.path), line=self.line(section, key))

    def line(self, section: str, key: str | None = None) -> int:
        """The line of `key` in table `section` (dotted), however the file spells it: under
        a [section] header, as a dotted key under a shorter table's header or at the top
        (`scopes.app.sensitive = ...`), or inside an inline table (its line). 0: not found."""
        path = [*(section.split(".") if section else []), *([key] if key else [])]
        tables = len(path) - (1 if key else 0)
        if key and (own := self._table(path)) is not None:
            return own[0]  # the key is a table of its own: [section.key]
        for depth in range(tables, -1, -1):
            span = self._table(path[:depth])
            if span is None:
                continue
            start, end = span
            rest = path[depth:]
            if not rest:
                return start  # the [table] header itself
            for size in range(len(rest), 0, -1):  # the longest spelling of the key first
                pattern = _key_re(rest[:size])
                for i in range(start, end):
                    if pattern.match(self.lines[i]):
                        return i + 1
            if depth:
                return start  # the key is not written out: its table's header
        return 0

    def _table(self, parts: list[str]) -> tuple[int, int] | None:
        """(header line, end) of [parts] — 1-based header, exclusive end index; the top level
        is (0, first header)."""
        headers = [i for i, ln in enumerate(self.lines) if re.match(r"^\s*\[", ln)]
        if not parts:
            return 0, headers[0] if headers else len(self.lines)
        header = re.compile(r"^\s*\[+\s*" + _dotted(parts) + r"\s*\]+")
        for n, i in enumerate(headers):
            if header.match(self.lines[i]):
                end = headers[n + 1] if n + 1 < len(headers) else len(self.lines)
                return i + 1, end
        return None


def _dotted(parts: list[str]) -> str:
    return r"\s*\.\s*".join(r"[\"']?" + re.escape(p) + r"[\"']?" for p in parts)


def _key_re(parts: list[str]) -> re.Pattern[str]:
    return re.compile(r"^\s*" + _dotted(parts) + r"\s*[=.]")


def convert(value: Any, kind: type[Any], loc: Locator, section: str) -> Any:
    """`value` as the struct `kind`, or a ConfigError at the line of the key that is wrong."""
    try:
        return msgspec.convert(value, kind)
    except msgspec.ValidationError as exc:
        raise _explain(str(exc), kind, loc, section) from None


def _explain(error: str, kind: type[Any], loc: Locator, section: str) -> ConfigError:
    match = _ERROR.match(error)
    reason = match.group("reason") if match else error
    at = (match.group("path") if match else None) or ""
    steps = [m.group(1) or m.group(2) for m in _STEP.finditer(at)]
    # the table the error is in: keys down to the last struct, then the key within it
    keys = [s for s in steps if not s.isdigit() and s != "..."]
    where = ".".join(filter(None, [section, *keys]))
    unknown = _UNKNOWN.match(reason)
    if unknown:
        key = unknown.group("key")
        known = ", ".join(_fields(kind, keys))
        if not where:
            return loc.fail("", key, f"unknown section or key {key!r} (known: {known})")
        return loc.fail(where, key, f"unknown key {key!r} in [{where}] (known: {known})")
    if reason.startswith("Expected `object`"):
        return loc.fail(where, None, f"[{where}] must be a table")
    table, _, key = where.rpartition(".")
    description = _description(kind, keys)
    message = f"{key} must be {description}" if description else f"{key}: {reason}"
    return loc.fail(table, key, message)


def _struct_field(kind: Any, keys: list[str]) -> Any:
    """The msgspec type info of the field at `keys` in struct `kind` (None: not a field)."""
    info: Any = msgspec.inspect.type_info(kind)
    for key in keys:
        info = _unwrap(info)
        if not isinstance(info, msgspec.inspect.StructType):
            return None
        found = next((f for f in info.fields if f.name == key), None)
        if found is None:
            return None
        info = found.type
    return info


def _unwrap(info: Any) -> Any:
    while True:
        if isinstance(info, msgspec.inspect.Metadata):
            info = info.type
        elif isinstance(info, msgspec.inspect.UnionType):
            info = next(t for t in info.types if not isinstance(t, msgspec.inspect.NoneType))
        else:
            return info


def _fields(kind: Any, keys: list[str]) -> list[str]:
    info = _unwrap(_struct_field(kind, keys)) if keys else msgspec.inspect.type_info(kind)
    if isinstance(info, msgspec.inspect.StructType):
        return sorted(f.name for f in info.fields)
    return []


def _description(kind: Any, keys: list[str]) -> str:
    """What the field at `keys` must be: the description in its Meta, outermost first."""
    info = _struct_field(kind, keys)
    while info is not None:
        if isinstance(info, msgspec.inspect.Metadata):
            text = (info.extra_json_schema or {}).get("description")
            if text:
                return str(text)
            info = info.type
        elif isinstance(info, msgspec.inspect.UnionType):
            info = next(t for t in info.types if not isinstance(t, msgspec.inspect.NoneType))
        else:
            return ""
    return ""
