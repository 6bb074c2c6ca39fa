"""INDEX.md re-rendered by the rooms an action touches: the sections of the rooms it leaves
alone are copied from the INDEX.md on disk when that is known to be the render of the palace
the action starts from, and the bytes equal a full render from a freshly loaded palace."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from palacehelpers import MakePalace, note_text

from curator.model import index_md
from curator.model.index_md import render_index
from curator.model.note import Note
from curator.model.palace import INDEX_NAME, Palace

TYPES = ("user", "feedback", "project", "reference")
FILES = {
    f"notes/{t}/n{i}.md": note_text(f"{t.title()} note {i}", type=t)
    for i, t in enumerate(TYPES * 2)
}
FILES["notes/project/old.md"] = note_text(
    "Old note", extra="status: superseded\nsuperseded_by: n2\n"
)

step = st.tuples(
    st.sampled_from(["add", "edit", "retype", "delete", "supersede"]),
    st.integers(0, 30),
    st.sampled_from(TYPES),
    st.text("abc [x]—é", max_size=12),
)


def _start(make_palace: MakePalace) -> tuple[Palace, bytes]:
    root = make_palace(FILES)
    palace = Palace.open(root)
    data = render_index(palace, None).encode("utf-8")
    (root / INDEX_NAME).write_bytes(data)
    return Palace.open(root), data


def _change(palace: Palace, op: str, pick: int, kind: str, words: str) -> dict[str, bytes | None]:
    notes = sorted(n.rel for n in palace.notes)
    rel = notes[pick % len(notes)]
    if op == "add":
        return {
            f"notes/{kind}/new{pick}-{len(notes)}.md": note_text(f"New {words}", type=kind).encode()
        }
    if op == "edit":
        return {rel: note_text(f"Edited {words}", description=words or None).encode()}
    if op == "retype":
        return {rel: note_text(f"Moved {pick}", type=kind).encode()}
    if op == "supersede":
        return {rel: note_text("Replaced", extra="status: superseded\n").encode()}
    return {rel: None}


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(step, min_size=1, max_size=4))
def test_incremental_render_is_byte_identical_to_a_full_render(
    make_palace: MakePalace, steps: list[tuple[str, int, str, str]]
) -> None:
    palace, existing = _start(make_palace)
    root = palace.root
    for op, pick, kind, words in steps:
        changes = _change(palace, op, pick, kind, words)
        after = palace.replaced(changes)
        incremental = render_index(after, existing, since=palace).encode("utf-8")
        for rel, data in changes.items():
            path = root / rel
            if data is None:
                path.unlink()
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
        full = render_index(Palace.open(root), existing).encode("utf-8")
        assert incremental == full
        (root / INDEX_NAME).write_bytes(full)
        palace, existing = Palace.open(root), full


def test_an_action_renders_only_the_rooms_it_touches(
    make_palace: MakePalace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Editing one project note copies the other rooms' sections from INDEX.md and splices
    the project room's (its other notes' lines kept, no line rendered but the edited note's:
    issue 34); an INDEX.md not known to be the render of the palace (edited by hand) copies
    nothing."""
    palace, existing = _start(make_palace)
    after = palace.replaced({"notes/project/n2.md": note_text("Project note two").encode()})
    rendered = _renders_counted(monkeypatch)
    reused = index_md._reusable(palace, after, existing)
    assert rendered == ["notes/project/n2.md"]
    assert sorted(reused) == ["feedback", "project", "reference", "user"]
    assert all(section.startswith("\n## ") for section in reused.values())
    assert all(reused[t].encode() in existing for t in ("feedback", "reference", "user"))
    assert reused["project"] in render_index(after, None)
    hand_edited = existing.replace(b"User note 0", b"User note zero")
    assert index_md._reusable(palace, after, hand_edited) == {}
    assert render_index(after, hand_edited, since=palace) == render_index(
        Palace.open(palace.root).replaced(
            {"notes/project/n2.md": note_text("Project note two").encode()}
        ),
        hand_edited,
    )


def test_a_plan_never_applied_leaves_the_next_action_its_copy(
    make_palace: MakePalace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 34: a plan renders INDEX.md before it is applied and was remembered as the one
    render; a plan then dropped (a dry run, a diff the person declined) left the next action
    nothing to copy from, and it rendered every room again (at 100k notes seconds of CPU and
    ~150 MB)."""
    palace, existing = _start(make_palace)
    dropped = palace.replaced({"notes/user/dropped.md": note_text("Dropped", type="user").encode()})
    render_index(dropped, existing, since=palace)  # planned, never applied
    change = {"notes/project/kept.md": note_text("Kept").encode()}
    after = palace.replaced(change)
    rendered = _renders_counted(monkeypatch)
    incremental = render_index(after, existing, since=palace)
    assert rendered == ["notes/project/kept.md"]
    monkeypatch.undo()
    assert incremental == render_index(Palace.open(palace.root).replaced(change), existing)


def _renders_counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The notes whose INDEX.md entry is rendered from now on, in order."""
    rendered: list[str] = []
    real = index_md._render_entry

    def counted(palace: Palace, note: Note) -> str:
        rendered.append(note.rel)
        return real(palace, note)

    monkeypatch.setattr(index_md, "_render_entry", counted)
    return rendered


def test_a_render_copying_nothing_keeps_no_lines(make_palace: MakePalace) -> None:
    """Issue 34: the first action on an INDEX.md curator never rendered renders every room;
    its lines were kept in the palace's memo besides the text (at 100k notes that action's
    process peaked at 721 MB). The next action copies from the file instead; a render that
    copies rooms keeps what it spliced."""
    palace, existing = _start(make_palace)
    after = palace.replaced({"notes/project/n2.md": note_text("Project note two").encode()})
    render_index(after, b"# By hand\n", since=palace)
    assert after.lookups.render == {}
    render_index(after, existing, since=palace)
    assert after.lookups.render != {}
