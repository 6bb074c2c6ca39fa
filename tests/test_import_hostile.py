"""`curator import` over hostile records: one bad record is reported and skipped, every good
one is imported, dates are ones `check` accepts, and re-import adds nothing for any id."""

from __future__ import annotations

import json
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from palacehelpers import MakePalace, RunCli

from curator.interop.importer import run_import
from curator.interop.records import read_jsonl, read_mem0
from curator.model.palace import Palace

FIXTURE = {"suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
           "deadline": None}  # fmt: skip
FOUR_DIGITS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")

_dates = st.sampled_from([
    "0001-01-01T00:00:00+01:00", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59-01:00",
    "0999-12-31", "2024-02-30", "not a date", "", "2024-05-01T10:00:00+02:00",
]) | st.integers(-10**20, 10**20) | st.floats() | st.booleans() | st.none() | st.lists(
    st.integers(), max_size=2
) | st.datetimes().map(lambda d: d.isoformat())  # fmt: skip
_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6)
_values = st.recursive(_scalars, lambda c: st.lists(c, max_size=2) | st.dictionaries(
    st.text(max_size=4), c, max_size=2), max_leaves=6)  # fmt: skip


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


@st.composite
def hostile_line(draw: st.DrawFn, number: int) -> tuple[str, bool]:
    """(a JSONL line, whether it is a good record that must be imported)."""
    kind = draw(st.sampled_from(["good", "date", "deep", "types", "junk"]))
    if kind == "deep":
        return f'{{"text": "x", "id": "d{number}", "tags": {_deep(100_000)}}}', False
    if kind == "junk":
        return draw(st.sampled_from(["{", "[1]", '"s"', "null", '{"text": 5}'])), False
    record: dict[str, object] = {"text": f"memory number {number}", "id": f"r{number}"}
    if kind == "date":
        record["created"] = draw(_dates)
    if kind == "types":
        for key in ("name", "description", "type", "tags", "scope", "state", "header", "source"):
            if draw(st.booleans()):
                record[key] = draw(_values)
        if record.get("state") in ("archived", "deleted") or isinstance(record.get("source"), dict):
            return json.dumps(record), False
    return json.dumps(record), kind != "types"


@settings(max_examples=30, **FIXTURE)
@given(st.data())
def test_hostile_records_never_end_the_import(
    make_palace: MakePalace, tmp_path_factory: object, data: st.DataObject
) -> None:
    root = make_palace({})
    lines = [data.draw(hostile_line(n)) for n in range(data.draw(st.integers(1, 6)))]
    path = root.parent / f"{root.name}.jsonl"
    path.write_text("\n".join(text for text, _ in lines) + "\n")
    summary = run_import(root, "jsonl", read_jsonl(path), default_type="project")  # no raise
    assert len(summary.imported) + len(summary.failed) + sum(summary.skipped.values()) <= len(lines)
    imported = {str(d.header["source"]["id"]): d for d in Palace.open(root, cache=False).drafts}  # type: ignore[index]
    for number, (_, good) in enumerate(lines):
        if good:
            draft = imported[f"r{number}"]
            assert FOUR_DIGITS.match(str(draft.header["created"])), draft.header["created"]
            assert re.match(r"^inbox/\d{4}-", draft.rel)


def test_go_zero_time_and_a_deep_line_in_a_mem0_export(
    make_palace: MakePalace, run_cli: RunCli
) -> None:
    root = make_palace({})
    path = root.parent / "mem0.jsonl"
    path.write_text(
        '{"id": "a", "memory": "zero time", "created_at": "0001-01-01T00:00:00+01:00"}\n'
        + f'{{"id": "b", "memory": "deep", "metadata": {_deep(50_000)}}}\n'
        + '{"id": "c", "memory": "fine", "created_at": "2024-01-02T03:04:05Z"}\n'
    )
    code, out, err = run_cli("import", "mem0", str(path), "--type", "project", "--palace", root)
    assert code != 3, err
    headers = {d.header["source"]["id"]: d.header for d in Palace.open(root, cache=False).drafts}  # type: ignore[index]
    assert set(headers) == {"a", "c"}
    assert "unusable" in str(headers["a"]["import_note"])
    assert FOUR_DIGITS.match(str(headers["a"]["created"]))
    assert headers["c"]["created"] == "2024-01-02T03:04:05Z"
    assert "2" in out + err  # the bad line is reported with its number
    code, _, _ = run_cli("check", "--palace", root)
    assert code in (0, 1)


@settings(max_examples=40, **FIXTURE)
@given(ids=st.lists(st.text(min_size=1, max_size=20).filter(str.strip), min_size=1, max_size=3,
                    unique_by=str.strip))  # fmt: skip
def test_reimport_adds_nothing_for_any_id(make_palace: MakePalace, ids: list[str]) -> None:
    root = make_palace({})
    path = root.parent / f"{root.name}.json"
    path.write_text(json.dumps([{"id": i, "memory": f"memory {n}"} for n, i in enumerate(ids)]))
    first = run_import(root, "mem0", read_mem0(path), default_type="project")
    assert len(first.imported) == len(ids), first.failed
    again = run_import(root, "mem0", read_mem0(path), default_type="project")
    assert again.imported == [] and again.already == len(ids)
