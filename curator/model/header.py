"""YAML headers: a safe parser and byte-preserving field edits.

The parser refuses aliases (alias bombs), merge keys, duplicate keys and non-string keys such
as `on:` or `1:`, and keeps dates as written (as strings). Most headers are flat `key: value`
lines, so those take a fast path that resolves scalars with YAML's own rules; anything else
goes through the C-accelerated YAML composer.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_STR = "tag:yaml.org,2002:str"
_FLOAT = "tag:yaml.org,2002:float"

try:
    _BaseLoader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _BaseLoader = yaml.SafeLoader


class _Loader(_BaseLoader):
    """Safe loader that reads dates as the strings they were written as."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != _TIMESTAMP]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class _Dumper(yaml.SafeDumper):
    """Safe dumper that writes date strings plainly (they read back as strings)."""


_Dumper.yaml_implicit_resolvers = _Loader.yaml_implicit_resolvers


class HeaderError(Exception):
    """A header that cannot be read; `line` is 1-based within the header text (0: unknown)."""

    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


DELETE: Any = object()
"""Pass as a value to `edit_fields` to remove a key."""

_KEY_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]+(.*?))?[ \t]*$")
_TOP_KEY = re.compile(r"""^(?:"([^"]*)"|'([^']*)'|([^\s#'"\-?:][^:]*?))[ \t]*:(?:[ \t]|$)""")
_SIMPLE_DQ = re.compile(r'^"([^"\\]*)"$')
_SIMPLE_SQ = re.compile(r"^'([^']*)'$")
_PLAIN_BAD_START = set("[]{}&*!|>'\"%@`#,?:-")
_PLAIN_NUMBER = re.compile(r"^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$")
_DASHLIKE_OK = re.compile(r"^-[A-Za-z0-9_./~]")  # `-q` is a plain scalar (an option)
_constructor = SafeConstructor()


_IMPLICIT = _Loader.yaml_implicit_resolvers  # first character -> [(tag, regexp)]


def _resolve_plain(value: str) -> tuple[bool, Any]:
    """Resolve a plain scalar as YAML would; (False, None) when the fast path must give up."""
    if not value or ": " in value or " #" in value:
        return False, None
    if value[0] in _PLAIN_BAD_START and not _DASHLIKE_OK.match(value):
        return False, None
    if value.endswith(":") or "\t" in value:
        return False, None
    tag = _STR
    for candidate, regexp in _IMPLICIT.get(value[0], ()):
        if regexp.match(value):
            tag = candidate
            break
    if tag == _STR:
        return True, value
    if tag in ("tag:yaml.org,2002:merge", "tag:yaml.org,2002:value"):
        return False, None
    if _PLAIN_NUMBER.match(value):  # `0.8`, `12`: what the constructor makes, sooner
        return True, float(value) if tag == _FLOAT else int(value)
    node = ScalarNode(tag, value)
    try:
        return True, _constructor.construct_object(node, deep=True)
    except yaml.YAMLError:
        return False, None


_FLOW_STOP = frozenset(",[]{}")


def _flow_plain(text: str, i: int, in_map_key: bool) -> tuple[int, Any] | None:
    """A plain scalar inside a flow collection, from `i` up to `,` `]` `}` (or `: ` for a
    key); (end, value) or None."""
    j = i
    n = len(text)
    while j < n and text[j] not in _FLOW_STOP:
        if text[j] == ":" and (j + 1 == n or text[j + 1] in " ,[]{}"):
            if not in_map_key:
                return None  # `a: b` inside a list is a one-pair map: rare, leave it to YAML
            break
        if text[j] == "#" and text[j - 1] == " ":
            return None
        j += 1
    raw = text[i:j].strip()
    if not raw:
        return None
    ok, value = _resolve_plain(raw)
    return (j, value) if ok else None


def _flow_node(text: str, i: int, in_map_key: bool = False) -> tuple[int, Any] | None:
    """One flow node starting at `i` (spaces skipped): a quoted string without escapes, a plain
    scalar, or a nested flow list or map. (end, value) or None to let YAML decide."""
    n = len(text)
    while i < n and text[i] == " ":
        i += 1
    if i == n:
        return None
    c = text[i]
    if c in "\"'":
        close = text.find(c, i + 1)
        if close < 0:
            return None
        inner = text[i + 1 : close]
        if (c == '"' and "\\" in inner) or (c == "'" and text[close + 1 : close + 2] == "'"):
            return None  # escapes: the full parser
        return close + 1, inner
    if c in "[{":
        return _flow_collection(text, i + 1, "]" if c == "[" else "}")
    return _flow_plain(text, i, in_map_key)


