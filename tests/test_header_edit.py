"""edit_header: only the changed keys differ; everything else stays byte-for-byte."""

from __future__ import annotations

import datetime as dt
from typing import Any

import frontmatter
import pytest

from curator.model.header import parse_header
from curator.model.note import (
    BOM,
    DELETE,
    NoteEditError,
    edit_header,
    new_note_text,
    parse_note,
)

LF = (
    "---\n"
    "name: Deploy on tags   \n"
    "# a comment the owner wrote\n"
    "description: Production deploys run from version tags.\n"
    "zeta_unknown: keep me   \n"
    "type: project\n"
    "stale:\n"
    "  reason: old reason\n"
    "  since: 2026-01-01\n"
    "tags: [deploy,  ci]\n"
    "created: 2026-03-04\n"
    "---\n"
    "Body line with trailing spaces   \n"
    "\n"
    "[[other-note]]\n"
)


def variants() -> list[Any]:
    crlf = LF.replace("\n", "\r\n").encode()
    return [
        pytest.param(LF.encode(), id="lf"),
        pytest.param(crlf, id="crlf"),
        pytest.param(BOM + LF.encode(), id="bom"),
        pytest.param(BOM + crlf, id="bom+crlf"),
    ]


def lines_of(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def edited(data: bytes, updates: dict[str, Any]) -> bytes:
    note = parse_note("notes/project/x.md", data)
    assert note.ok, note.problems
    return edit_header(note, updates)


@pytest.mark.parametrize("data", variants())
def test_changing_one_field_changes_only_its_line(data: bytes) -> None:
    out = edited(data, {"description": "Deploys run from tags v*."})
    before, after = lines_of(data), lines_of(out)
    assert len(before) == len(after)
    diff = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
    assert diff == [3]
    nl = b"\r\n" if b"\r\n" in data else b"\n"
    assert after[3].endswith(nl) and after[3].rstrip(b"\r\n").endswith(b"Deploys run from tags v*.")
    assert out.startswith(BOM) == data.startswith(BOM)
    if nl == b"\n":
        assert b"\r" not in out
    note = parse_note("notes/project/x.md", out)
    assert note.header["description"] == "Deploys run from tags v*."
    assert note.header["zeta_unknown"] == "keep me"
    assert list(note.header) == [
        "name",
        "description",
        "zeta_unknown",
        "type",
        "stale",
        "tags",
        "created",
    ]


@pytest.mark.parametrize("data", variants())
def test_nested_mapping_replaces_existing_block(data: bytes) -> None:
    out = edited(data, {"stale": {"reason": "Grafana moved", "since": "2026-11-20"}})
    note = parse_note("notes/project/x.md", out)
    assert note.ok, note.problems
    assert note.header["stale"] == {"reason": "Grafana moved", "since": "2026-11-20"}
    assert out.count(b"stale:") == 1
    # the lines around the block are untouched
    assert out.split(b"stale:")[0] == data.split(b"stale:")[0]
    assert out.split(b"tags:")[1] == data.split(b"tags:")[1]
    if b"\r\n" in data:
        assert out.count(b"\n") == out.count(b"\r\n")


@pytest.mark.parametrize("data", variants())
def test_delete_a_key_and_a_block(data: bytes) -> None:
    out = edited(data, {"zeta_unknown": DELETE, "stale": DELETE})
    note = parse_note("notes/project/x.md", out)
    assert note.ok
    assert "zeta_unknown" not in note.header and "stale" not in note.header
    assert b"since:" not in out and b"keep me" not in out
    kept = [ln for ln in lines_of(data) if b"zeta" not in ln and b"reason" not in ln]
    kept = [ln for ln in kept if b"since" not in ln and not ln.startswith(b"stale")]
    kept[0] = kept[0].removeprefix(BOM)
    assert lines_of(out.removeprefix(BOM)) == kept


@pytest.mark.parametrize("data", variants())
def test_add_a_new_key_at_the_end_of_the_header(data: bytes) -> None:
    out = edited(data, {"reviewed": "2026-11-30"})
    nl = b"\r\n" if b"\r\n" in data else b"\n"
    assert out == data.replace(
        b"created: 2026-03-04" + nl, b"created: 2026-03-04" + nl + b"reviewed: 2026-11-30" + nl
    )
    assert parse_note("n.md", out).header["reviewed"] == "2026-11-30"


def test_deleting_a_missing_key_changes_nothing() -> None:
    data = LF.encode()
    assert edited(data, {"nope": DELETE}) == data
    assert edited(data, {}) == data


def test_values_that_need_quoting_round_trip() -> None:
    tricky = {
        "description": "a: b # not a comment",
        "name": "yes",
        "scope": "2026-01-01",
        "source": "*alias-looking",
        "note": "- dash",
    }
    out = edited(LF.encode(), tricky)
    header = parse_note("n.md", out).header
    for key, value in tricky.items():
        assert header[key] == value


def test_comments_and_unknown_keys_survive_many_rewrites() -> None:
    data = LF.encode()
    for i in range(5):
        data = edited(data, {"description": f"round {i}", "confidence": 0.5 + i / 10})
    assert b"# a comment the owner wrote\n" in data
    assert b"zeta_unknown: keep me   \n" in data
    assert b"name: Deploy on tags   \n" in data
    assert b"Body line with trailing spaces   \n" in data
    assert parse_note("n.md", data).header["confidence"] == pytest.approx(0.9)


def test_edit_refuses_a_note_that_did_not_parse() -> None:
    note = parse_note("n.md", b"---\nname: [\n---\n")
    assert not note.ok
    with pytest.raises(NoteEditError):
        edit_header(note, {"name": "x"})


def _plain(value: Any) -> Any:
    """python-frontmatter reads unquoted dates as date objects; compare them as written."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


HEADER = {
    "name": "Money: integer cents",
    "description": "Never floats #money",
    "type": "feedback",
    "confidence": 0.95,
    "created": "2026-03-04",
    "tags": ["billing", "money"],
    "sensitive": False,
    "stale": {"reason": "moved: to v2", "since": "2026-11-20"},
    "verify": {"paths": ["src/money.py"], "command": ["grep", "-q", "amount", "src/money.py"]},
    "on": "push",
    "1": "numeric-looking key",
}


def test_new_note_text_reads_back_in_curator_and_frontmatter() -> None:
    text = new_note_text(HEADER, "Why: because.\nHow to apply: always.")
    note = parse_note("notes/feedback/m.md", text.encode())
    assert note.ok, note.problems
    assert note.header == HEADER
    assert note.body == "Why: because.\nHow to apply: always.\n"
    post = frontmatter.loads(text)
    assert _plain(post.metadata) == HEADER
    assert post.content == "Why: because.\nHow to apply: always."


def test_edit_header_output_is_readable_by_frontmatter() -> None:
    out = edited(LF.encode(), {"description": "x: y", "stale": DELETE, "confidence": 0.7})
    post = frontmatter.loads(out.decode())
    note = parse_note("n.md", out)
    assert _plain(post.metadata) == note.header
    assert post["description"] == "x: y"


def test_new_note_text_drops_empty_values_and_uses_newline() -> None:
    text = new_note_text({"name": "A", "description": "", "type": None, "x": DELETE}, "b", "\r\n")
    assert text == "---\r\nname: A\r\n---\r\nb\n"


def test_parse_header_reads_flat_and_block_fields_alike() -> None:
    flat = "name: A\ndescription: 'quoted'\ntags: [a, b]\nconfidence: 0.8\nflag: true\n"
    fast, lines = parse_header(flat)
    slow, _ = parse_header(flat + "block:\n  k: v\n")
    assert {k: v for k, v in slow.items() if k != "block"} == fast
    assert fast["flag"] is True and fast["confidence"] == 0.8
    assert lines == {"name": 1, "description": 2, "tags": 3, "confidence": 4, "flag": 5}


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_comment_after_a_block_survives_editing_the_block(newline: str) -> None:
    text = (
        "---\nname: A\ndescription: d\nstale:\n  reason: r\n  since: 2026-01-01\n"
        "# why the type is project\ntype: project\n---\nbody\n"
    ).replace("\n", newline)
    deleted = edited(text.encode(), {"stale": DELETE}).decode()
    assert deleted == text.replace(
        f"stale:{newline}  reason: r{newline}  since: 2026-01-01{newline}", ""
    )
    replaced = edited(text.encode(), {"stale": {"reason": "x", "since": "2026-02-02"}}).decode()
    assert f"# why the type is project{newline}type: project" in replaced
    assert parse_note("n.md", replaced.encode()).header["stale"]["reason"] == "x"


@pytest.mark.parametrize(
    "field",
    [
        "'a: b': colon inside\n",
        "'it''s': quoted\n",
        '"a\\"b": escaped\n',
        "-x: dash\n",
        "?y: question\n",
        "? complex\n: key\n",
        'long: "continued\nat column 0"\n',
        "flow: [a,\nb]\n",
    ],
)
def test_unusual_fields_survive_editing_the_field_above(field: str) -> None:
    """These used to be glued to the key above and dropped when it was rewritten."""
    data = f"---\nname: A\nstatus: draft\n{field}\n\ntype: project\n---\nbody\n".encode()
    out = edited(data, {"status": "active"})
    assert out == data.replace(b"status: draft", b"status: active")
    assert parse_note("n.md", out).header == {**parse_note("n.md", data).header, "status": "active"}
    out = edited(data, {"status": DELETE})
    assert out == data.replace(b"status: draft\n", b"")
