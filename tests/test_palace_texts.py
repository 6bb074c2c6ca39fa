"""A long-lived server's palace lets go of its notes' text (`Palace.let_go_of_texts`): each is
read again from its file when asked for, checked against the note's hash, so what is served is
the text the gate judged or nothing (issue 34: the warm process at 100k notes)."""

from __future__ import annotations

import gc
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from curator.agents.service import Memory
from curator.agents.settling import settle_palace
from curator.model import cache
from curator.model.index_md import index_bytes
from curator.model.note import NoteChanged, Texts, edit_header, parse_note
from curator.model.palace import INDEX_NAME, Palace


def _texts(palace: Palace) -> dict[str, tuple[str, str, tuple[object, ...]]]:
    return {n.rel: (n.text, n.body, n.links) for n in palace.notes}


def test_a_palace_that_let_go_reads_every_text_as_a_fresh_load(sample_palace: Path) -> None:
    palace = Palace.open(sample_palace)
    palace.let_go_of_texts()
    assert palace.notes and not any(n.held for n in palace.notes)
    assert all(n._text == "" for n in palace.notes)  # held nowhere but the file
    assert all(d.held for d in palace.drafts)  # a promote reads the drafts
    assert _texts(palace) == _texts(Palace.open(sample_palace, cache=False))


def test_a_palace_that_let_go_reads_index_md_again_or_refuses(sample_palace: Path) -> None:
    """INDEX.md as loaded (a plan's pre-image) is let go too, kept as its hash: read again
    it is the same bytes, and a file that changed since is refused, never taken for them."""
    palace = Palace.open(sample_palace)
    loaded = index_bytes(palace)
    assert loaded is not None
    palace.let_go_of_texts()
    assert palace.loaded.index_snapshot is not None
    assert not any(isinstance(held, bytes) for held in palace.loaded.index_snapshot)
    assert index_bytes(palace) == loaded
    after = palace.replaced({INDEX_NAME: b"# rendered\n"})  # a plan's own INDEX.md stands
    assert index_bytes(after) == b"# rendered\n"
    (sample_palace / INDEX_NAME).write_bytes(loaded + b"\n- a line an action added\n")
    with pytest.raises(NoteChanged):
        index_bytes(palace)
    (sample_palace / INDEX_NAME).unlink()
    with pytest.raises(NoteChanged):
        index_bytes(palace)


def test_a_changed_or_removed_file_is_never_read_as_the_note(sample_palace: Path) -> None:
    palace = Palace.open(sample_palace)
    palace.let_go_of_texts()
    changed, removed = palace.notes[0], palace.notes[1]
    path = sample_palace / changed.rel
    path.write_text(path.read_text().replace("---\n", "---\nsensitive: true\n", 1))
    (sample_palace / removed.rel).unlink()
    for note in (changed, removed):
        with pytest.raises(NoteChanged):
            note.text  # noqa: B018
        with pytest.raises(NoteChanged):
            note.body  # noqa: B018
        with pytest.raises(NoteChanged):  # never a header-only note written over the file
            edit_header(note, {"description": "x"})


def test_a_reload_shares_the_notes_that_let_go_and_reads_them_again(sample_palace: Path) -> None:
    palace = Palace.open(sample_palace)
    palace.let_go_of_texts()
    note = palace.notes[0]
    again = Palace.open(sample_palace, previous=palace)
    assert again.by_rel[note.rel] is note  # one copy of every unchanged note
    assert note.text == (sample_palace / note.rel).read_text()


def test_notes_that_let_go_are_never_cached_without_their_text(sample_palace: Path) -> None:
    palace = Palace.open(sample_palace)
    first = cache.notes_path(sample_palace).read_bytes()
    palace.let_go_of_texts()
    cache.write_notes(sample_palace, palace.by_rel, palace.loaded.started_ns)
    assert cache.notes_path(sample_palace).read_bytes() == first  # the cache as it was
    cached, _ = cache.read_notes(sample_palace)
    assert len(cached) == len(palace.by_rel)
    assert {rel: n.text for rel, n in cached.items()} == {
        rel: (sample_palace / rel).read_text() for rel in cached
    }


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=600) | st.text(max_size=300).map(lambda t: f"---\n{t}".encode()))
def test_any_file_reads_again_as_it_was_parsed(tmp_path_factory, data: bytes) -> None:
    root = tmp_path_factory.mktemp("texts")
    (root / "notes").mkdir()
    (root / "notes" / "n.md").write_bytes(data)
    note = parse_note("notes/n.md", data)
    text, body = note.text, note.body
    note.let_go(Texts(str(root)))
    (root / "notes" / "n.md").write_bytes(data + b"x")
    if not note.held:  # a note with no text keeps what it has
        with pytest.raises(NoteChanged):
            note.text  # noqa: B018
    (root / "notes" / "n.md").write_bytes(data)
    assert (note.text, note.body) == (text, body)


def test_a_settled_server_answers_as_before_and_never_from_changed_bytes(
    indexed_palace: Path,
) -> None:
    memory = Memory(indexed_palace)
    try:
        before = memory.search("deploy", limit=5)
        refs = [hit["path"] for hit in before["results"]]
        read = {ref: memory.read_note(ref) for ref in refs}
        settle_palace(memory.palace)
        assert not any(n.held for n in memory.palace.notes)
        assert memory.search("deploy", limit=5) == before
        assert {ref: memory.read_note(ref) for ref in refs} == read
        other = next(n.rel for n in memory.palace.notes if n.rel not in refs)
        path = indexed_palace / other
        secret = path.read_text().replace("---\n", "---\nsensitive: true\n", 1) + "SECRET\n"
        path.write_text(secret)
        with pytest.raises(NoteChanged):  # the old palace never stands for the new bytes
            memory.read_note(other)
    finally:
        gc.unfreeze()
        memory.close()


def test_a_palace_copied_elsewhere_reads_its_own_files(sample_palace: Path, tmp_path) -> None:
    palace = Palace.open(sample_palace)
    palace.let_go_of_texts()
    moved = tmp_path / "moved"
    shutil.move(sample_palace, moved)
    with pytest.raises(NoteChanged):  # read from where the palace was loaded, or nothing
        palace.notes[0].text  # noqa: B018


def test_an_agents_read_answers_the_changed_file_judged_again(indexed_palace: Path) -> None:
    """A file changed under a settled palace before the watch said so: the MCP read tools
    answer from the palace read again (never an error the agent must retry, never the old
    bytes), and a change that hides the note is refused, not served."""
    from curator.agents.mcp import memory_tools
    from curator.errors import CuratorError

    memory = Memory(indexed_palace)
    try:
        tools = {tool.name: tool for tool in memory_tools(memory)}
        rels = [n.rel for n in memory.palace.notes if n.kind == "note" and n.ok][:2]
        settle_palace(memory.palace)
        edited, hidden = (indexed_palace / rel for rel in rels)
        edited.write_text(edited.read_text() + "\nA line written after the palace settled.\n")
        answer = tools["read_note"].fn(ref=rels[0])
        assert "A line written after the palace settled." in answer["text"]
        text = hidden.read_text().replace("---\n", "---\nsensitive: true\n", 1)
        hidden.write_text(text + "SECRET-AFTER-SETTLE\n")
        settle_palace(memory.palace)
        hidden.write_text(text + "SECRET-AFTER-SETTLE, twice\n")
        with pytest.raises(CuratorError) as refused:
            tools["read_note"].fn(ref=rels[1])
        assert not isinstance(refused.value, NoteChanged)
        assert "SECRET" not in str(refused.value)
    finally:
        gc.unfreeze()
        memory.close()
