"""The reference for header tests: what PyYAML's C loader reads, and how curator must match."""

from __future__ import annotations

import datetime as dt

import yaml

from curator.model.header import HeaderError, parse_header
from curator.model.yaml import same

# what curator refuses on purpose where libyaml reads on (each a reported problem)
REFUSALS = (
    "duplicate key",
    "is not a string",
    "aliases",
    "merge keys",
    "YAML tag",
    "nested deeper",
    "values in one header",
    "integer is too",
    "not a set of key: value fields",
)


def as_libyaml(ours: object, reference: object) -> bool:
    """curator's value equals libyaml's; a date reads as the string it was written as."""
    if isinstance(reference, (dt.date, dt.datetime)):
        return isinstance(ours, str) and yaml.load(ours, Loader=yaml.CSafeLoader) == reference
    if isinstance(reference, dict):
        return (
            isinstance(ours, dict)
            and list(ours) == list(reference)
            and all(as_libyaml(ours[k], reference[k]) for k in reference)
        )
    if isinstance(reference, list):
        return (
            isinstance(ours, list)
            and len(ours) == len(reference)
            and all(as_libyaml(a, b) for a, b in zip(ours, reference, strict=True))
        )
    return same(ours, reference)


def libyaml(text: str) -> tuple[bool, object]:
    """(read, value) from yaml.load with the C loader; (False, exception) when it fails."""
    try:
        return True, yaml.load(text, Loader=yaml.CSafeLoader)
    except Exception as exc:  # libyaml or one of PyYAML's constructors refuses it
        return False, exc


def impossible_date(exc: object) -> bool:
    """libyaml fails on 2026-02-30; curator keeps it as written and `check` reports it."""
    return isinstance(exc, ValueError) and ("must be in" in str(exc) or "out of range" in str(exc))


def compare(text: str) -> str:
    """Parse a header both ways and fail unless curator reads what libyaml reads or reports
    a problem; 'read' or 'refused' for the caller's counts."""
    read, reference = libyaml(text)
    try:
        ours, _ = parse_header(text)
    except HeaderError as exc:
        assert not read or any(r in exc.message for r in REFUSALS), (text, exc.message)
        return "refused"
    if not read:
        assert impossible_date(reference), f"curator read what libyaml refuses: {text!r}"
        return "read"
    assert as_libyaml(ours, {} if reference is None else reference), (text, ours, reference)
    return "read"
