"""The index's palace (`curator.search.cold.IndexedPalace`) answers a name, a slug and a
note's kind as the loaded palace does, names and slugs several notes share included (found
when asked, not gathered when the table is made)."""

from __future__ import annotations

from pathlib import Path

from palacehelpers import MakePalace, RunCli, note_text

from curator.model.palace import Palace
from curator.search.cold import indexed_palace

TOML = '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[index]\nembedder = "hash"\ndim = 64\n'


def test_shared_names_and_slugs_are_answered_as_the_loaded_palace_does(
    make_palace: MakePalace, run_cli: RunCli
) -> None:
    files = {
        "notes/project/otter.md": note_text("Otter  rule"),
        "notes/user/otter.md": note_text("otter RULE"),
        "notes/feedback/b-otter.md": note_text("Otter rule"),
        "notes/reference/ibis.md": note_text("Ibis"),
        "inbox/otter-draft.md": note_text("Otter rule"),
    }
    root: Path = make_palace(files, toml=TOML)
    code, _, err = run_cli("--palace", root, "reindex")
    assert code == 0, err
    found = indexed_palace(root)
    assert found is not None
    rows, loaded = found[0], Palace.open(root)
    for name in ("otter rule", "OTTER   Rule", "Ibis", "nobody"):
        assert [n.rel for n in rows.named(name)] == [n.rel for n in loaded.named(name)]
    for slug in ("otter", "ibis", "b-otter", "nobody"):
        assert [n.rel for n in rows._by_slug.get(slug, ())] == [
            n.rel for n in loaded._by_slug.get(slug, ())
        ]
    assert [n.rel for n in rows.named("otter rule")] == [
        "notes/feedback/b-otter.md", "notes/project/otter.md", "notes/user/otter.md"
    ]  # fmt: skip
    assert rows.files.kinds["inbox/otter-draft.md"] == "draft"
    assert rows.files.kinds["notes/reference/ibis.md"] == "note"
