"""A palace read from the search index (`curator.search.cold.IndexedPalace`) finds the notes
holding a name as the loaded palace does (`Palace.named`, by `name_key`: case and runs of
whitespace aside), whatever the name's case, spaces or characters beyond ASCII, and works out
the key of only the names that may hold the one asked for, not of every row's."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from palacehelpers import MakePalace, RunCli

from curator.model.palace import Palace
from curator.search import cold
from curator.search.cold import IndexedPalace, indexed_palace

TOML = '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[index]\nembedder = "hash"\ndim = 64\n'

# each name as YAML writes it (JSON is YAML): spaces around and between words, tabs, the
# separators str.split takes for whitespace, case that folds beyond ASCII, a non-breaking space
NAMES = (
    "Zebu ledger",
    "ZEBU   LEDGER",
    " zebu ledger ",
    "zebu\tledger",
    "Zebu\x1fledger",
    "Straße rule",
    "STRASSE RULE",
    "strasse rule",
    "Kelvin \u212a",
    "kelvin k",
    "Fancy\u00a0space",
    "fancy space",
    "\ufb01le flow",
    "FILE FLOW",
    "Plain name",
)
ORDINARY = 60  # notes of plain names none of the asked ones hold


def _age(root: Path) -> None:
    for path in [*root.rglob("*.md"), root / "palace.toml"]:
        if ".git" not in path.parts:
            info = path.stat()
            os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns - 60 * 10**9))


@pytest.fixture
def root(make_palace: MakePalace, run_cli: RunCli) -> Path:
    files = {
        f"notes/project/named-{i}.md": (
            f"---\nname: {json.dumps(name)}\ndescription: A name.\ntype: project\n---\nBody.\n"
        )
        for i, name in enumerate(NAMES)
    }
    for i in range(ORDINARY):
        files[f"notes/project/other-{i}.md"] = (
            f"---\nname: Other note {i}\ndescription: Other.\ntype: project\n---\nBody.\n"
        )
    files["notes/project/unreadable.md"] = "---\nname: [broken\n---\nBody.\n"  # no row
    files["inbox/a-draft.md"] = "---\nname: A draft\ndescription: D.\ntype: project\n---\nB.\n"
    root = make_palace(files, toml=TOML)
    _age(root)
    code, _, err = run_cli("--palace", root, "search", "name")  # builds the index
    assert code == 0, err
    return root


def _indexed(root: Path) -> IndexedPalace:
    found = indexed_palace(root)
    assert found is not None
    return found[0]


def test_names_are_found_as_the_loaded_palace_finds_them(root: Path) -> None:
    loaded, indexed = Palace.open(root), _indexed(root)
    asked = [*NAMES, "zebu ledger", "ZEBU LEDGER ", "straße RULE", "Other note 7", "no such"]
    for name in asked:
        want = [note.rel for note in loaded.named(name)]
        assert [note.rel for note in indexed.named(name)] == want, name
    assert len(indexed.named("zebu ledger")) == 5  # the spaced and separated ones too
    assert len(indexed.named("strasse rule")) == 3


def test_only_the_names_that_may_hold_the_key_are_keyed(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    indexed = _indexed(root)
    keyed: list[str] = []
    real = cold.name_key

    def counted(name: str) -> str:
        keyed.append(name)
        return real(name)

    monkeypatch.setattr(cold, "name_key", counted)
    assert [note.rel for note in indexed.named("Other note 7")] == ["notes/project/other-7.md"]
    # the names beyond plain ASCII words and the one that is the key: never the other 59
    assert len(keyed) < len(NAMES) + 1 < ORDINARY
    assert "Other note 8" not in keyed


def test_a_name_asked_for_makes_no_list_of_every_rows_names(root: Path) -> None:
    """Only the paths and kinds of every row become Python lists: the names and slugs are
    read from the rows when a lookup needs them all (names matched as you type, a slug)."""
    indexed = _indexed(root)
    assert [note.rel for note in indexed.named("Plain name")] == ["notes/project/named-14.md"]
    assert set(indexed._columns) == {"path", "kind"}
    paths, names, _row = indexed.index_names
    assert names[paths.index("notes/project/named-14.md")] == "Plain name"


def test_every_file_is_of_the_kind_the_loaded_palace_reads(root: Path) -> None:
    loaded, indexed = Palace.open(root), _indexed(root)
    want = {note.rel: note.kind for note in loaded.all()}
    kinds = indexed.files.kinds
    assert dict(kinds.items()) == want and len(kinds) == len(want)
    assert kinds["notes/project/unreadable.md"] == "note" and kinds["inbox/a-draft.md"] == "draft"
    assert "notes/project/other-7.md" in indexed.files and "notes/nothing.md" not in indexed.files
    with pytest.raises(KeyError):
        indexed.files["notes/project/other-70.md"]


# names as headers may hold them: ASCII (spaces and case above all), the whitespace str.split
# takes, and characters whose case folds beyond ASCII
_NAME_CHARS = st.sampled_from(
    [*"aZ q.-_", "  ", "\t", "\x1f", "\x0b", "\u00a0", "\u2003", "\u212a", "\u00df", "\ufb01"]
)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.none(), st.lists(_NAME_CHARS).map("".join)), min_size=1))
def test_name_cues_keep_every_row_holding_a_key(names: list[str | None]) -> None:
    """`NameCues.rows(key)` holds every row whose name has `key`: the cue may keep others,
    never lose one (a promote would miss a name already taken)."""
    import pyarrow as pa

    from curator.model.schema import name_key

    cues = cold.NameCues(pa.chunked_array([pa.array(names, pa.string())]))
    for i, name in enumerate(names):
        assert i in cues.rows(name_key(name or "")), (name, name_key(name or ""))
