"""A palace holds its notes compactly, and a reload shares unchanged notes with the palace
its caller passes (`previous`) instead of holding a second copy of every note."""

from __future__ import annotations

import gc
import os
import weakref
from pathlib import Path
from typing import Any

import pytest
from palacehelpers import MakePalace, note_text

from curator.model.cache import notes_path
from curator.model.note import _compact_lines, parse_note
from curator.model.palace import Palace

FILES = {
    "notes/a.md": note_text("Alpha", body="See [[beta]] and [[gamma]].\n", extra="tags: [x]\n"),
    "notes/beta.md": note_text("Beta", extra="created: 2026-01-02\n"),
    "notes/gamma.md": note_text("Gamma", extra="created: 2026-01-02\n"),
    "inbox/idea.md": note_text("Idea", body="maybe\n"),
}


def cache_file(root: Path) -> Path:
    return notes_path(root)


def test_reload_shares_unchanged_notes_with_the_previous_palace(make_palace: MakePalace) -> None:
    root = make_palace(FILES)
    first = Palace.open(root)
    (root / "notes/beta.md").write_text(note_text("Beta", description="Changed."))
    (root / "notes/new.md").write_text(note_text("New"))
    (root / "notes/gamma.md").unlink()
    second = Palace.open(root, previous=first)
    assert second.by_rel["notes/a.md"] is first.by_rel["notes/a.md"]
    assert second.by_rel["inbox/idea.md"] is first.by_rel["inbox/idea.md"]
    assert second.find("beta").description == "Changed."
    assert first.find("beta").description == "About beta."  # the old palace is untouched
    assert [n.rel for n in second.notes] == ["notes/a.md", "notes/beta.md", "notes/new.md"]
    # the disk cache followed: a load given no palace sees the same notes
    del first, second
    gc.collect()
    third = Palace.open(root)
    assert third.find("beta").description == "Changed."
    assert "notes/new.md" in third.by_rel


@pytest.mark.parametrize(
    "unshared",
    [
        lambda root, first: Palace.open(root),  # nothing process-wide: the disk cache only
        lambda root, first: Palace.open(root, cache=False, previous=first),  # no cache at all
    ],
    ids=["no-previous", "no-cache"],
)
def test_only_a_passed_palace_is_shared(make_palace: MakePalace, unshared: Any) -> None:
    root = make_palace(FILES)
    first = Palace.open(root)
    again = unshared(root, first)  # equal notes, not the same objects
    assert again.by_rel["notes/a.md"] is not first.by_rel["notes/a.md"]
    assert again.by_rel["notes/a.md"] == first.by_rel["notes/a.md"]
    assert Palace.open(root, previous=first).by_rel["notes/a.md"] is first.by_rel["notes/a.md"]


def test_a_palace_of_another_layout_is_not_shared(make_palace: MakePalace) -> None:
    root = make_palace(FILES)
    first = Palace.open(root)
    toml = (root / "palace.toml").read_text()
    (root / "palace.toml").write_text(toml.replace("[palace]", '[palace]\nlayout = "folder"', 1))
    other = Palace.open(root, previous=first)
    assert "notes/a.md" in other.by_rel  # the same file, read the folder layout's way
    assert all(n is not first.by_rel.get(n.rel) for n in other.all())


def test_the_loader_keeps_no_palace_alive(make_palace: MakePalace) -> None:
    root = make_palace(FILES)
    palace = Palace.open(root)
    ref = weakref.ref(palace)
    del palace
    gc.collect()
    assert ref() is None
    assert Palace.open(root).find("alpha").ok  # from the disk cache


def test_a_touched_file_is_read_again_and_the_old_note_kept_as_it_was(
    make_palace: MakePalace,
) -> None:
    root = make_palace(FILES)
    first = Palace.open(root)
    old = first.by_rel["notes/beta.md"]
    path = root / "notes/beta.md"
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    second = Palace.open(root, previous=first)
    new = second.by_rel["notes/beta.md"]
    assert new is not old and new.sha == old.sha
    assert new.mtime_ns == stat.st_mtime_ns + 1_000_000
    assert old.mtime_ns == stat.st_mtime_ns  # a shared note is never changed in place


def test_a_missing_cache_is_written_again_on_a_reload(make_palace: MakePalace) -> None:
    root = make_palace(FILES)
    first = Palace.open(root)
    cache_file(root).unlink()
    second = Palace.open(root, previous=first)
    assert second.by_rel["notes/a.md"] is first.by_rel["notes/a.md"]
    assert cache_file(root).is_file()


