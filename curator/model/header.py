"""YAML headers: fields and the line of each top-level key, read by `curator.model.yaml`.

The loader refuses aliases (alias bombs), merge keys, duplicate keys and non-string keys such
as `on:` or `1:`, and keeps dates as written (as strings). Lines are counted the way editors
and `git diff` count them (LF, CRLF or CR), not libyaml's way (which also breaks at NEL).
"""

from __future__ import annotations

import bisect
import re
from typing import Any

from yaml.nodes import MappingNode, Node, SequenceNode

from curator.model.yaml import HeaderError, compose, dump_field, dump_header

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


def parse_header(text: str) -> tuple[dict[str, Any], dict[str, int]]:
    """Parse header text into (fields, line of each top-level key, 1-based within the header)."""
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