def _flow_collection(text: str, i: int, close: str) -> tuple[int, Any] | None:
    """The items of a flow list (`close` is "]") or map ("}") opened just before `i`."""
    n = len(text)
    items: list[Any] = []
    mapping: dict[str, Any] = {}
    is_map = close == "}"
    while True:
        while i < n and text[i] == " ":
            i += 1
        if i < n and text[i] == close and not (items or mapping):
            return i + 1, mapping if is_map else items
        got = _flow_node(text, i, in_map_key=is_map)
        if got is None:
            return None
        i, value = got
        if is_map:
            if not isinstance(value, str) or value in mapping or text[i : i + 2] != ": ":
                return None
            got = _flow_node(text, i + 2)
            if got is None:
                return None
            i, mapping[value] = got
        else:
            items.append(value)
        while i < n and text[i] == " ":
            i += 1
        if i < n and text[i] == ",":
            i += 1
        elif i < n and text[i] == close:
            return i + 1, mapping if is_map else items
        else:
            return None


def _fast_value(raw: str) -> tuple[bool, Any]:
    """A one-line value: quoted string without escapes, flow list or map (nested, of plain
    scalars and simple quoted strings), or a plain scalar."""
    if (m := _SIMPLE_DQ.match(raw)) or (m := _SIMPLE_SQ.match(raw)):
        return True, m.group(1)
    if raw[:1] in ("[", "{"):
        got = _flow_node(raw, 0)
        if got is None or raw[got[0] :].strip():
            return False, None
        return True, got[1]
    return _resolve_plain(raw)


def _fast_block(lines: list[str]) -> tuple[bool, Any]:
    """One level of indented `- item` or `key: value` lines under a key."""
    indent = len(lines[0]) - len(lines[0].lstrip(" "))
    if indent == 0 or any(len(ln) - len(ln.lstrip(" ")) != indent or "\t" in ln for ln in lines):
        return False, None
    stripped = [ln[indent:] for ln in lines]
    if all(ln.startswith("- ") for ln in stripped):
        items = []
        for ln in stripped:
            ok, value = _fast_value(ln[2:].strip())
            if not ok:
                return False, None
            items.append(value)
        return True, items
    mapping: dict[str, Any] = {}
    for ln in stripped:
        match = _KEY_LINE.match(ln)
        if not match or match.group(2) is None or match.group(1) in mapping:
            return False, None
        ok_key, resolved = _resolve_plain(match.group(1))
        ok, value = _fast_value(match.group(2))
        if not ok_key or not ok or not isinstance(resolved, str):
            return False, None
        mapping[match.group(1)] = value
    return True, mapping


_STRING_KEYS: set[str] = set()  # key names already known to read as strings (`on` does not)


def _fast_parse(text: str) -> tuple[dict[str, Any], dict[str, int]] | None:
    """Flat headers without YAML's rarer features; None sends the header to the full parser."""
    data: dict[str, Any] = {}
    lines: dict[str, int] = {}
    all_lines = text.splitlines()
    i, count = 0, len(all_lines)
    while i < count:
        line = all_lines[i]
        if not line.strip() or line.startswith("#"):
            i += 1
            continue
        match = _KEY_LINE.match(line)
        if not match:
            return None
        key, raw = sys.intern(match.group(1)), match.group(2)  # one copy of each key name
        if key not in _STRING_KEYS:
            ok, resolved_key = _resolve_plain(key)
            if not ok or not isinstance(resolved_key, str):
                return None
            if len(_STRING_KEYS) < 4096:
                _STRING_KEYS.add(key)
        if key in data:
            return None
        lines[key] = i + 1
        i += 1
        if raw is None:
            block = []
            while i < count and (all_lines[i][:1] in (" ", "\t") or not all_lines[i].strip()):
                if all_lines[i].strip():
                    block.append(all_lines[i])
                i += 1
            if not block:
                return None  # an empty value: let YAML decide what it means
            ok, value = _fast_block(block)
        else:
            ok, value = _fast_value(raw)
        if not ok:
            return None
        data[key] = value
    return data, lines


