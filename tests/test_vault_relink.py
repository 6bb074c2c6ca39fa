"""Supersede and merge with --relink move links written in properties (`up: "[[Old]]"`,
`categories: ["[[Old]]"]`) as well as the body's, in a vault whose tool reads links there,
and keep every other byte of the header and the body."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from vaultrules import write_vault

from curator.model.header_edit import fields_of
from curator.model.palace import Palace
from curator.writer.actions.common import relinked
from curator.writer.actions.merge import plan_merge
from curator.writer.actions.supersede import plan_supersede
from curator.writer.plan import Write

DUNE = (
    "---\n"
    'categories: ["[[Old]]", "[[Books]]"]   # shelf\n'
    "up: '[[Old#Intro|the old one]]'\n"
    "rating: 5\n"
    "seen:\n"
    "  - [[Old]]\n"  # a list of lists in YAML, not a link: left alone
    '  - "[[Old]]"\n'
    "---\n"
    "Body [[Old]], [x](Old.md), [y](Old#Intro) and [[Books]].\n"
)
EXPECTED = DUNE.replace('["[[Old]]"', '["[[New]]"').replace("'[[Old#", "'[[New#")
EXPECTED = EXPECTED.replace('- "[[Old]]"', '- "[[New]]"').replace("Body [[Old]]", "Body [[New]]")
EXPECTED = EXPECTED.replace("(Old.md)", "(New.md)").replace("(Old#", "(New.md#")


def vault(root: Path, files: dict[str, str]) -> Path:
    return write_vault(root, "obsidian", {".obsidian/app.json": "{}\n", **files})


def written(plan: object, rel: str) -> str:
    changes = [c for c in plan.changes if isinstance(c, Write) and c.path == rel]  # type: ignore[attr-defined]
    assert len(changes) == 1, f"{rel} is not written once"
    return changes[0].data.decode()


def test_supersede_relinks_property_links_in_place(tmp_path: Path) -> None:
    files = {"Old.md": "# Intro\n", "New.md": "# Intro\n", "Books.md": "", "Dune.md": DUNE}
    palace = Palace.open(vault(tmp_path, files), cache=False)
    plan = plan_supersede(palace, "Old.md", "New.md", relink=True)
    assert written(plan, "Dune.md") == EXPECTED


def test_merge_relinks_property_links_to_both_sources(tmp_path: Path) -> None:
    text = '---\nup: "[[Old]]"\nside: ["[[Other]]"]\n---\nSee [[Old]] and [[Other]].\n'
    files = {"Old.md": "old\n", "Other.md": "other\n", "Dune.md": text}
    palace = Palace.open(vault(tmp_path, files), cache=False)
    plan = plan_merge(palace, ["Old.md", "Other.md"], "Both", type="project")
    assert written(plan, "Dune.md") == (
        '---\nup: "[[Both]]"\nside: ["[[Both]]"]\n---\nSee [[Both]] and [[Both]].\n'
    )


def test_a_markdown_link_gets_the_new_path_url_encoded(tmp_path: Path) -> None:
    files = {"Old.md": "old\n", "New Name.md": "new\n", "Dune.md": "See [it](Old).\n"}
    palace = Palace.open(vault(tmp_path, files), cache=False)
    out = relinked(palace, palace.by_rel["Old.md"], "New Name.md")["Dune.md"]
    assert out == b"See [it](New%20Name.md).\n"


def test_a_name_the_old_quoting_cannot_hold_is_written_afresh(tmp_path: Path) -> None:
    text = "---\nup: '[[Old]]'  # parent\nrating: 5\n---\nBody.\n"
    files = {"Old.md": "old\n", "Bob's.md": "new\n", "Dune.md": text}
    palace = Palace.open(vault(tmp_path, files), cache=False)
    out = relinked(palace, palace.by_rel["Old.md"], "Bob's.md")["Dune.md"].decode()
    header = out.split("---\n")[1]
    fields = {f.key: f for f in fields_of(header)}
    assert fields["up"].value == "[[Bob's]]"
    assert header[fields["rating"].start : fields["rating"].end] == "rating: 5\n"
    assert out.endswith("---\nBody.\n")


# -- the property: only the links' targets change --------------------------------------------
# words that read as one YAML string wherever they are written (no `:`, `#`, `-` or quotes)
_WORDS = st.text(st.sampled_from("abc xyz_.09"), min_size=1, max_size=12).map(str.strip)
_LINK = st.sampled_from(["[[Old]]", "[[Old|an alias]]", "[[Old#Intro]]", "[[Other]]"])
_ITEM = st.one_of(_WORDS.filter(bool), _LINK.map(lambda link: f"see {link}"), _LINK)


@st.composite
def notes(draw: st.DrawFn) -> str:
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    lines = ["---"]
    for number in range(draw(st.integers(0, 6))):
        style = draw(st.sampled_from(["plain", "double", "single", "flow", "block", "comment"]))
        key = f"k{number}"
        if style == "plain":
            lines.append(f"{key}: {draw(_WORDS.filter(bool))}")
        elif style == "double":
            lines.append(f'{key}: "{draw(_ITEM)}"')
        elif style == "single":
            lines.append(f"{key}: '{draw(_ITEM)}'")
        elif style == "flow":
            items = draw(st.lists(_ITEM, min_size=1, max_size=3))
            lines.append(f"{key}: [" + ", ".join(f'"{i}"' for i in items) + "]")
        elif style == "block":
            lines.append(f"{key}:")
            lines += [f'  - "{i}"' for i in draw(st.lists(_ITEM, min_size=1, max_size=3))]
        else:
            lines.append(f"# {draw(_WORDS)}")
    lines.append("---")
    body = draw(st.lists(st.one_of(_WORDS, _LINK), max_size=8))
    return newline.join([*lines, " ".join(body), ""])


@settings(deadline=None)
@given(text=notes())
def test_relink_changes_only_the_links_targets(tmp_path_factory: object, text: str) -> None:
    root = tmp_path_factory.mktemp("v")  # type: ignore[attr-defined]
    files = {"Old.md": "# Intro\n", "Newer.md": "# Intro\n", "Other.md": "", "Dune.md": text}
    palace = Palace.open(vault(root, files), cache=False)
    assert palace.by_rel["Dune.md"].ok
    out = relinked(palace, palace.by_rel["Old.md"], "Newer.md").get("Dune.md")
    expected = text.replace("[[Old", "[[Newer").encode()
    assert (out if out is not None else text.encode()) == expected


def test_supersede_relinks_the_new_notes_own_properties(tmp_path: Path) -> None:
    files = {"Old.md": "old\n", "New.md": '---\nup: "[[Old]]"\n---\nAfter [[Old]].\n'}
    palace = Palace.open(vault(tmp_path, files), cache=False)
    text = written(plan_supersede(palace, "Old.md", "New.md", relink=True), "New.md")
    assert text.startswith('---\nup: "[[New]]"\n') and text.endswith("---\nAfter [[New]].\n")
    assert "supersedes" in text
