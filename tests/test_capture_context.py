"""The `context` of a draft (the text its fact came from): written by capture (the API, the CLI,
import; the MCP tool in tests/test_mcp_context.py), checked and scanned like the rest of the
header, kept on promote, searched in its own field and shown dim beside the draft, never as the
fact. Real palaces, real git, real processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from palacehelpers import MakePalace, RunCli

from curator.config import load_config
from curator.model.note import parse_note
from curator.model.palace import Palace
from curator.model.schema import check_header
from curator.search.searcher import Searcher
from curator.ui.screens.drafts import CONTEXT_CHARS, context_preview
from curator.writer.capture import CaptureError, capture

TOML = '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[index]\nembedder = "hash"\ndim = 256\n'
TURNS = "Ana: which queue takes the invoices?\nBo: the slow one, since March."


def test_capture_keeps_the_context_in_the_header(make_palace: MakePalace) -> None:
    root = make_palace({}, toml=TOML)
    result = capture(
        root, type="project", name="Invoices queue", body="Invoices go to the slow queue.\n",
        context=f"  {TURNS}\n",
    )  # fmt: skip
    note = parse_note(result.path, (root / result.path).read_bytes(), "draft")
    assert note.ok and note.header["context"] == TURNS
    assert "Invoices go to the slow queue." in note.body and "Ana:" not in note.body
    found = check_header(note.header, load_config(root), path=result.path)
    assert not [f for f in found if "context" in f.message]
    plain = capture(root, type="project", name="No context", body="Nothing around it.\n")
    assert "\ncontext:" not in (root / plain.path).read_text()


def test_a_context_with_a_nul_is_refused_and_a_secret_in_it_flagged(
    make_palace: MakePalace,
) -> None:
    root = make_palace({}, toml=TOML)
    with pytest.raises(CaptureError, match="context contains a NUL"):
        capture(root, type="project", name="N", body="b\n", context="a\x00b")
    assert not list((root / "inbox").iterdir())
    flagged = capture(
        root, type="project", name="Key", body="b\n", context="Ana: AKIAIOSFODNN7EXAMPLE"
    )
    assert flagged.secrets and "secret: true" in (root / flagged.path).read_text()


def test_a_context_that_is_not_text_is_a_header_error(make_palace: MakePalace) -> None:
    root = make_palace({}, toml=TOML)
    header = {"name": "N", "description": "d", "type": "project", "context": ["a", "b"]}
    found = check_header(header, load_config(root), path="notes/n.md")
    assert any("'context' must be text" in f.message for f in found)


def test_promote_keeps_the_context_and_search_reads_it(
    make_palace: MakePalace, run_cli: RunCli
) -> None:
    root = make_palace({}, toml=TOML)
    result = capture(root, type="project", name="Slow lane", body="Use the slow lane.\n",
                     description="The lane.", context=TURNS)  # fmt: skip
    code, _out, err = run_cli(
        "--palace", str(root), "promote", result.path, "--confidence", "0.8", "--yes"
    )
    assert code == 0, err
    [note] = Palace.open(root).notes
    assert note.header["context"] == TURNS and "Ana:" not in note.body
    hits = Searcher(Palace.open(root)).search("invoices")
    assert [h.path for h in hits] == [note.rel]
    assert "invoices" not in hits[0].snippet.lower()  # the snippet is the fact's


def test_the_cli_takes_a_context(make_palace: MakePalace) -> None:
    root = make_palace({}, toml=TOML)
    proc = subprocess.run(
        [sys.executable, "-m", "curator", "--palace", str(root), "capture", "--type", "project",
         "--name", "From the CLI", "--context", TURNS],
        input=b"The fact.\n", capture_output=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rel = proc.stdout.decode().splitlines()[0]
    assert parse_note(rel, (root / rel).read_bytes(), "draft").header["context"] == TURNS


def test_import_fills_the_context_where_the_record_has_it(
    make_palace: MakePalace, run_cli: RunCli, tmp_path: Path
) -> None:
    root = make_palace({}, toml=TOML)
    path = tmp_path / "m.jsonl"
    records = [
        {"text": "Invoices use the slow queue", "type": "project", "context": TURNS},
        {"text": "Deploys on Tuesdays", "type": "project"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    code, _out, err = run_cli("--palace", str(root), "import", "jsonl", str(path))
    assert code == 0, err
    drafts = {d.body.strip().splitlines()[-1]: d for d in Palace.open(root).drafts}
    assert drafts["Invoices use the slow queue"].header["context"] == TURNS
    assert "context" not in drafts["Deploys on Tuesdays"].header


def test_the_app_shows_the_context_dim_on_one_cleaned_line(make_palace: MakePalace) -> None:
    root = make_palace({}, toml=TOML)
    long = TURNS + "\n\x1b[31mred\x1b[0m " + "more words " * 60
    result = capture(root, type="project", name="Shown", body="The fact.\n", context=long)
    draft = parse_note(result.path, (root / result.path).read_bytes(), "draft")
    shown = context_preview(draft)
    assert shown.plain.startswith("context: Ana: which queue") and "\n" not in shown.plain
    assert "\x1b" not in shown.plain and len(shown.plain) <= CONTEXT_CHARS
    assert str(shown.style) == "dim"
    bare = capture(root, type="project", name="Bare", body="b\n")
    assert (
        context_preview(parse_note(bare.path, (root / bare.path).read_bytes(), "draft")).plain == ""
    )
