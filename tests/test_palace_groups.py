"""Rooms, the superseded list and supersede chains of a palace made by `replaced()` are exactly
those of a palace built from scratch with the same notes (they are patched, not rebuilt)."""

from __future__ import annotations

from palacehelpers import MakePalace, note_text

from curator.model.palace import Palace

FILES = {
    "notes/project/a.md": note_text("Alpha"),
    "notes/project/b.md": note_text("Beta", extra="status: superseded\nsuperseded_by: c\n"),
    "notes/project/c.md": note_text("Gamma", extra="supersedes: [b]\n"),
    "notes/user/me.md": note_text("Me", type="user"),
    "notes/reference/docs.md": note_text("Docs", type="reference"),
    "notes/project/broken.md": "---\nname: [unclosed\n---\nbody\n",
    "inbox/draft.md": note_text("A draft"),
}


def _shape(palace: Palace) -> tuple[object, ...]:
    rooms = [(r.spec.name, [n.rel for n in r.notes]) for r in palace.rooms()]
    superseded = [n.rel for n in palace.superseded_notes()]
    chains = {n.rel: [m.rel for m in palace.chain(n)] for n in palace.notes}
    successors = {n.rel: getattr(palace.successor(n), "rel", None) for n in palace.notes}
    return rooms, superseded, chains, successors


def test_replaced_groups_match_a_fresh_palace(make_palace: MakePalace) -> None:
    palace = Palace.open(make_palace(FILES))
    _shape(palace)  # builds the groups that replaced() then patches
    changes: dict[str, bytes | None] = {
        # c is superseded by a new note d; a moves to the reference room; me goes away
        "notes/project/c.md": note_text(
            "Gamma", extra="supersedes: [b]\nstatus: superseded\nsuperseded_by: d\n"
        ).encode(),
        "notes/project/d.md": note_text("Delta", extra="supersedes: [c]\n").encode(),
        "notes/project/a.md": note_text("Alpha", type="reference").encode(),
        "notes/user/me.md": None,
        "inbox/new.md": note_text("Another draft").encode(),
    }
    after = palace.replaced(changes)
    fresh = Palace(after.root, after.config, after.notes, after.drafts)
    assert _shape(after) == _shape(fresh)
    rooms, superseded, _, successors = _shape(after)
    assert ("reference", ["notes/project/a.md", "notes/reference/docs.md"]) in rooms
    assert ("user", []) in rooms
    assert superseded == ["notes/project/b.md", "notes/project/c.md"]
    assert successors["notes/project/b.md"] == "notes/project/d.md"
    assert _shape(palace) != _shape(after)  # the original palace is unchanged
    for room in after.rooms():  # callers get copies: clearing them changes nothing
        room.notes.clear()
    after.superseded_notes().clear()
    assert _shape(after) == _shape(fresh)
