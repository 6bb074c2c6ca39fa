"""Links read as CommonMark and Obsidian read them (issue 33): destinations with parentheses,
`<...>`, titles, reference links and images; nothing in code or math; NUL bytes; Obsidian's
tie-break between files of one name; broken links quoted as written; renames."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from layouthelpers import read_folder
from opcount import grows_linearly

from curator.model import links
from curator.model.check import run_checks
from curator.model.links import extract_links, rewrite_links
from curator.model.palace import Palace

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
OBSIDIAN = '[palace]\nlayout = "obsidian"\n\n[index]\nembedder = "hash"\ndim = 64\n'


def vault(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, text in {**files, "palace.toml": OBSIDIAN}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return root


def targets(body: str) -> list[tuple[str, str, str]]:
    return [(link.target, link.heading, link.alias) for link in extract_links(body, any_md=True)]


# -- markdown links as CommonMark reads them ---------------------------------------------------
def test_destinations_with_parentheses_brackets_titles_and_references() -> None:
    body = (
        "[XSS](Cross-Site%20Scripting%20(XSS).md) and [sp](<Notes/My Note.md#Part two>)\n"
        "[t](a%20b.md \"A title\") [u](c.md 'single') ![img](pics/p%C3%A9.png)\n"
        "[full][ref] [Collapsed][] [shortcut] [none][missing] a footnote[^1]\n"
        "\n"
        "[ref]: ../up/Other%20note.md#Sec\n"
        "[collapsed]: <Folder/Some File.md>\n"
        "[SHORTCUT]: short.md\n"
        "[^1]: Smith 2020\n"
    )
    assert targets(body) == [
        ("Cross-Site Scripting (XSS).md", "", "XSS"),
        ("Notes/My Note.md", "Part two", "sp"),
        ("a b.md", "", "t"),
        ("c.md", "", "u"),
        ("pics/pé.png", "", "img"),
        ("../up/Other note.md", "Sec", "full"),
        ("Folder/Some File.md", "", "Collapsed"),
        ("short.md", "", "shortcut"),
    ]


def test_a_note_linked_with_parentheses_has_its_backlinks(tmp_path: Path) -> None:
    """A note shown with 0 of 35 backlinks: each link's destination holds `(XSS)`."""
    files: dict[str, str | bytes] = {"Web/Cross-Site Scripting (XSS).md": "# XSS\n"}
    for i in range(5):
        files[f"Notes/n{i}.md"] = "See [XSS](../Web/Cross-Site%20Scripting%20(XSS).md).\n"
    palace = Palace.open(vault(tmp_path, files), cache=False)
    target = palace.by_rel["Web/Cross-Site Scripting (XSS).md"]
    assert len(palace.backlinks(target)) == 5
    assert not [f for f in run_checks(palace, with_index=False) if f.code.startswith("link.")]


# -- nothing in code or math -------------------------------------------------------------------
CODE_AND_MATH = """Inline math $[(TS)R](u)$ is not a link, nor $$[[x]]$$, nor `[a](b.md)`.

- a list item with a fence in it:
    ```php
    call_user_func_array([$this, 'run']($this,$params));
    [[inside]]
    ```
  ~~~
  [t](tilde.md)
  ~~~

Text.

    [indented](code.md) [[code]]

$$
[m](math.md)
$$
Only [[this one]] counts.
"""


def test_links_in_code_and_math_are_text(tmp_path: Path) -> None:
    assert targets(CODE_AND_MATH) == [("this one", "", "")]
    root = vault(tmp_path, {"a.md": CODE_AND_MATH, "this one.md": "x [[a]]\n"})
    findings = run_checks(Palace.open(root, cache=False), with_index=False)
    assert not [f for f in findings if f.code.startswith("link.")]


# -- NUL bytes ------------------------------------------------------------------------------------
def test_a_note_with_nul_bytes_is_read_and_reported_once(tmp_path: Path) -> None:
    nul = b"Text\x00 with\x00 NULs and [[b]] and [c](b.md).\n"
    root = vault(tmp_path, {"b.md": "Back to [[a]].\n", "a.md": nul})
    palace = Palace.open(root, cache=False)
    findings = [f for f in run_checks(palace, with_index=False) if f.path == "a.md"]
    assert [(f.severity, f.code, f.line) for f in findings] == [("warning", "file.nul", 1)]
    assert "2 NUL byte(s)" in findings[0].message
    assert [link.target for link in palace.by_rel["a.md"].links] == ["b", "b.md"]
    assert len(palace.backlinks(palace.by_rel["b.md"])) == 2


