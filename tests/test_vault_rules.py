"""Each rule of how Obsidian reads a vault (tests/vaultrules.py), checked through the CLI:
`curator check` reports what Obsidian itself would show as a problem, and nothing else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from layouthelpers import TYPES
from palacehelpers import RunCli
from vaultrules import RULES, make

from curator.model.layouts import detect, get_layout
from curator.model.layouts.frontmatter import adapt, read_note
from curator.model.links import extract_links
from curator.model.palace import Palace


def findings(run_cli: RunCli, root: Path) -> tuple[int, list[tuple[str, str, str]]]:
    code, out, err = run_cli("--palace", root, "check", "--json")
    assert code in (0, 1), err
    found = [(f["path"], f["severity"], f["code"]) for f in json.loads(out)["findings"]]
    return code, sorted(found)


@pytest.mark.parametrize("rule", sorted(RULES))
def test_check_reports_what_the_owning_tool_would(
    tmp_path: Path, run_cli: RunCli, rule: str
) -> None:
    root = make(tmp_path / rule, rule)
    code, found = findings(run_cli, root)
    expected = sorted(RULES[rule][2])
    assert found == expected
    assert code == (1 if any(severity == "error" for _, severity, _ in expected) else 0)


def test_property_links_are_backlinks_in_show(tmp_path: Path, run_cli: RunCli) -> None:
    root = make(tmp_path / "v", "property-links")
    code, out, _ = run_cli("--palace", root, "show", "Home", "--json")
    assert code == 0
    assert json.loads(out)["backlinks"] == [{"source": "Dune.md", "line": 3}]
    books = json.loads(run_cli("--palace", root, "show", "Books", "--json")[1])
    assert books["backlinks"] == [{"source": "Dune.md", "line": 2}]


def test_an_alias_link_says_which_note_it_would_match(tmp_path: Path, run_cli: RunCli) -> None:
    root = make(tmp_path / "v", "aliases")
    code, out, _ = run_cli("--palace", root, "show", "Home")
    assert code == 0
    assert "-> Alpha Plan.md" in out
    assert (
        "BROKEN: AP: link to 'AP' matches no note or file; it is an alias of Alpha Plan.md" in out
    )
    assert "[[Alpha Plan|AP]]" in out


def test_dot_folders_are_not_loaded_linked_or_backlinks(tmp_path: Path) -> None:
    palace = Palace.open(make(tmp_path / "v", "dot-folders"), cache=False)
    assert [n.rel for n in palace.notes] == ["Home.md"]
    assert palace.loaded.attachments == ("palace.toml",)
    assert palace.backlinks(palace.by_rel["Home.md"]) == []


def test_templates_are_listed_as_templates_not_notes(tmp_path: Path, run_cli: RunCli) -> None:
    root = make(tmp_path / "v", "templates")
    data = json.loads(run_cli("--palace", root, "list", "--all", "--json")[1])
    assert [n["path"] for n in data["notes"]] == ["Home.md"]
    assert data["templates"] == ["Meta/Templates/Daily.md"]
    code, out, _ = run_cli("--palace", root, "list", "--all")
    assert code == 0 and "template" in out and "Meta/Templates/Daily.md" in out
    palace = Palace.open(root, cache=False)
    home = palace.by_rel["Home.md"]
    assert palace.resolve(home.rel, home.links[0]) == "Meta/Templates/Daily.md"  # a file
    default = json.loads(
        run_cli("--palace", make(tmp_path / "d", "templates-default"), "list", "--all", "--json")[1]
    )
    assert default["templates"] == ["Templates/Meeting.md"]


@pytest.mark.parametrize(
    ("rule", "code"),
    [
        ("bad-header", "header.yaml"),
        ("unclosed-header", "header.unclosed"),
        ("unclosed-header-folder", "header.unclosed"),
    ],
)
def test_a_header_that_does_not_parse_keeps_its_body(
    tmp_path: Path, run_cli: RunCli, rule: str, code: str
) -> None:
    root = make(tmp_path / "v", rule)
    palace = Palace.open(root, cache=False)
    bad = palace.by_rel["Bad.md"]
    assert not bad.ok  # hidden from agents: fail closed
    line = next(n for n, text in enumerate(bad.text.splitlines(), 1) if "[[Other]]" in text)
    assert "## Section" in bad.body and [link.line for link in bad.links] == [line]
    assert [link.target for link in palace.outgoing(bad)] == ["Other.md"]
    assert [link.source for link in palace.backlinks(bad)] == ["Other.md"]
    data = json.loads(run_cli("--palace", root, "list", "--json")[1])
    assert [n["path"] for n in data["notes"]] == ["Bad.md", "Other.md"]
    assert [p["code"] for p in data["problems"]] == [code]
    search = run_cli("--palace", root, "search", "Section", "--json")
    assert search[0] == 0, search[2]
    assert "Bad.md" not in search[1]  # never indexed, so no agent reads it


def test_markdown_links_without_md_are_links(tmp_path: Path, run_cli: RunCli) -> None:
    palace = Palace.open(make(tmp_path / "v", "markdown-links"), cache=False)
    home = palace.by_rel["Home.md"]
    assert [link.target for link in palace.outgoing(home)] == [
        "Notes/Three laws.md",
        "Notes/Three laws.md",
        "report.pdf",
        None,
    ]
    laws = palace.by_rel["Notes/Three laws.md"]
    assert [link.source for link in palace.backlinks(laws)] == ["Home.md", "Home.md"]


def test_curator_fields_under_curator_are_curators(tmp_path: Path) -> None:
    palace = Palace.open(make(tmp_path / "v", "vault-properties"), cache=False)
    assert palace.by_rel["Old.md"].superseded  # curator's status, under curator:
    assert not palace.by_rel["Task.md"].superseded and palace.by_rel["Task.md"].status == "active"
    task = palace.by_rel["Task.md"]
    assert [link.target for link in palace.outgoing(task)] == ["Active.md"]


def test_obsidian_help_vault_is_detected_as_obsidian(tmp_path: Path) -> None:
    """Obsidian's own help vault: `permalink:` in front matter (for Obsidian Publish), wikilinks
    and embeds, no .obsidian/ in git."""
    for i in range(6):
        text = f"---\npermalink: page-{i}\n---\nSee [[Page {i + 1}]] and ![[shot-{i}.png]].\n"
        (tmp_path / f"Page {i}.md").write_text(text)
    (tmp_path / "About.md").write_text("---\npermalink: about\n---\nNo links here.\n")
    found = detect(tmp_path)
    assert found.layout == "obsidian"
    assert "6 of 7 notes use [[wikilinks]]" in found.reason
    assert found.runner_up.startswith("basic-memory: 7 of 7 notes have a permalink")


def test_basic_memory_notes_still_win_over_their_wikilinks(tmp_path: Path) -> None:
    for i in range(3):
        text = (
            f"---\ntitle: N{i}\npermalink: n{i}\n---\n## Observations\n- [fact] x\n\n"
            f"## Relations\n- relates_to [[N{i + 1}]]\n"
        )
        (tmp_path / f"N{i}.md").write_text(text)
    found = detect(tmp_path)
    assert found.layout == "basic-memory" and found.runner_up.startswith("obsidian")


def test_basic_memory_config_naming_the_folder_is_a_marker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".basic-memory").mkdir(parents=True)
    project.mkdir()
    (project / "a.md").write_text("See [[b]].\n")
    config = {"projects": {"main": str(project)}}
    (home / ".basic-memory" / "config.json").write_text(json.dumps(config))
    monkeypatch.setenv("HOME", str(home))
    found = detect(project)
    assert found.layout == "basic-memory" and "lists it as project 'main'" in found.reason


def test_the_adopt_plan_shows_why_and_the_runner_up(tmp_path: Path, run_cli: RunCli) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "a.md").write_text("---\npermalink: a\n---\n[[b]]\n")
    (root / "b.md").write_text("# b\n")
    code, out, _ = run_cli("init", "--adopt", root, "--dry-run")
    assert code == 0
    assert "as an obsidian palace (1 of 2 notes use [[wikilinks]] or embeds)" in out
    assert "runner-up: basic-memory: 1 of 2 notes have a permalink" in out


_TEXT = st.text(st.characters(blacklist_categories=["Cs"]), max_size=60)
_VALUE = st.one_of(_TEXT, st.builds("[[{}]]".format, _TEXT))


@settings(deadline=None)
@given(
    values=st.lists(st.one_of(_VALUE, st.lists(_VALUE, max_size=3)), max_size=4),
    body=_TEXT,
    layout=st.sampled_from(["obsidian", "folder"]),
)
def test_reading_any_vault_note_never_raises_and_adapting_twice_changes_nothing(
    values: list[object], body: str, layout: str
) -> None:
    header = "".join(f"k{i}: {json.dumps(v)}\n" for i, v in enumerate(values))
    data = f"---\n{header}---\n[[{body}]]\n".encode()
    lay = get_layout(layout)
    note = read_note("a.md", data, lay, TYPES)
    links = note.links
    assert all(1 <= link.line <= data.count(b"\n") + 1 for link in links)
    again = adapt(note, lay, TYPES)
    assert again.links == links and again.header == note.header
    if note.ok:  # every wikilink written in a header string is a link, at its key's line
        strings = [
            (i, x) for i, v in enumerate(values) for x in (v if isinstance(v, list) else [v])
        ]
        wanted = [
            (i + 2, link.target)
            for i, text in strings
            for link in extract_links(str(text))
            if link.kind == "wiki"
        ]
        got = [(link.line, link.target) for link in links if link.line < note.body_line]
        assert got == wanted