def test_notes_are_compact_and_survive_the_cache(make_palace: MakePalace) -> None:
    root = make_palace(FILES)
    parsed = Palace.open(root)
    parsed_notes = {rel: parsed.by_rel[rel] for rel in FILES}
    del parsed
    gc.collect()
    cached = Palace.open(root)  # every note from the disk cache
    for rel, note in parsed_notes.items():
        again = cached.by_rel[rel]
        assert again is not note and again == note
    beta, gamma = cached.by_rel["notes/beta.md"], cached.by_rel["notes/gamma.md"]
    # header keys and short values are shared between notes (interned)
    for one, two in ((beta, gamma), (parsed_notes["notes/beta.md"], beta)):
        assert [id(k) for k in one.header] == [id(k) for k in two.header]
        assert one.header["created"] is two.header["created"]
        assert one.header["type"] is two.header["type"]
        assert one.lines is two.lines  # one copy of equal key lines
    alpha = cached.by_rel["notes/a.md"]
    assert alpha.key_lines == {"name": 2, "description": 3, "type": 4, "tags": 5}
    assert alpha.line_of("tags") == 5 and alpha.line_of("missing") == 1
    assert isinstance(alpha.links, tuple) and [link.target for link in alpha.links] == [
        "beta",
        "gamma",
    ]
    assert beta.links == () and beta.problems == ()


def test_key_lines_fall_back_to_a_dict_when_keys_differ() -> None:
    assert _compact_lines({"a": 1, "b": 2}, {"a": 2, "b": 3}) == (2, 3)
    assert _compact_lines({"a": 1, "b": 2}, {"b": 3, "a": 2}) == {"b": 3, "a": 2}
    note = parse_note("notes/x.md", b"---\nname: X\ndescription: D\ntype: user\n---\nbody\n")
    note.lines = {"type": 4}
    assert note.key_lines == {"type": 4} and note.line_of("type") == 4
    assert note.line_of("name") == 1


def test_the_keys_of_a_headers_mappings_are_shared() -> None:
    def header(i: int) -> bytes:
        source = f"source: {{session: s{i}, file: f{i}}}"
        return f"---\nname: N{i}\ndescription: D\ntype: user\n{source}\n---\n".encode()

    one, two = (parse_note(f"notes/n{i}.md", header(i)) for i in (1, 2))
    assert [id(k) for k in one.header["source"]] == [id(k) for k in two.header["source"]]
    assert one.header["source"] == {"session": "s1", "file": "f1"}


def test_problems_are_kept_in_order() -> None:
    note = parse_note("notes/x.md", b"\xef\xbb\xbf---\nname: X\ndescription: D\ntype: user\n---\n")
    assert [f.code for f in note.problems] == ["file.bom"]
    bad = parse_note("notes/y.md", b"no header here\n")
    assert [f.code for f in bad.problems] == ["header.missing"] and not bad.ok


def test_lookups_are_built_on_first_use_and_follow_replaced(make_palace: MakePalace) -> None:
    root = make_palace(FILES)
    palace = Palace.open(root)
    assert palace.lookups.slugs is None and palace.lookups.names is None  # loading builds neither
    new_note = note_text("Delta", body="[[alpha]]\n").encode()
    after = palace.replaced({"notes/delta.md": new_note, "notes/gamma.md": None})
    assert after.lookups.names is None  # not built by the parent: built when asked
    assert after.note_by_slug("delta") is after.by_rel["notes/delta.md"]
    assert after.note_by_slug("gamma") is None
    assert palace.note_by_slug("gamma") is not None  # the original is unchanged
    # a built name lookup is patched in a copy, not built again
    other = Palace.open(root, cache=False)
    assert other._by_name
    patched = other.replaced({"notes/delta.md": new_note, "notes/gamma.md": None})
    assert patched.lookups.names is not None and "gamma" not in patched.lookups.names
    assert patched._by_name["delta"] == (patched.by_rel["notes/delta.md"],)
    assert "gamma" in other._by_name
    fresh = Palace(root, patched.config, patched.notes, patched.drafts)
    assert patched._by_slug == fresh._by_slug and patched._by_name == fresh._by_name
    # the rooms are regrouped, the room rule and the render memory shared, the link graph
    # (which a change may reroute anywhere) built again
    assert [(r.spec.name, r.notes) for r in patched.rooms()] == [
        (r.spec.name, r.notes) for r in fresh.rooms()
    ]
    assert patched.lookups.room_rule is other.lookups.room_rule
    assert patched.lookups.render is other.lookups.render
    assert patched.lookups.outgoing is None
    assert [link.target for link in patched.outgoing(patched.by_rel["notes/delta.md"])] == [
        "notes/a.md"
    ]