# -- Obsidian's choice between files of one name ------------------------------------------------
def test_exact_path_then_own_folder_then_shortest_path(tmp_path: Path) -> None:
    """The fixture Obsidian 1.13.7 was observed on (`getFirstLinkpathDest`): the exact vault
    path wins, then the linking note's folder, then the shortest path as a string."""
    files: dict[str, str | bytes] = {
        "zzzz/Note.md": "z\n",
        "a/b/Note.md": "ab\n",
        "src-root.md": "[[Note]] [n](Note.md)\n",
        "zzzz/src.md": "[[Note]] [n](Note.md)\n",
        "zzzz/deep/src.md": "[[Note]]\n",
        "a/b/src.md": "[[Note]] [[b/Note]] [up](../../zzzz/Note.md) [[./Note]]\n",
    }
    palace = Palace.open(vault(tmp_path, files), cache=False)

    def reached(rel: str) -> list[str | None]:
        return [palace.resolve(rel, link) for link in palace.by_rel[rel].links]

    assert reached("src-root.md") == ["a/b/Note.md"] * 2  # 11 characters against 12
    assert reached("zzzz/src.md") == ["zzzz/Note.md"] * 2  # its own folder, over a shorter one
    assert reached("zzzz/deep/src.md") == ["a/b/Note.md"]  # a parent folder counts for nothing
    assert reached("a/b/src.md") == ["a/b/Note.md", "a/b/Note.md", "zzzz/Note.md", "a/b/Note.md"]
    (tmp_path / "Note.md").write_text("root\n")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "Note.md").write_text("b\n")
    palace = Palace.open(tmp_path, cache=False)
    assert reached("zzzz/src.md") == ["Note.md"] * 2  # the exact vault path first
    assert reached("a/b/src.md")[:2] == ["Note.md", "b/Note.md"]


# -- a broken link as written -------------------------------------------------------------------
def test_a_dangling_markdown_link_is_quoted_as_written(tmp_path: Path) -> None:
    (tmp_path / "user_role.md").write_text(
        "---\nname: Role\ndescription: d\ntype: user\n---\n"
        "See [the plan](project_plan%20v2.md) and [[nowhere]].\n"
    )
    folder = read_folder(tmp_path, "claude-code")
    messages = [r.problem[2] for _, _, r in folder.links("user_role.md") if r.problem]
    assert messages == [
        "[the plan](project_plan%20v2.md) names no memory (Claude Code ignores it)",
        "[[nowhere]] names no memory (Claude Code ignores it)",
    ]


# -- renames --------------------------------------------------------------------------------------
def test_rename_rewrites_only_the_destination() -> None:
    body = (
        'See [XSS *docs*](Web/Cross-Site%20Scripting%20(XSS).md#Intro "t"), [[Cross-Site '
        "Scripting (XSS)|x]],\n[ref][r] and [again][r], "
        "`[code](Web/Cross-Site%20Scripting%20(XSS).md)`\n"
        "\n[r]: <Web/Cross-Site Scripting (XSS).md>\n"
    )
    old, new = "Web/Cross-Site Scripting (XSS).md", "Sec/XSS notes.md"

    def resolve(link: object) -> str:
        return old

    out, count = rewrite_links(body, "index.md", resolve, old, new, any_md=True)
    assert count == 4
    assert out == (
        'See [XSS *docs*](Sec/XSS%20notes.md#Intro "t"), [[XSS notes|x]],\n'
        "[ref][r] and [again][r], "
        "`[code](Web/Cross-Site%20Scripting%20(XSS).md)`\n"
        "\n[r]: <Sec/XSS%20notes.md>\n"
    )


# -- properties of the parser --------------------------------------------------------------------
PIECES = ["[[", "]]", "](", "```", "    ", "- ", "> ", "$$", "\x00", "\r\n", "é"]
TEXT = st.lists(st.sampled_from([*"ab ()[]<>!#|^$`~\\:\"'\n\t*_-.%2/", *PIECES]), max_size=60)
PLAIN = st.lists(st.sampled_from([*"ab ()[]<>!#|^.%/\\:\n", "[[", "]]", "]("]), max_size=40)


@SETTINGS
@given(body=TEXT.map("".join))
def test_any_text_parses_and_every_span_is_in_the_body(body: str) -> None:
    for link, span in links._parse(body):
        assert link.target
        if span is None:
            continue
        written = body[span[0] : span[1]]
        if link.kind == "wiki":
            assert written.startswith("[[") and written.endswith("]]")
            assert link.target in written
        elif "\\" not in written and "&" not in written:  # no escape or entity to undo
            assert unquote(written.strip("<>").partition("#")[0]) == link.target


@SETTINGS
@given(
    inner=PLAIN.map("".join),
    indent=st.sampled_from(["", "  ", "   "]),
    fence=st.sampled_from(["```", "~~~~"]),
)
def test_a_link_inside_a_fence_never_counts(inner: str, indent: str, fence: str) -> None:
    if fence[0] in inner:
        return
    inside = [f"{indent}{line}" for line in inner.split("\n")]
    for container in ("", "- "):
        pad = " " * len(container)
        block = [f"{indent}{fence}", *inside, f"{indent}{fence}"]
        body = "\n".join([f"{container}item", "", *(pad + line for line in block), "after", ""])
        assert extract_links(body, any_md=True) == [], body


