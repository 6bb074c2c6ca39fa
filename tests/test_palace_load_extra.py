"""Palace loading beyond the basics: forked cold parse, dangling symlinks, CRLF INDEX.md."""

from __future__ import annotations

from pathlib import Path

import pytest

import curator.model.palace as palace_module
from curator.model.palace import Palace


def _write_palace(root: Path, count: int) -> None:
    (root / "notes").mkdir(parents=True)
    for i in range(count):
        header = f"---\nname: Note {i}\ndescription: d{i}\ntype: project\n---\n"
        (root / "notes" / f"n{i:03}.md").write_text(header + f"See [[n{(i + 1) % count:03}]].\n")
    (root / "notes" / "broken.md").write_bytes(b"\xff\xfe not utf-8")
    (root / "notes" / "empty.md").write_bytes(b"")


def _snapshot(palace: Palace) -> tuple[list[tuple[str, str, dict]], list[str]]:
    notes = [(n.rel, n.sha, n.header) for n in palace.notes]
    problems = sorted(f.format() for n in palace.notes for f in n.problems)
    return notes, problems


def test_forked_parse_matches_sequential(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write_palace(tmp_path, 40)
    monkeypatch.setattr(palace_module, "_FORK_MIN", 10**9)
    sequential = Palace.open(tmp_path, cache=False)
    monkeypatch.setattr(palace_module, "_FORK_MIN", 2)
    forked = Palace.open(tmp_path, cache=False)
    assert len(forked.notes) == 42
    assert _snapshot(forked) == _snapshot(sequential)
    assert any("not UTF-8" in p for p in _snapshot(forked)[1])
    assert len(forked.backlinks(forked.find("n005"))) == 1


def test_dangling_symlink_is_reported(tmp_path: Path) -> None:
    _write_palace(tmp_path, 2)
    (tmp_path / "notes" / "gone.md").symlink_to(tmp_path / "notes" / "nowhere.md")
    palace = Palace.open(tmp_path, cache=False)
    assert [f.code for f in palace.problems] == ["file.symlink-broken"]
    assert palace.problems[0].path == "notes/gone.md"


def test_crlf_index_stays_crlf_and_current(tmp_path: Path) -> None:
    from curator.model.index_md import index_is_current, render_index

    _write_palace(tmp_path, 3)
    palace = Palace.open(tmp_path, cache=False)
    crlf = render_index(palace, None).replace("\n", "\r\n")
    (tmp_path / "INDEX.md").write_bytes(crlf.encode())
    current, rendered = index_is_current(palace)
    assert current
    assert rendered == crlf
