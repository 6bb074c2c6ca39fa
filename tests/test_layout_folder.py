"""Plain folders of markdown: front matter optional (YAML, TOML, JSON); walking and excludes."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from layouthelpers import TYPES, read_folder

from curator.model.layouts import detect, get_layout
from curator.model.layouts.frontmatter import foreign_front_matter, read_note
from curator.model.layouts.walk import outside, walk

FILES = {
    "plain.md": "Just text, linking [[toml note]] and [yaml](sub/yaml.md).\n",
    "toml note.md": '+++\ntitle = "From TOML"\ntags = ["a", "b"]\n+++\nBody of toml.\n',
    "json.md": '{\n  "title": "From JSON",\n  "type": "reference"\n}\nBody of json.\n',
    "sub/yaml.md": "---\nname: From YAML\ndescription: d\ntype: project\n---\nSee [[plain]].\n",
    ".git/HEAD": "ref: refs/heads/main\n",
    "inbox/draft.md": "---\nname: a draft\n---\n",
    "INDEX.md": "generated\n",
}


def make(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_yaml_toml_json_and_no_front_matter_all_load(tmp_path: Path) -> None:
    root = make(tmp_path, FILES)
    # half its notes use wikilinks: an Obsidian vault whose .obsidian/ is not in git
    assert detect(root).layout == "obsidian"
    folder = read_folder(root, "folder")
    assert sorted(folder.notes) == ["json.md", "plain.md", "sub/yaml.md", "toml note.md"]
    names = {rel: n.header["name"] for rel, n in folder.notes.items()}
    assert names == {
        "json.md": "From JSON",
        "plain.md": "plain",
        "sub/yaml.md": "From YAML",
        "toml note.md": "From TOML",
    }
    assert folder.notes["json.md"].header["type"] == "reference"
    assert folder.notes["toml note.md"].header["tags"] == ["a", "b"]
    toml = folder.notes["toml note.md"]
    assert toml.text[toml.header_end :] == "Body of toml.\n" and toml.body_line == 5
    assert folder.problems() == []


def test_curator_layout_stays_strict(tmp_path: Path) -> None:
    note = read_note("notes/x.md", b"no header\n", get_layout("curator"), TYPES)
    assert not note.ok and note.problems[0].code == "header.missing"


def test_notes_root_and_markdown_outside_it(tmp_path: Path) -> None:
    root = make(tmp_path, {"vault/a.md": "a\n", "vault/b/c.md": "c\n", "README.md": "r\n"})
    layout = get_layout("obsidian", notes="vault")
    assert [rel for rel, _ in walk(root, layout)] == ["vault/a.md", "vault/b/c.md"]
    assert outside(root, layout) == ["README.md"]
    assert [rel for rel, _ in walk(root, layout, ["b"])] == ["vault/a.md"]  # palace.toml excludes


def test_symlinks_are_not_followed(tmp_path: Path) -> None:
    root = make(tmp_path / "p", {"a.md": "a\n"})
    secret = make(tmp_path / "elsewhere", {"secret.md": "s\n"})
    (root / "link").symlink_to(secret, target_is_directory=True)
    (root / "l.md").symlink_to(secret / "secret.md")
    assert [rel for rel, _ in walk(root, get_layout("folder"))] == ["a.md"]


@settings(deadline=None)
@given(st.text(st.characters(blacklist_categories=["Cs"]), max_size=300))
def test_reading_never_raises(text: str) -> None:
    found = foreign_front_matter(text)
    if found is not None:
        fields, end = found
        assert isinstance(fields, dict) and 0 < end <= len(text)
    for name in ("folder", "obsidian", "claude-code", "basic-memory"):
        note = read_note("x.md", text.encode(), get_layout(name), TYPES)
        assert note.ok or note.problems
        if note.ok:
            assert isinstance(note.header.get("name"), str)


def test_edits_add_front_matter_to_a_plain_note_and_refuse_toml(tmp_path: Path) -> None:
    import pytest

    from curator.model.note import NoteEditError, edit_header

    layout = get_layout("folder")
    plain = read_note("plain.md", b"Just text.\n", layout, TYPES)
    assert plain.body == "Just text.\n"  # all body
    edited = edit_header(plain, {"status": "retired"})
    assert edited == b"---\nstatus: retired\n---\nJust text.\n"  # the text kept byte for byte
    toml = read_note("t.md", b'+++\ntitle = "T"\n+++\nBody\n', layout, TYPES)
    with pytest.raises(NoteEditError, match="read only"):
        edit_header(toml, {"status": "retired"})