@SETTINGS
@given(inner=PLAIN.map("".join))
def test_code_spans_and_math_never_yield_links(inner: str) -> None:
    inner = inner.replace("\n", " ").strip()
    if not inner or "`" in inner or "$" in inner:
        return
    for body in (f"`` {inner} ``\n", f"$$ {inner} $$\n", f"${inner.replace(' ', '')}$\n"):
        if body.startswith("$") and (len(body) < 4 or body[1] in " " or body[-3] in " \\"):
            continue
        assert extract_links(body, any_md=True) == [], body


@SETTINGS
@given(body=PLAIN.map("".join))
def test_the_fast_scan_finds_what_the_parser_finds(body: str) -> None:
    """A body with no code, math, escape, indented line or markdown link syntax is scanned
    for wikilinks by pattern: the same links, lines and spans as a full parse."""
    if any(mark in body for mark in ("](", "]:", "\\[", "`", "$", "~~~", "\n    ", "\t")):
        return
    if body.startswith("    "):
        return
    assert links._scan(body) == links._parse(body)


@SETTINGS
@given(content=PLAIN.map("".join))
def test_a_block_without_inline_link_syntax_is_read_by_pattern(content: str) -> None:
    """A block's text with no code span, math, escape, autolink or markdown link is read for
    wikilinks by pattern: what CommonMark's inline rules would read there."""
    if links._needs(content, links._INLINE_NEEDS_WALK):
        return
    scanned: list[links._Found] = []
    links._wikilinks(scanned, content, 0)
    assert links._walk(content, {}) == scanned


@pytest.mark.parametrize("unit", ["![", "[[a]", "[a]["])
def test_unclosed_brackets_cost_linear_time(unit: str) -> None:
    """Each unclosed `[` would read its block to the end: a block of them costs a bounded
    number of passes (tests/opcount.py), not their square."""

    def parse(n: int) -> object:
        return links.extract_links("`x`\n" + unit * (n // len(unit)) + "\n", any_md=True)

    linear, small, large = grows_linearly(parse, 2000)
    assert linear, f"8x the input took {large} operations against {small}"


PREFIXES = ["", " ", "   ", "    ", "- ", "2) ", "> ", "# ", "- # ", "```", "```py", "~~~",
            "  ```", "===", "---", "-     ", "$$", "[r]: ", "\t"]  # fmt: skip
INLINE = ["[[a]]", "[x](y.md)", "[x](a (b).md)", "[", "](z)", "`", "$x$", "\\[", "<http://a>",
          "a", " ", ")", "]", "#", "[r]", "```", "&amp;"]  # fmt: skip
LINES = st.lists(
    st.tuples(st.sampled_from(PREFIXES), st.lists(st.sampled_from(INLINE), max_size=6)).map(
        lambda line: line[0] + "".join(line[1])
    ),
    max_size=12,
).map("\n".join)


@SETTINGS
@given(body=LINES)
def test_reading_by_blocks_finds_what_the_parser_finds(body: str) -> None:
    """Fences at column 0 skipped and only the runs of lines that hold a `[` read: the same
    links, lines and spans as CommonMark's block rules over the whole body (or the body is
    left to them)."""
    found = links._by_blocks(body)
    assert found is None or found == links._parse(body)


@SETTINGS
@given(body=TEXT.map("".join))
def test_text_stops_only_where_a_rule_left_on_starts(body: str) -> None:
    """The inline text rule skips the marks of the rules turned off: the links are those
    read with markdown-it's own stopping set."""
    from markdown_it.parser_inline import _default_terminator_re

    ours = links._MD.inline.terminator_re
    found = links._parse(body)
    links._MD.inline.terminator_re = _default_terminator_re()
    try:
        assert links._parse(body) == found
    finally:
        links._MD.inline.terminator_re = ours


EMBEDDING = re.compile(r"!?\[\[([^\[\]\r\n]*(?:\](?!\])[^\[\]\r\n]*)*)\]\]")


@SETTINGS
@given(body=st.lists(st.sampled_from(["!", "[", "]", "[[", "]]", "![[", "a", "|", "#", "\n"]),
                     max_size=40).map("".join))  # fmt: skip
def test_the_wikilink_pattern_starting_at_its_brackets_reads_embeds_alike(body: str) -> None:
    """The pattern starts with its `[[` (the engine then skips to each): the same links and
    spans as one that takes an embed's `!` in."""
    expected = []
    for match in EMBEDDING.finditer(body):
        start = match.start() + (body[match.start()] == "!")
        link = links._wiki_link(match.group(1), body.count("\n", 0, start))
        if link is not None:
            expected.append((link, (start, match.end())))
    assert links._scan(body) == expected
    assert links._parse(body) == expected