def _check_node(node: Node, seen: set[int], used_at: int = 0) -> None:
    # An alias is the anchored node met a second time; its own mark is the anchor's line,
    # so report the line where it is used (the key or the list holding it).
    if id(node) in seen:
        line = used_at or node.start_mark.line + 1
        raise HeaderError("YAML aliases are not allowed in a header", line)
    seen.add(id(node))
    if isinstance(node, MappingNode):
        keys: set[str] = set()
        for key_node, value_node in node.value:
            line = key_node.start_mark.line + 1
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise HeaderError("YAML merge keys (<<) are not allowed in a header", line)
            if not isinstance(key_node, ScalarNode) or key_node.tag != _STR:
                shown = key_node.value if isinstance(key_node, ScalarNode) else "?"
                reads_as = key_node.tag.rsplit(":", 1)[-1]
                raise HeaderError(
                    f"key {shown!r} is not a string (YAML reads it as {reads_as}); quote it",
                    line,
                )
            if key_node.value in keys:
                raise HeaderError(f"duplicate key {key_node.value!r}", line)
            keys.add(key_node.value)
            _check_node(key_node, seen)
            _check_node(value_node, seen, line)
    elif isinstance(node, SequenceNode):
        for item in node.value:
            _check_node(item, seen, node.start_mark.line + 1)


def parse_header(text: str) -> tuple[dict[str, Any], dict[str, int]]:
    """Parse header text into (fields, line of each top-level key, 1-based within the header)."""
    fast = _fast_parse(text)
    if fast is not None:
        return fast
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or "malformed YAML"
        raise HeaderError(f"malformed YAML: {problem}", mark.line + 1 if mark else 0) from None
    except yaml.YAMLError as exc:
        raise HeaderError(f"malformed YAML: {exc}") from None
    if node is None:
        return {}, {}
    if not isinstance(node, MappingNode):
        kind = "a list" if isinstance(node, SequenceNode) else "a single value"
        raise HeaderError(f"the header is {kind}, not a set of key: value fields", 1)
    _check_node(node, set())
    try:
        data = SafeConstructor().construct_document(node)
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else 0
        raise HeaderError(f"unreadable YAML value: {exc.problem}", line) from None
    except yaml.YAMLError as exc:
        raise HeaderError(f"unreadable YAML value: {exc}") from None
    lines = {key.value: key.start_mark.line + 1 for key, _ in node.value}
    return data, lines


def dump_field(key: str, value: Any, newline: str = "\n") -> str:
    """One top-level field as YAML lines: flat lists in flow style, mappings as blocks."""
    if isinstance(value, list) and all(not isinstance(v, (list, dict)) for v in value):
        rendered = yaml.dump(
            {key: value},
            Dumper=_Dumper,
            default_flow_style=None,
            allow_unicode=True,
            sort_keys=False,
            width=10**6,
        )
    else:
        rendered = yaml.dump(
            {key: value},
            Dumper=_Dumper,
            default_flow_style=False,
            allow_unicode=True,
            sort_keys=False,
            width=10**6,
            indent=2,
        )
    if rendered.endswith("...\n"):
        rendered = rendered[: -len("...\n")]
    return rendered.replace("\n", newline)


def dump_header(fields: Mapping[str, Any], newline: str = "\n") -> str:
    """A whole header body (without the --- fences) in the given key order."""
    return "".join(dump_field(key, value, newline) for key, value in fields.items())


def _key_of(line: str) -> str | None:
    line = line.rstrip("\r\n")  # `$` in _TOP_KEY does not match before "\r" (CRLF files)
    if not line or line[0] in " \t#-":
        return None
    match = _TOP_KEY.match(line)
    if not match:
        return None
    return next(g for g in match.groups() if g is not None).strip()


def edit_fields(header_lines: list[str], updates: Mapping[str, Any], newline: str) -> list[str]:
    """Replace, add or remove top-level fields; every other line stays as it was."""
    blocks: list[tuple[str | None, list[str]]] = []
    for line in header_lines:
        key = _key_of(line)
        # a comment at column 0 belongs to no value: editing the key above it keeps it
        if key is not None or not blocks or line.startswith("#"):
            blocks.append((key, [line]))
        else:
            blocks[-1][1].append(line)
    remaining = dict(updates)
    out: list[str] = []
    for key, lines in blocks:
        if key is not None and key in remaining:
            value = remaining.pop(key)
            if value is not DELETE:
                out.extend(dump_field(key, value, newline).splitlines(keepends=True))
        else:
            out.extend(lines)
    if out and not out[-1].endswith(("\n", "\r")):
        out[-1] += newline
    for key, value in remaining.items():
        if value is not DELETE:
            out.extend(dump_field(key, value, newline).splitlines(keepends=True))
    return out
