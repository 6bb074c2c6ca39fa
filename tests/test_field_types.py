"""A header field of the wrong YAML type is a finding on its file, never a crash.

hypothesis fills schema fields (of a note and of a draft) with values of every YAML type
(list, nested list, map, bool, null, date, datetime, number, text) and runs check, list,
INDEX.md, search, the rooms the app shows, and export over the palace: each answers (exit 0 or 1,
never 3) and `check` names the file for every value the table does not accept.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from palacehelpers import RunCli, git_init_commit

from curator.interop.export import export_palace
from curator.model.palace import Palace
from curator.model.schema import FIELDS, header_problems
from curator.search.searcher import Searcher
from curator.writer.actions.index import plan_index

TOML = '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[index]\nembedder = "hash"\ndim = 64\n'
VALUES = [
    "[a, b]", "[[a]]", "[]", "{a: 1}", "{a: {b: [1]}}", "{}", "true", "false", "null", "~",
    "2026-01-01", "2026-01-01T10:00:00Z", "0", "7", "-1", "0.5", "1e3", "100000000000000000000",
    ".nan", "x", '""', "'a: b'", "[2026-01-01]", "[true, 1, null]", "{reason: r, since: x}",
]  # fmt: skip
NAMES = [f.name for f in FIELDS] + ["similar", "unknown_field"]
BASE = {"name": "N", "description": "d", "type": "project"}


@st.composite
def headers(draw: st.DrawFn) -> dict[str, str]:
    chosen = draw(st.dictionaries(st.sampled_from(NAMES), st.sampled_from(VALUES), max_size=4))
    return {**BASE, **chosen}


def text_of(header: dict[str, str], body: str) -> bytes:
    lines = "".join(f"{key}: {value}\n" for key, value in header.items())
    return f"---\n{lines}---\n{body}\n".encode()


def walk(root: Path, run_cli: RunCli, show: str) -> None:
    """Every reader over the palace at `root`: none raises, check names each odd file."""
    code, out, err = run_cli("--palace", root, "check", "--json")
    assert code in (0, 1), err
    report = json.loads(out)
    palace = Palace.open(root)
    named = {f["path"] for f in report["findings"]}
    for note in palace.notes:
        if note.ok and header_problems(note.header, palace.config):
            assert note.rel in named, (note.rel, report)
    for args in (("list", "--json"), ("list", "--json", "--drafts", "--include-sensitive")):
        code, out, err = run_cli("--palace", root, *args)
        assert code == 0, err
        json.loads(out)
    for args in (("list",), ("show", show), ("index", "--dry-run")):
        code, _, err = run_cli("--palace", root, *args)
        assert code in (0, 1), (args, err)
    plan_index(palace)
    for room in palace.rooms():  # what the app's Rooms screen shows
        for shown in room.notes:
            palace.flags(shown)
            palace.outgoing(shown)
            palace.backlinks(shown)
    for old in palace.superseded_notes():
        palace.chain(old)
    export_palace(palace, include_sensitive=True).text("mem0")
    searcher = Searcher(palace)
    searcher.search("body words", drafts=True, include_sensitive=True, limit=10)
    searcher.ask("body words")
    searcher.pack("body words", floor=0.0)


def make(base: Path, files: dict[str, bytes]) -> Path:
    root = base / "palace"
    (root / "notes" / "project").mkdir(parents=True)
    (root / "inbox").mkdir()
    (root / "palace.toml").write_text(TOML)
    (root / "notes/project/fine.md").write_bytes(text_of(BASE, "fine body words"))
    for rel, data in files.items():
        (root / rel).write_bytes(data)
    git_init_commit(root)
    return root


@pytest.mark.parametrize("value", VALUES)
def test_one_yaml_type_in_each_field(value: str, tmp_path: Path, run_cli: RunCli) -> None:
    """Each field in turn holds `value` (one note and one draft per field)."""
    files = {}
    for name in NAMES:
        header = {**BASE, name: value}
        files[f"notes/project/odd-{name}.md"] = text_of(header, "odd body words")
        files[f"inbox/2026-01-01-odd-{name}.md"] = text_of(header, "draft body words")
    walk(make(tmp_path, files), run_cli, "notes/project/odd-type.md")


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(note=headers(), draft=headers())
def test_mixed_yaml_types(note: dict[str, str], draft: dict[str, str], run_cli: RunCli) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        files = {
            "notes/project/odd.md": text_of(note, "odd body words"),
            "inbox/2026-01-01-odd.md": text_of(draft, "draft body words"),
        }
        walk(make(Path(tmp), files), run_cli, "notes/project/odd.md")
