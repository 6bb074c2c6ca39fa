"""Links: wikilinks by slug or name with alias and heading, relative markdown links, code
ignored; backlinks and broken links in a real palace; rewrite_links keeps alias and heading."""

from __future__ import annotations

from palacehelpers import MakePalace, note_text

from curator.model.links import RawLink, extract_links, md_target, rewrite_links
from curator.model.palace import Palace

BODY = """See [[alpha]] and [[Beta Note|the beta]] and [[gamma#Setup|g]] and [[delta#Top]].
Also [doc](../reference/ref.md#part), [web](https://x.com/a.md), [img](pic.png), ![i](x.md).
`[[in-inline]]` and ``[[double]] `` are code.
```
[[in-fence]]
```
~~~
[ref](in-fence.md)
~~~
[[after]]
"""


def test_extract_links_kinds_alias_heading_and_lines() -> None:
    links = extract_links(BODY, body_line=7)
    assert links == [
        RawLink("alpha", "wiki", 7),
        RawLink("Beta Note", "wiki", 7, alias="the beta"),
        RawLink("gamma", "wiki", 7, heading="Setup", alias="g"),
        RawLink("delta", "wiki", 7, heading="Top"),
        RawLink("../reference/ref.md", "md", 8, "part", "doc", "../reference/ref.md#part"),
        RawLink("x.md", "md", 8, alias="i", written="x.md"),  # an image of a note embeds it
        RawLink("after", "wiki", 16),
    ]


def test_code_is_ignored_but_not_the_text_after_it() -> None:
    targets = [link.target for link in extract_links(BODY)]
    for hidden in ("in-inline", "double", "in-fence", "in-fence.md"):
        assert hidden not in targets
    assert "after" in targets


def test_md_target_is_relative_to_the_source() -> None:
    assert md_target("notes/project/a.md", "../reference/b.md") == "notes/reference/b.md"
    assert md_target("notes/project/a.md", "c.md") == "notes/project/c.md"


def palace_with_links(make_palace: MakePalace) -> Palace:
    root = make_palace(
        {
            "notes/project/alpha.md": note_text(
                "Alpha",
                body="Links: [[beta]], [[Gamma Fact|the gamma]], [[beta#Setup]].\n"
                "And [ref](../reference/ref-doc.md#usage).\n"
                "`[[nowhere-in-code]]`\n"
                "Broken: [[no-such-note]] and [x](../reference/missing.md).\n",
            ),
            "notes/project/beta.md": note_text("Beta", body="Back to [[alpha]].\n"),
            "notes/project/gamma.md": note_text("Gamma Fact", body="Nothing.\n"),
            "notes/reference/ref-doc.md": note_text("Ref", type="reference", body="x\n"),
            "inbox/draft.md": note_text("Draft", body="Mentions [[gamma]].\n"),
        }
    )
    return Palace.open(root)


def test_links_resolve_by_slug_name_and_path(make_palace: MakePalace) -> None:
    palace = palace_with_links(make_palace)
    alpha = palace.find("alpha")
    resolved = [(link.raw.target, link.target) for link in palace.outgoing(alpha)]
    assert resolved == [
        ("beta", "notes/project/beta.md"),
        ("Gamma Fact", "notes/project/gamma.md"),
        ("beta", "notes/project/beta.md"),
        ("../reference/ref-doc.md", "notes/reference/ref-doc.md"),
        ("no-such-note", None),
        ("../reference/missing.md", None),
    ]


def test_backlinks_come_from_notes_only(make_palace: MakePalace) -> None:
    palace = palace_with_links(make_palace)
    sources = {
        rel: sorted({link.source for link in palace.backlinks(palace.by_rel[rel])})
        for rel in palace.by_rel
        if rel.startswith("notes/")
    }
    assert sources == {
        "notes/project/alpha.md": ["notes/project/beta.md"],
        "notes/project/beta.md": ["notes/project/alpha.md"],
        # the draft's link does not count: drafts are not part of the palace's graph
        "notes/project/gamma.md": ["notes/project/alpha.md"],
        "notes/reference/ref-doc.md": ["notes/project/alpha.md"],
    }


def test_broken_links_are_check_errors_at_their_line(make_palace: MakePalace) -> None:
    from curator.model.check import run_checks

    palace = palace_with_links(make_palace)
    broken = [
        (f.path, f.line, f.message)
        for f in run_checks(palace, with_index=False)
        if f.code == "link.broken"
    ]
    assert broken == [
        ("notes/project/alpha.md", 9, "broken link to '../reference/missing.md'"),
        ("notes/project/alpha.md", 9, "broken link to 'no-such-note'"),
    ]


def test_rewrite_links_keeps_alias_and_heading(make_palace: MakePalace) -> None:
    palace = palace_with_links(make_palace)
    alpha = palace.find("alpha")
    old = "notes/project/beta.md"
    new = "notes/reference/beta-renamed.md"
    body = alpha.body + "And [beta doc](beta.md#Intro) too.\n"
    out, count = rewrite_links(
        body, alpha.rel, lambda link: palace.resolve(alpha.rel, link), old, new
    )
    assert count == 3
    assert "[[beta-renamed]]" in out
    assert "[[beta-renamed#Setup]]" in out
    assert "[beta doc](../reference/beta-renamed.md#Intro)" in out
    # untouched: links to other notes, code, broken links
    assert "[[Gamma Fact|the gamma]]" in out and "`[[nowhere-in-code]]`" in out
    assert "[[no-such-note]]" in out
    assert out.replace("beta-renamed", "beta").replace("../reference/beta.md", "beta.md") == body


def test_rewrite_wiki_link_with_alias_and_heading() -> None:
    body = "x [[old-slug#Part two|see here]] y [[Old Name]] z\n"

    def resolve(link: RawLink) -> str | None:
        return "notes/a/old-slug.md" if link.target in ("old-slug", "Old Name") else None

    out, count = rewrite_links(
        body, "notes/a/src.md", resolve, "notes/a/old-slug.md", "notes/b/n.md"
    )
    assert (out, count) == ("x [[n#Part two|see here]] y [[n]] z\n", 2)


def test_longer_fence_is_not_closed_by_a_shorter_one() -> None:
    body = (
        "````md\n```\n[[inside-code]]\n```\n````\n[[outside]]\n~~~~\n~~~\n[[tilde-inside]]\n~~~~\n"
    )
    assert [link.target for link in extract_links(body)] == ["outside"]


def test_path_wikilinks_match_whole_folder_names(make_palace: MakePalace) -> None:
    root = make_palace(
        {
            "notes/myproject/a.md": note_text("A", body="[[project/a]] [[myproject/a]]\n"),
            "notes/user/b.md": note_text("B", type="user", body="[[notes/user/b]] [[ser/b]]\n"),
        }
    )
    palace = Palace.open(root)
    targets = [link.target for n in palace.notes for link in palace.outgoing(n)]
    assert targets == [None, "notes/myproject/a.md", "notes/user/b.md", None]


def test_one_notes_links_resolve_without_the_palace_graph(make_palace: MakePalace) -> None:
    """Serving one note (a search hit, an agent's read) resolves its own links only: the
    whole palace's link graph (seconds at 100k notes) is not built for it, and the links
    are the ones the graph gives."""
    palace = palace_with_links(make_palace)
    alone = {n.rel: palace.outgoing(n) for n in palace.all()}
    assert palace.lookups.outgoing is None  # nothing walked every note's links
    assert alone == palace.link_graph()[0]
    assert palace.outgoing(palace.find("alpha")) == alone["notes/project/alpha.md"]
