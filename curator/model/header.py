"""YAML headers: fields and the line of each top-level key, read by `curator.model.yaml`.

The loader refuses aliases (alias bombs), merge keys, duplicate keys and non-string keys such
as `on:` or `1:`, and keeps dates as written (as strings). Lines are counted the way editors
and `git diff` count them (LF, CRLF or CR), not libyaml's way (which also breaks at NEL).
"""

from __future__ import annotations

import bisect
import json
import re
from typing import Any

from yaml.nodes import MappingNode, Node, SequenceNode

from curator.model.yaml import MAX_NODES, HeaderError, compose, dump_field, dump_header

__all__ = ["DELETE", "HeaderError", "LineIndex", "dump_field", "dump_header", "parse_header"]

DELETE: Any = object()
"""Pass as a value to `edit_header` to remove a key."""

_BREAK = re.compile(r"\r\n|\n|\r")


class LineIndex:
    """1-based line numbers of character offsets in one text."""

    def __init__(self, text: str) -> None:
        self.starts = [0, *(m.end() for m in _BREAK.finditer(text))]

    def line(self, index: int) -> int:
        return bisect.bisect_right(self.starts, index)


def _mapping(node: Node | None) -> MappingNode | None:
    if node is None or isinstance(node, MappingNode):
        return node
    kind = "a list" if isinstance(node, SequenceNode) else "a single value"
    raise HeaderError(f"the header is {kind}, not a set of key: value fields", 1)


def _located(exc: HeaderError, text: str) -> HeaderError:
    line = LineIndex(text).line(exc.index) if exc.index >= 0 else exc.line
    return HeaderError(exc.message, line, index=exc.index)


# A header line whose value YAML reads exactly as JSON does: a double-quoted string of
# printable characters and JSON's escapes, a whole number, true, false, null, or a list of
# whole numbers (what curator's task checkpoints write). Surrogate-pair escapes (an emoji
# written by json.dumps) are read as JSON reads them, where libyaml refuses them.
_INT = r"-?(?:0|[1-9][0-9]{0,17})"
_FAST_LINE = re.compile(
    r"([A-Za-z_][A-Za-z0-9_]*): "
    r'("(?:[^"\\\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]'
    r'|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"'
    rf"|{_INT}|true|false|null|\[(?:{_INT}(?:, {_INT})*)?\])"
)
# keys YAML 1.1 reads as booleans or null (refused as keys): left to the YAML path
_NOT_STRING_KEYS = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})
_YAML_BREAKS = ("\x85", "\u2028", "\u2029")


def _json_lines(text: str) -> tuple[dict[str, Any], dict[str, int]] | None:
    """The header read without YAML when every line is `key: value` with a value of the
    forms above (what YAML reads the same); None when any line is not."""
    if _FAST_LINE.match(text) is None or any(b in text for b in _YAML_BREAKS):
        return None  # (the first line decides most headers: a note's are plain YAML)
    data: dict[str, Any] = {}
    lines: dict[str, int] = {}
    nodes = 1
    for number, line in enumerate(_BREAK.split(text), 1):
        if not line:
            continue
        found = _FAST_LINE.fullmatch(line)
        if found is None:
            return None
        key = found.group(1)
        if key in data or key.lower() in _NOT_STRING_KEYS:
            return None
        data[key] = value = json.loads(found.group(2))
        lines[key] = number
        nodes += 2 + (len(value) if isinstance(value, list) else 0)
    return (data, lines) if nodes <= MAX_NODES else None  # more: YAML's refusal


def parse_header(text: str) -> tuple[dict[str, Any], dict[str, int]]:
    """Parse header text into (fields, line of each top-level key, 1-based within the header).
    Lines of JSON scalars are read without YAML (a task list reads a thousand headers)."""
    fast = _json_lines(text)
    return fast if fast is not None else _yaml_header(text)


def _yaml_header(text: str) -> tuple[dict[str, Any], dict[str, int]]:
    try:
        node, construct = compose(text)
        mapping = _mapping(node)
        if mapping is None:
            return {}, {}
        data = construct(mapping)
    except HeaderError as exc:
        raise _located(exc, text) from None
    if "\x85" in text or "\u2028" in text or "\u2029" in text:  # libyaml breaks lines there
        lines = LineIndex(text)
        return data, {key.value: lines.line(key.start_mark.index) for key, _ in mapping.value}
    return data, {key.value: key.start_mark.line + 1 for key, _ in mapping.value}