def test_the_palace_keeps_its_lookups_in_one_object(make_palace: MakePalace) -> None:
    """What a palace works out on first use lives in `palace.lookups` alone, what its load saw
    besides the notes in `palace.loaded`: the palace's own fields are its notes, config and
    layout (13 cache and bookkeeping fields were two objects' worth), the same after any lookup
    is built."""
    palace = Palace.open(make_palace(FILES))
    before = set(vars(palace))
    note = palace.by_rel["notes/a.md"]
    palace.rooms(), palace.backlinks(note), palace.chain(note), palace.named("Alpha")
    palace.link_table(), palace.replaced({"notes/zeta.md": note_text("Zeta").encode()})
    assert set(vars(palace)) == before
    assert {n for n in before if n.startswith("_")} == set()
    assert before == {
        *("root", "config", "layout", "foreign_layout", "notes", "drafts", "problems"),
        *("by_rel", "lookups", "loaded"),
    }


# -- no leaks (issue 11): a load keeps nothing of the one before ----------------------------
def _many_notes(root: Path, count: int) -> None:
    folder = root / "notes" / "project"
    folder.mkdir(parents=True)
    for i in range(count):
        header = (
            f"---\nname: Note {i}\ndescription: about {i}\ntype: project\n"
            f"tags: [t{i % 7}, shared]\ncreated: 2026-0{1 + i % 9}-1{i % 10}\n"
            f"source: {{by: agent-{i % 3}, at: 2026-01-01}}\n---\n"
        )
        (folder / f"n{i}.md").write_text(header + f"See [[n{(i + 1) % count}]] and [x](n{i}.md).\n")
    (folder / "broken.md").write_text("---\nname: [unclosed\n---\n")


def _live_notes() -> int:
    from curator.model.note import Note

    return sum(1 for o in gc.get_objects() if type(o) is Note)


def test_loading_twice_keeps_nothing_of_the_first_load(tmp_path: Path) -> None:
    _many_notes(tmp_path, 2000)
    gc.collect()
    before = _live_notes()
    first = Palace.open(tmp_path, cache=False)
    assert len(first.notes) == 2001 and first.outgoing(first.find("n1"))  # lookups built too
    first.rooms()
    refs = [weakref.ref(first)]
    del first
    second = Palace.open(tmp_path, cache=False)
    refs.append(weakref.ref(second))
    assert refs[0]() is None  # freed by reference counting: the palace holds no cycles
    assert _live_notes() - before == 2001  # the second load's notes, none of the first's
    del second
    gc.collect()
    assert refs[1]() is None and _live_notes() == before


def test_repeated_loads_do_not_grow_memory(tmp_path: Path) -> None:
    import tracemalloc

    _many_notes(tmp_path, 300)
    Palace.open(tmp_path, cache=False)  # warm: regex caches, interned keys
    tracemalloc.start()
    try:
        sizes = []
        for _ in range(3):
            palace = Palace.open(tmp_path, cache=False)
            palace.rooms()
            del palace
            gc.collect()
            sizes.append(tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
    assert sizes[2] - sizes[0] < 32 * 1024, sizes  # nothing accumulates from load to load


def test_reloads_with_the_cache_keep_only_the_palaces_alive(tmp_path: Path) -> None:
    _many_notes(tmp_path, 500)
    gc.collect()
    before = _live_notes()
    palaces = [Palace.open(tmp_path)]
    refs = [weakref.ref(palaces[0])]
    for i in range(4):  # the app: a change, a reload, the old palace dropped
        (tmp_path / "notes/project/n1.md").write_text(note_text(f"Changed {i}"))
        palaces.append(Palace.open(tmp_path, previous=palaces[-1]))
        refs.append(weakref.ref(palaces[-1]))
        del palaces[0]
    gc.collect()
    assert [r() is None for r in refs] == [True] * 4 + [False]
    assert _live_notes() - before == len(palaces[0].by_rel)  # one copy of each, no more
    del palaces
    gc.collect()
    assert all(r() is None for r in refs) and _live_notes() == before
