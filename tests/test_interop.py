"""`curator import` (mem0, OpenMemory, JSONL) and `curator export` on real palaces and files."""

from __future__ import annotations

import gzip
import json
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from palacehelpers import MakePalace, RunCli, note_text

from curator.interop.importer import NeedsType, run_import
from curator.interop.records import (
    Problem,
    Record,
    jsonl_record,
    mem0_record,
    parse_time,
    read_mem0,
    read_openmemory,
)
from curator.model.palace import Palace

FIXTURES = Path(__file__).parent / "fixtures"
OPENMEMORY = FIXTURES / "openmemory"


def openmemory_zip(tmp_path: Path, *, logical: bool = True) -> Path:
    """The backup zip OpenMemory's export endpoint writes, built from the fixture files."""
    path = tmp_path / "memories_export_dev.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("memories.json", (OPENMEMORY / "memories.json").read_text())
        if logical:
            data = gzip.compress((OPENMEMORY / "memories.jsonl").read_bytes())
            archive.writestr("memories.jsonl.gz", data)
    return path


def drafts(root: Path) -> dict[str, dict[str, object]]:
    palace = Palace.open(root, cache=False)
    return {d.rel: d.header for d in palace.drafts}


def by_source_id(root: Path) -> dict[str, dict[str, object]]:
    return {h["source"]["id"]: h for h in drafts(root).values()}  # type: ignore[index]


def test_openmemory_zip_becomes_drafts_with_dates_provenance_and_types(
    make_palace: MakePalace, tmp_path: Path
) -> None:
    root = make_palace({})
    summary = run_import(
        root, "openmemory", read_openmemory(openmemory_zip(tmp_path)), default_type="project"
    )
    assert summary.skipped == {"archived": 1, "deleted": 1}
    assert len(summary.imported) == 4 and not summary.failed
    assert all(p.startswith("inbox/") for p in summary.imported)
    assert not Palace.open(root, cache=False).notes  # drafts, never notes
    found = by_source_id(root)
    dark = found["0b6f3a52-5d1e-4b8e-9a0a-1f2d3c4b5a61"]
    assert dark["source"] == {
        "store": "openmemory",
        "id": "0b6f3a52-5d1e-4b8e-9a0a-1f2d3c4b5a61",
        "app": "cursor",
    }
    assert dark["created"] == "2025-03-04T10:15:00Z"  # the record's date, not today's
    assert dark["type"] == "user"  # category "preferences"
    assert dark["status"] == "draft"
    assert found["1c7e4b63-6e2f-4c9f-8b1b-2e3d4c5b6a72"]["type"] == "project"  # metadata.type
    assert found["5abc8fa7-ac6d-40d3-8f5f-6c7b8a9fae16"]["type"] == "reference"  # "docs"
    assert found["4fab7e96-9b5c-4fc2-9e4e-5b6a7f8e9da5"]["type"] == "project"  # the default


def test_reimport_adds_nothing(make_palace: MakePalace, tmp_path: Path) -> None:
    root = make_palace({})
    archive = openmemory_zip(tmp_path)
    run_import(root, "openmemory", read_openmemory(archive), default_type="project")
    before = sorted(p.name for p in (root / "inbox").iterdir())
    again = run_import(root, "openmemory", read_openmemory(archive), default_type="project")
    assert again.imported == [] and again.already == 4
    assert sorted(p.name for p in (root / "inbox").iterdir()) == before


def test_secrets_flag_the_draft_and_stay_out_of_the_file_name(
    make_palace: MakePalace, tmp_path: Path
) -> None:
    root = make_palace({})
    summary = run_import(
        root, "openmemory", read_openmemory(openmemory_zip(tmp_path)), default_type="project"
    )
    assert summary.flagged == 1
    flagged = [rel for rel, h in drafts(root).items() if h.get("secret") is True]
    assert len(flagged) == 1
    assert "sk" not in flagged[0].split("/")[-1].split("-")[3:]
    assert "4ec39" not in flagged[0].lower() and "token" not in flagged[0]
    assert "Imported openmemory memory" in str(drafts(root)[flagged[0]]["name"])


