"""edit_header over generated headers (issue 11): unusual but valid keys, values continued at
column 0, blank lines and comments between fields, values that must read back exactly.

The headers are built from known field texts, so the expected result of every edit is known
without asking the editor: the edited field's text replaced by `dump_field`, every other byte
(other fields, blank lines, comments) kept.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from yamlref import as_libyaml, impossible_date, libyaml

from curator.errors import CuratorError
from curator.model.header import DELETE, HeaderError, dump_field, parse_header
from curator.model.note import NoteEditError, edit_header, parse_note
from curator.model.yaml import same

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])

KEYS = ["name", "'a: b'", "'it''s'", '"a\\"b"', "-x", "?y", "k.e-y", "é", "'on'", '"1"', "a b"]
VALUES = [
    " plain value",
    ' "quoted\ncontinued at column 0"',
    " [a,\nb]",
    " {x: 1,\ny: 2}",
    "\n  reason: r\n  since: 2026-01-01",
    "\n  - a\n  - b",
    "\n- a\n- b",
    " |\n  text\n  more",
    " >-\n  folded\n  text",
    "",
    " value # a comment",
    " 'it''s'",
    ' "nel\\x85 nbsp\\xa0"',
]
ONE_LINE = [v for v in VALUES if "\n" not in v]
GAPS = ["", "\n", "\n\n", "# a comment\n", "  # indented comment\n", "\n# c\n\n"]
NEW_VALUES = st.one_of(
    st.text(max_size=20),
    st.sampled_from(["a\x85b", "nbsp\u00a0", "\u00a0NO", "x: y", "# no", "yes", "2026-02-30"]),
    st.sampled_from(["line\u2028sep", " lead", "trail ", "two\nlines", "\ufeffbom", "", "~"]),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.lists(st.text(max_size=6), max_size=3),
    st.dictionaries(st.sampled_from(["reason", "since", "a b"]), st.text(max_size=6), max_size=2),
)


def field_text(key: str, value: str, explicit: bool) -> str:
    """`key: value`, or the complex-key form `? key` / `: value` (for one-line values)."""
    return f"? {key}\n:{value}\n" if explicit and "\n" not in value else f"{key}:{value}\n"


def gap_for(value: str, gap: str) -> str:
    # an indented comment after a block scalar (`|`, `>`) is a line of the scalar, not a gap
    return "# a comment\n" if gap.startswith("  #") and value.startswith((" |", " >")) else gap


PART = st.tuples(
    st.sampled_from(KEYS), st.sampled_from(VALUES), st.booleans(), st.sampled_from(GAPS)
)
HEADER = st.lists(PART, min_size=1, max_size=6, unique_by=lambda part: part[0]).map(
    lambda parts: [(field_text(k, v, x), gap_for(v, g)) for k, v, x, g in parts]
)


def build(parts: list[tuple[str, str]], replace: int | None = None, with_: str = "") -> str:
    return "".join((with_ if i == replace else field) + gap for i, (field, gap) in enumerate(parts))


def note_of(header: str) -> Any:
    note = parse_note("notes/x.md", f"---\n{header}---\nbody [[x]]\n".encode())
    assume(note.ok)  # a generated header with a duplicate key (`on` and 'on') is not a case
    return note


def reads_as(header: str, intended: dict[str, Any]) -> bool:
    try:
        fields, _ = parse_header(header)
    except HeaderError:
        return False
    return same(fields, intended)


def check_edit(note: Any, updates: dict[str, Any], expected_header: str) -> None:
    """The edit returns exactly the byte-preserving result when that result reads back as
    intended, and refuses (NoteEditError) when it would not (e.g. deleting the field between
    a `|` block and an indented comment would make the comment part of the block)."""
    intended = {k: v for k, v in {**note.header, **updates}.items() if v is not DELETE}
    if not reads_as(expected_header, intended):
        event("refused: the byte-preserving result would not read back")
        with pytest.raises(NoteEditError):
            edit_header(note, updates)
        return
    event("edited")
    out = edit_header(note, updates)
    assert out.decode() == f"---\n{expected_header}---\nbody [[x]]\n"
    after = parse_note("notes/x.md", out)
    assert after.ok and after.body == "body [[x]]\n"
    read, reference = libyaml(expected_header)
    assert as_libyaml(after.header, reference or {}) if read else impossible_date(reference)


@SETTINGS
@given(HEADER, st.data())
def test_changing_a_field_keeps_every_other_byte(parts: list[tuple[str, str]], data: Any) -> None:
    note = note_of(build(parts))
    index = data.draw(st.integers(0, len(parts) - 1))
    key = list(note.header)[index]
    value = data.draw(NEW_VALUES)
    check_edit(note, {key: value}, build(parts, index, dump_field(key, value)))


@SETTINGS
@given(HEADER, st.data())
def test_deleting_a_field_keeps_every_other_byte(parts: list[tuple[str, str]], data: Any) -> None:
    note = note_of(build(parts))
    index = data.draw(st.integers(0, len(parts) - 1))
    key = list(note.header)[index]
    check_edit(note, {key: DELETE}, build(parts, index, ""))


@SETTINGS
@given(HEADER, st.text(min_size=1, max_size=10), NEW_VALUES)
def test_adding_a_field_appends_it(parts: list[tuple[str, str]], key: str, value: Any) -> None:
    note = note_of(build(parts))
    assume(key not in note.header)
    check_edit(note, {key: value}, build(parts) + dump_field(key, value))


@pytest.mark.parametrize(
    ("header", "key"),
    [
        ("{name: A, type: b}\n", "name"),  # one flow mapping: not editable line by line
        ("  name: A\n  type: b\n", "added"),  # an indented mapping: the new line would not fit
    ],
)
def test_an_edit_that_cannot_keep_the_header_is_refused(header: str, key: str) -> None:
    note = parse_note("notes/x.md", f"---\n{header}---\n".encode())
    assert note.ok
    with pytest.raises(NoteEditError) as caught:
        edit_header(note, {key: "x"})
    assert isinstance(caught.value, CuratorError)
    assert caught.value.path == "notes/x.md" and caught.value.message


@pytest.mark.parametrize("value", ["a\x85b", "nbsp\u00a0", "\u00a0NO", "ls\u2028ps\u2029"])
def test_values_curator_writes_read_back_the_same(value: str) -> None:
    note = parse_note("n.md", b"---\nname: A\ntype: project\n---\n")
    out = edit_header(note, {"name": value, "new": [value]})
    assert parse_note("n.md", out).header == {"name": value, "type": "project", "new": [value]}
    assert yaml.load(out.decode().split("---\n")[1], Loader=yaml.CSafeLoader)["name"] == value
