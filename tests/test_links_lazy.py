"""A note's links are read on first use, not by the load: `list` reads none, and every path
that needs them (one note's, the link graph through the links cache, a changed palace) gets
exactly the links a read of the note's body gives."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from palacehelpers import MakePalace, RunCli, note_text, opened
from vaultrules import write_vault

from curator.model.cache import links_path, read_links
from curator.model.links import extract_links
from curator.model.palace import Palace

FILES = {
    "notes/a.md": note_text("Alpha", body="See [[beta]] and [b](beta.md) and [x](beta).\n"),
    "notes/beta.md": note_text("Beta", body="Back to [[a]].\n"),
    "notes/bad.md": "---\nname: [unclosed\n---\nSee [[a]].\n",
    "inbox/idea.md": note_text("Idea", body="Like [[beta]].\n"),
}
# enough notes that the link graph reads them through the links cache (`stale_enough`)
FILLERS = {f"notes/f{i}.md": note_text(f"F{i}", body=f"[[a]] {i}\n") for i in range(17)}
FILES |= FILLERS


def _links(palace: Palace) -> dict[str, tuple[object, ...]]:
    return {note.rel: note.links for note in palace.all()}


def test_a_load_reads_no_links_and_list_writes_no_links_cache(
    make_palace: MakePalace, run_cli: RunCli
) -> None:
    root = make_palace(FILES)
    palace = Palace.open(root)
    assert all(note._links is None for note in palace.all())  # nothing read from a body
    code, out, _ = run_cli("--palace", root, "list")
    assert code == 0 and "notes/a.md" in out
    assert not links_path(root).exists()
    run_cli("--palace", root, "check")  # the link graph: every note's links, then cached
    assert links_path(root).is_file()


def test_links_are_the_same_on_every_path(make_palace: MakePalace) -> None:
    root = make_palace(FILES)
    one_by_one = _links(Palace.open(root))
    alpha = Palace.open(root).by_rel["notes/a.md"]
    assert one_by_one["notes/a.md"] == tuple(extract_links(alpha.body, alpha.body_line))
    assert [link.target for link in one_by_one["notes/a.md"]] == ["beta", "beta.md"]
    assert one_by_one["notes/bad.md"] == ()  # a header that did not parse: hidden, no links
    graph = Palace.open(root)
    outgoing = graph.link_graph()[0]
    assert {rel: tuple(link.raw for link in links) for rel, links in outgoing.items()} == (
        one_by_one
    )
    cached = Palace.open(root)
    with opened() as read:
        cached.link_graph()  # from the links cache the first graph wrote
    assert str(links_path(root)) in read  # the cache was read, not only the bodies again
    stored = read_links(root)
    assert all(stored[n.sha, n.link_rule] == one_by_one[n.rel] for n in cached.all() if n.link_rule)
    assert _links(cached) == one_by_one
    assert _links(Palace.open(root, cache=False)) == one_by_one


def test_a_changed_palace_reads_links_as_a_load_does(make_palace: MakePalace) -> None:
    """`replaced` reads a changed note's links by its layout's rule, as a load does: in
    curator's layout a markdown link without `.md` is not a link (it was one after a change)."""
    root = make_palace(FILES)
    text = note_text("Gamma", body="[x](beta) and [y](beta.md) and [[a]]\n")
    after = Palace.open(root).replaced({"notes/gamma.md": text.encode()})
    (root / "notes/gamma.md").write_text(text)
    loaded = Palace.open(root)
    assert after.by_rel["notes/gamma.md"].links == loaded.by_rel["notes/gamma.md"].links
    assert [link.target for link in loaded.by_rel["notes/gamma.md"].links] == ["beta.md", "a"]


def test_the_links_cache_follows_each_file_by_its_content(make_palace: MakePalace) -> None:
    root = make_palace(FILES)
    Palace.open(root).link_graph()
    (root / "notes/beta.md").write_text(note_text("Beta", body="Now [[idea]] and [[a]].\n"))
    palace = Palace.open(root)
    palace.link_graph()
    assert [link.target for link in palace.by_rel["notes/beta.md"].links] == ["idea", "a"]
    links_path(root).write_bytes(b"\x00" * 40)  # damaged: read from the bodies again
    again = Palace.open(root)
    again.link_graph()
    assert _links(again) == _links(palace)


_PIECES = st.sampled_from(
    [
        "[[a]]", "[[b|alias]]", "[[a#Part]]", "![[b]]", "[x](b.md)", "[x](b)", "[y](<a b.md>)",
        "[x](https://e.org)", "`[[c]]`", "\n```\n[[d]]\n```\n", "\n    [[e]]\n", "$[[f]]$",
        "\n[r]: b.md\n", "[r]", "text ", " ", "\n", "\r\n", "\n\n", "- ", "> ", "\t", "[", "]",
    ]
)  # fmt: skip
_HEADERS = st.sampled_from(
    [
        "---\nname: N\ndescription: D.\ntype: project\n---\n",
        '---\nname: N\ndescription: D.\ntype: project\nup: "[[a]]"\n---\n',
        "---\nname: [unclosed\n---\n",  # does not parse
        "---\nname: N\n",  # never closed
        "",  # no front matter
        "+++\ntitle = 'T'\n+++\n",
    ]
)


@settings(max_examples=50, deadline=None)
@given(
    layout=st.sampled_from(["curator", "obsidian", "claude-code"]),
    head=_HEADERS,
    body=st.lists(_PIECES, max_size=14).map("".join),
)
def test_every_path_reads_the_same_links(layout: str, head: str, body: str) -> None:
    """Read one by one, through the link graph, from the links cache, without a cache and
    after a change, a note's links are the same, in every layout."""
    with tempfile.TemporaryDirectory() as tmp:
        _check_paths(Path(tmp), layout, head, body)


def _check_paths(base: Path, layout: str, head: str, body: str) -> None:
    folder = "notes/" if layout == "curator" else ""
    files = {f"{folder}n.md": head + body, f"{folder}a.md": head + "[[n]] " + body}
    files |= {f"{folder}b.md": "---\nname: B\ndescription: B.\ntype: project\n---\nB\n"}
    files |= {f"{folder}f{i}.md": f"[[b]] {i}\n" for i in range(17)}  # read through the cache
    if layout != "curator":  # a draft with a note's bytes reads them as a draft does
        files |= {"inbox/n.md": head + body}
    if layout == "curator":
        root = base / "p"
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, newline="")
        (root / "palace.toml").write_text('[palace]\nname = "p"\ntaxonomy = "palace"\n')
    else:
        root = write_vault(base / "v", layout, files)
    one_by_one = _links(Palace.open(root))
    graph = Palace.open(root)
    graph.link_graph()
    assert _links(graph) == one_by_one
    cached = Palace.open(root)
    cached.link_graph()
    assert _links(cached) == one_by_one
    assert _links(Palace.open(root, cache=False)) == one_by_one
    rel = f"{folder}n.md"
    changed = Palace.open(root).replaced({rel: (head + body).encode()})
    assert changed.by_rel[rel].links == one_by_one[rel]