def test_untyped_records_are_asked_for_not_guessed(make_palace: MakePalace, tmp_path: Path) -> None:
    root = make_palace({})
    with pytest.raises(NeedsType, match=r"1 record\(s\) name no type"):
        run_import(root, "openmemory", read_openmemory(openmemory_zip(tmp_path)))
    assert not list((root / "inbox").iterdir())  # nothing written before asking


def test_manifest_only_zip_maps_app_and_category_ids(
    make_palace: MakePalace, tmp_path: Path
) -> None:
    root = make_palace({})
    items = list(read_openmemory(openmemory_zip(tmp_path, logical=False)))
    summary = run_import(root, "openmemory", items)
    assert summary.skipped == {"archived": 1} and len(summary.imported) == 1
    (header,) = drafts(root).values()
    assert header["type"] == "user"
    assert header["source"]["app"] == "cursor"  # type: ignore[index]


def test_mem0_get_all_maps_types_and_keeps_dates(make_palace: MakePalace) -> None:
    root = make_palace({})
    summary = run_import(
        root, "mem0", read_mem0(FIXTURES / "mem0" / "get_all.json"), default_type="reference"
    )
    assert len(summary.imported) == 3, summary
    found = by_source_id(root)
    assert found["8a2d3b0f-1e4c-4f60-9b7c-0d1e2f3a4b5c"]["type"] == "user"  # "preference"
    assert found["9b3e4c1a-2f5d-4071-8c8d-1e2f3a4b5c6d"]["type"] == "project"
    assert found["9b3e4c1a-2f5d-4071-8c8d-1e2f3a4b5c6d"]["source"]["app"] == "planner"  # type: ignore[index]
    professional = found["7f1c2a9e-0d3b-4e5f-8a6b-9c0d1e2f3a4b"]
    assert professional["type"] == "reference"  # "professional" names no type: the default
    assert professional["created"] == "2025-02-10T22:03:12Z"  # -08:00 kept as UTC


def test_dry_run_writes_nothing(make_palace: MakePalace, run_cli: RunCli, tmp_path: Path) -> None:
    root = make_palace({})
    archive = openmemory_zip(tmp_path)
    code, stdout, _ = run_cli(
        "--palace", str(root), "import", "openmemory", str(archive), "--type", "project",
        "--dry-run", "--json",
    )  # fmt: skip
    assert code == 0
    result = json.loads(stdout)
    assert result["dry_run"] and result["imported"] == 4
    assert result["skipped"] == {"archived": 1, "deleted": 1}
    assert not list((root / "inbox").iterdir())


def test_jsonl_bad_lines_are_counted_with_their_line(
    make_palace: MakePalace, run_cli: RunCli, tmp_path: Path
) -> None:
    root = make_palace({})
    path = tmp_path / "memories.jsonl"
    path.write_text(
        '{"text": "Deploys go out on Tuesdays", "type": "project", "created": "2025-01-02"}\n'
        "not json\n"
        '{"name": "no text here"}\n'
        '{"text": "Ask before force-pushing", "type": "feedback", "source": "notes-app"}\n'
    )
    code, stdout, stderr = run_cli("--palace", str(root), "import", "jsonl", str(path))
    assert code == 1  # loud: some records failed
    assert f"{path}:2: not JSON" in stderr and f"{path}:3: no text" in stderr
    assert "imported 2 draft(s)" in stdout and "2 failed" in stdout
    headers = list(drafts(root).values())
    assert {h["created"] for h in headers} == {"2025-01-02T00:00:00Z"} | {
        h["created"] for h in headers if h["type"] == "feedback"
    }
    assert any(h["source"] == {"store": "jsonl", "id": h["source"]["id"], "app": "notes-app"}  # type: ignore[index]
               for h in headers)  # fmt: skip


