"""Palace loading beyond the basics: cached = fresh, dangling symlinks, CRLF INDEX.md."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


def test_cached_load_matches_a_fresh_parse(tmp_path: Path) -> None:
    _write_palace(tmp_path, 40)
    fresh = Palace.open(tmp_path, cache=False)
    Palace.open(tmp_path)  # writes the cache
    cached = Palace.open(tmp_path)  # from it (no palace alive)
    assert len(cached.notes) == 42
    assert _snapshot(cached) == _snapshot(fresh)
    assert any("not UTF-8" in p for p in _snapshot(cached)[1])
    assert len(cached.backlinks(cached.find("n005"))) == 1


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
    assert index_is_current(palace)
    assert render_index(palace, (tmp_path / "INDEX.md").read_bytes()) == crlf


def test_replaced_matches_a_full_rebuild(tmp_path: Path) -> None:
    _write_palace(tmp_path, 6)
    palace = Palace.open(tmp_path, cache=False)
    header = "---\nname: {}\ndescription: d\ntype: project\n---\nBody [[n000]].\n"
    changes: dict[str, bytes | None] = {
        "notes/n001.md": header.format("Renamed one").encode(),  # changed name, same slug
        "notes/n002.md": None,  # gone
        "notes/zz-new.md": header.format("Brand new").encode(),  # added
        "inbox/draft.md": header.format("A draft").encode(),
    }
    after = palace.replaced(changes)
    assert palace.replaced(dict(changes)) is after  # remembered
    disk = tmp_path
    for rel, data in changes.items():
        (disk / rel).parent.mkdir(parents=True, exist_ok=True)
        if data is None:
            (disk / rel).unlink()
        else:
            (disk / rel).write_bytes(data)
    fresh = Palace.open(tmp_path, cache=False)
    assert [n.rel for n in after.notes] == [n.rel for n in fresh.notes]
    assert [n.rel for n in after.drafts] == [n.rel for n in fresh.drafts]
    assert after.find("Renamed one").rel == "notes/n001.md"
    assert after.note_by_slug("n002") is None
    assert after.find("zz-new").name == "Brand new"
    assert [link.source for link in after.backlinks(after.find("n000"))] == [
        link.source for link in fresh.backlinks(fresh.find("n000"))
    ]
    assert palace.find("n002").rel == "notes/n002.md"  # the original is untouched


header_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False)
    | st.text(max_size=30)
    | st.dates(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.dictionaries(st.text(min_size=1, max_size=12), header_values, max_size=6),
        min_size=1,
        max_size=4,
    )
)
def test_the_disk_cache_gives_back_exactly_what_was_parsed(
    tmp_path_factory: pytest.TempPathFactory, headers: list[dict[str, object]]
) -> None:
    """Whatever a header holds, a note from the disk cache equals the freshly parsed one,
    value types included (no value changes on its way through the cache)."""
    import yaml

    root = tmp_path_factory.mktemp("palace")
    (root / "notes").mkdir()
    for i, header in enumerate(headers):
        text = "---\n" + yaml.safe_dump(header, allow_unicode=True) + "---\nbody [[x]]\n"
        (root / "notes" / f"n{i}.md").write_text(text, encoding="utf-8")
    fresh = Palace.open(root, cache=False)
    Palace.open(root)  # writes the cache; dropped at once
    cached = Palace.open(root)  # from the disk cache
    for rel, note in fresh.by_rel.items():
        again = cached.by_rel[rel]
        assert again == note
        assert _types(again.header) == _types(note.header)


def _types(value: object) -> object:
    if isinstance(value, dict):
        return {k: _types(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_types(v) for v in value]
    return type(value).__name__
