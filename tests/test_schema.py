"""The header schema: one table, one check, used by check, promote and the audit."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from curator.config import default_config
from curator.model.schema import BY_NAME, FIELDS, REQUIRED, VALUE_TYPES, check_header

CONFIG = default_config(Path("/nowhere"))
GOOD = {"name": "N", "description": "d", "type": "user", "confidence": 0.9}


def codes(header: dict, **kw: object) -> set[tuple[int, str, str]]:
    lines = {key: i + 2 for i, key in enumerate(header)}
    found = check_header(header, CONFIG, path="n.md", line_of=lines.__getitem__, **kw)  # type: ignore[arg-type]
    assert all(f.path == "n.md" for f in found)
    return {(f.line, f.severity, f.code) for f in found}


def test_table_is_consistent() -> None:
    assert REQUIRED == ("name", "description", "type")
    assert len(BY_NAME) == len(FIELDS)
    assert all(f.type in VALUE_TYPES and f.description for f in FIELDS)


def test_good_header_has_no_findings() -> None:
    assert codes(GOOD) == set()


def test_range_comes_from_the_taxonomy() -> None:
    found = check_header({**GOOD, "confidence": 0.5}, CONFIG)
    assert [(f.code, f.message) for f in found] == [
        ("confidence.range", "confidence 0.5 is outside the user range 0.8–1.0")
    ]
    assert codes({**GOOD, "type": "project", "confidence": 0.5}) == set()


def test_each_rule_has_its_code_and_line() -> None:
    assert codes({"description": "d", "type": "user"}) == {(1, "error", "header.missing")}
    assert codes({**GOOD, "name": "a\nb"}) == {(2, "error", "header.invalid")}
    assert codes({**GOOD, "type": "opinion"}) == {(4, "error", "type.unknown")}
    assert codes({**GOOD, "tags": list("abcdefghi")}) == {(6, "error", "header.invalid")}
    assert codes({**GOOD, "scope": "elsewhere"}) == {(6, "error", "scope.unknown")}
    assert codes({**GOOD, "status": "maybe"}) == {(6, "error", "header.invalid")}
    assert codes({**GOOD, "status": "draft"}) == {(6, "error", "draft.in-notes")}
    assert codes({**GOOD, "superseded_by": "x"}) == {(6, "warning", "supersede.status")}
    assert codes({**GOOD, "verify": {"command": "grep x"}}) == {(6, "error", "verify.invalid")}
    assert codes({**GOOD, "content": "x"}) == {(6, "error", "header.reserved")}


def test_drafts_may_say_draft_and_nothing_else() -> None:
    assert codes({**GOOD, "status": "draft"}, kind="draft") == set()
    assert codes({**GOOD, "status": "active"}, kind="draft") == {(6, "warning", "rule.in-inbox")}


def test_callers_may_require_more() -> None:
    header = {k: v for k, v in GOOD.items() if k != "confidence"}
    assert codes(header) == set()
    assert codes(header, required=(*REQUIRED, "confidence")) == {(1, "error", "header.missing")}


values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text() | st.dates(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=10,
)


@settings(deadline=None)
@given(st.dictionaries(st.sampled_from([f.name for f in FIELDS] + ["x", "content"]), values))
def test_any_header_gives_findings_never_an_exception(header: dict) -> None:
    for finding in check_header(header, CONFIG, kind="note"):
        assert finding.severity in ("error", "warning") and finding.message
    check_header(header, CONFIG, kind="draft")


def test_a_line_field_with_escape_sequences_is_an_error_everywhere_the_schema_is_read() -> None:
    from pathlib import Path

    from curator.config import default_config
    from curator.model.schema import header_problems

    config = default_config(Path("."))
    for name in ("Hi \x1b]0;pwned\x07", "a\x1b[2Jb", "tab\x0bbed", "bell\x07"):
        header = {"name": name, "description": "d", "type": "user", "confidence": 0.9}
        codes = [code for _key, code, _msg in header_problems(header, config)]
        assert "header.escapes" in codes, name
    header = {"name": "Plain – with ünïcode and [[links]]", "description": "d", "type": "user"}
    assert header_problems(header, config) == []