def _records(text: str) -> list[dict[str, object]]:
    return sorted((json.loads(line) for line in text.splitlines()), key=lambda r: str(r["id"]))


@pytest.mark.parametrize("fmt", ["jsonl", "mem0"])
def test_export_import_export_round_trip(
    sample_palace: Path, make_palace: MakePalace, run_cli: RunCli, tmp_path: Path, fmt: str
) -> None:
    first = tmp_path / f"first.{fmt}"
    code, _, stderr = run_cli(
        "--palace", str(sample_palace), "export", "--format", fmt, "--out", str(first)
    )
    assert code == 0 and "sensitive note(s) left out" in stderr
    empty = make_palace({}, toml=(sample_palace / "palace.toml").read_text())
    store = "mem0" if fmt == "mem0" else "jsonl"
    code, stdout, _ = run_cli("--palace", str(empty), "import", store, str(first))
    assert code == 0, stdout
    second = tmp_path / f"second.{fmt}"
    assert run_cli("--palace", str(empty), "export", "--format", fmt, "--out", str(second))[0] == 0
    if fmt == "jsonl":
        one, two = _records(first.read_text()), _records(second.read_text())
    else:
        one, two = (json.loads(p.read_text())["results"] for p in (first, second))
    assert len(one) > 30 and one == two


def test_export_leaves_sensitive_notes_out_unless_asked(
    make_palace: MakePalace, run_cli: RunCli
) -> None:
    root = make_palace(
        {
            "notes/project/open.md": note_text("Open fact", body="Plain text.\n"),
            "notes/project/private.md": note_text(
                "Private fact", extra="sensitive: true\n", body="Only for ops.\n"
            ),
        }
    )
    code, stdout, stderr = run_cli("--palace", str(root), "export")
    assert code == 0 and [r["name"] for r in _records(stdout)] == ["Open fact"]
    assert "1 sensitive note(s) left out" in stderr
    code, stdout, _ = run_cli("--palace", str(root), "export", "--include-sensitive")
    assert sorted(r["name"] for r in _records(stdout)) == ["Open fact", "Private fact"]
    record = next(r for r in _records(stdout) if r["name"] == "Private fact")
    assert record["header"] == {"sensitive": True} and record["text"] == "Only for ops."


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
FIELDS = "id memory content text metadata categories created_at state name type source header"
RECORDISH = st.fixed_dictionaries(
    {}, optional={k: JSON for k in (*FIELDS.split(), "tags", "created", "description")}
)


@settings(deadline=None)
@given(obj=JSON | RECORDISH)
def test_readers_never_raise_on_any_json(obj: object) -> None:
    for reader in (mem0_record, jsonl_record):
        item = reader(obj, 7)
        assert isinstance(item, (Record, Problem)) and item.line == 7
        if isinstance(item, Record):
            assert item.text.strip() and item.id and isinstance(item.tags, list)


@settings(deadline=None)
@given(value=JSON)
def test_parse_time_is_utc_or_none(value: object) -> None:
    parsed = parse_time(value)
    assert parsed is None or parsed.utcoffset() is not None


def test_openmemory_files_on_their_own_read_like_the_zip(tmp_path: Path) -> None:
    gz = tmp_path / "memories.jsonl.gz"
    gz.write_bytes(gzip.compress((OPENMEMORY / "memories.jsonl").read_bytes()))
    from_zip = [r for r in read_openmemory(openmemory_zip(tmp_path)) if isinstance(r, Record)]
    alone = [r for r in read_openmemory(gz) if isinstance(r, Record)]
    assert [(r.id, r.state, r.app) for r in alone] == [(r.id, r.state, r.app) for r in from_zip]
    manifest = [r for r in read_openmemory(OPENMEMORY / "memories.json") if isinstance(r, Record)]
    assert [r.app for r in manifest] == ["cursor", "cursor"]
