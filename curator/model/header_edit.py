"""Byte-preserving header edits: change, add or remove top-level fields, keep every other byte.

Each top-level field's span comes from the YAML loader's own marks (where the key starts,
where its value ends), not from a line scanner, so keys that are valid but unusual (`a: b`
quoted, `'it''s'`, `? key`, a key starting with `-`) and values continued at column 0 are
found exactly as YAML reads them. Every edit is read back before it is returned: the fields
not edited must keep their exact bytes and values, the edited ones must read as intended;
otherwise the edit is refused and nothing is written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from curator.errors import CuratorError
from curator.model.header import DELETE
from curator.model.yaml import HeaderError, compose, dump_field, same

_BREAK = re.compile(r"\r\n|\n|\r")
_WHITESPACE = " \t\r\n"
_STR = "tag:yaml.org,2002:str"


class NoteEditError(CuratorError):
    """A header edit is refused (the header did not parse, or the edited text would not read
    back as intended); nothing is written."""


@dataclass(frozen=True, slots=True)
class Field:
    """One top-level field: its key, its value and the span [start, end) of its lines."""

    key: str
    value: Any
    start: int
    end: int


def fields_of(text: str) -> list[Field]:
    """The top-level fields of a header with their spans; HeaderError when it does not read
    or its layout cannot be edited line by line (a flow `{...}` header, two fields on one
    line)."""
    node, construct = compose(text)
    if node is None:
        return []
    if not isinstance(node, MappingNode):
        raise HeaderError("the header is not a set of key: value fields")
    if node.flow_style:
        raise HeaderError("the header is one {...} mapping; curator edits block headers only")
    values = construct(node)
    out: list[Field] = []
    previous_end = 0
    for key, value in node.value:
        start = _entry_start(text, key.start_mark.index, previous_end)
        end = _line_end(text, _content_end(text, key, value))
        if start < previous_end:
            raise HeaderError(f"field {key.value!r} shares a line with the one before it")
        out.append(Field(key.value, values[key.value], start, end))
        previous_end = end
    return out


def _line_start(text: str, index: int) -> int:
    return max(text.rfind("\n", 0, index), text.rfind("\r", 0, index)) + 1


def _line_end(text: str, index: int) -> int:
    """The end of the line holding text[index - 1], after its line break."""
    match = _BREAK.search(text, max(index, 0))
    return match.end() if match else len(text)


def _entry_start(text: str, key_at: int, previous_end: int) -> int:
    """Where a field's lines begin: its key's line, or the line of a `?` that opens it."""
    start = _line_start(text, key_at)
    position = previous_end
    while position < start:
        line_end = _line_end(text, position)
        if text[position:line_end].lstrip(" \t").startswith("?"):
            return position
        position = line_end
    return start


def _content_end(text: str, key: Node, value: Node) -> int:
    """The offset just after the last character the field's value is written with.

    A block collection's own end mark lies at the next token (past comments and blank lines
    that follow it), so the last scalar or flow collection inside it is used instead.
    """
    last_key, target = key, value
    while isinstance(target, (MappingNode, SequenceNode)) and not target.flow_style:
        if not target.value:
            break
        if isinstance(target, MappingNode):
            last_key, target = target.value[-1]
        else:
            last_key, target = target, target.value[-1]
    end = target.end_mark.index
    if isinstance(target, ScalarNode) and target.start_mark.index == end:
        end = max(end, last_key.end_mark.index)  # an empty value: `key:` or `- `
    while end > 0 and text[end - 1] in _WHITESPACE:
        end -= 1
    return end


def edit_fields(text: str, updates: Mapping[str, Any], newline: str) -> str:
    """The header text with the named fields replaced, added (at the end) or removed (for
    `DELETE`); NoteEditError when the result would not read back as intended."""
    try:
        before = fields_of(text)
    except HeaderError as exc:
        raise NoteEditError(f"cannot edit this header: {exc.message}") from None
    pieces: list[str] = []
    last = 0
    remaining = dict(updates)
    for item in before:
        if item.key not in remaining:
            continue
        value = remaining.pop(item.key)
        pieces.append(text[last : item.start])
        if value is not DELETE:
            pieces.append(_dumped(item.key, value, newline))
        last = item.end
    pieces.append(text[last:])
    if pieces[-1] and not pieces[-1].endswith(("\n", "\r")):
        pieces.append(newline)
    for key, value in remaining.items():
        if value is not DELETE:
            pieces.append(_dumped(key, value, newline))
    result = "".join(pieces)
    _check_edit(text, before, result, updates)
    return result


def rewrite_strings(text: str, rewrite: Callable[[str], str], newline: str) -> str:
    """The header text with `rewrite` applied to every top-level string value and every
    string in a top-level list. Each changed string is rewritten in its own bytes (quoting,
    comments and layout kept) when that reads back as intended, else its field is written
    afresh by the dumper; every other byte is kept, and NoteEditError when neither reads back."""
    try:
        before = fields_of(text)
        node, _ = compose(text)
    except HeaderError as exc:
        raise NoteEditError(f"cannot edit this header: {exc.message}") from None
    updates: dict[str, Any] = {}
    for item in before:
        value = _rewritten(item.value, rewrite)
        if value != item.value:
            updates[item.key] = value
    if not updates or not isinstance(node, MappingNode):
        return text
    pieces: list[str] = []
    last = 0
    for key, value in node.value:
        if key.value not in updates:
            continue
        for scalar in value.value if isinstance(value, SequenceNode) else [value]:
            if isinstance(scalar, ScalarNode) and scalar.tag == _STR:
                start, end = scalar.start_mark.index, scalar.end_mark.index
                pieces += [text[last:start], rewrite(text[start:end])]
                last = end
    pieces.append(text[last:])
    in_place = "".join(pieces)
    try:
        _check_edit(text, before, in_place, updates)
    except NoteEditError:  # the new text needs quoting the old did not: dump the field
        return edit_fields(text, updates, newline)
    return in_place


def _rewritten(value: Any, rewrite: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return rewrite(value)
    if isinstance(value, list):
        return [rewrite(v) if isinstance(v, str) else v for v in value]
    return value


def _dumped(key: str, value: Any, newline: str) -> str:
    try:
        return dump_field(key, value, newline)
    except HeaderError as exc:
        raise NoteEditError(exc.message) from None


def _check_edit(
    old_text: str, before: list[Field], new_text: str, updates: Mapping[str, Any]
) -> None:
    """Read the edited header back: the fields not edited keep their bytes and values, the
    edited ones read as intended and nothing else appears."""
    try:
        after = {item.key: item for item in fields_of(new_text)}
    except HeaderError as exc:
        raise NoteEditError(f"the edited header would not read back: {exc.message}") from None
    intended = [item.key for item in before if updates.get(item.key, None) is not DELETE]
    intended += [k for k, v in updates.items() if v is not DELETE and k not in intended]
    if list(after) != intended:
        raise NoteEditError("the edited header would not keep its fields; edit it by hand")
    for item in before:
        if item.key in updates:
            continue
        new = after[item.key]
        kept = old_text[item.start : item.end] == new_text[new.start : new.end]
        if not kept or not same(item.value, new.value):
            raise NoteEditError(f"the edit would change field {item.key!r}; edit it by hand")
    for key, value in updates.items():
        if value is not DELETE and not same(after[key].value, value):
            raise NoteEditError(f"field {key!r} would not read back as written; edit it by hand")
