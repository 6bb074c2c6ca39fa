"""Claude Code's memory folder: MEMORY.md as the index, its load limit, links by name."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from layouthelpers import FIXTURES, read_folder

from curator.model.header import DELETE
from curator.model.layouts import detect, get_layout
from curator.model.layouts.claude_code import (
    MemoryIndexRefused,
    edit_index,
    index_findings,
    parse_index,
    references,
)

MEMORY = FIXTURES / "claude-code" / "memory"
RELS = ["feedback_testing.md", "project_release_freeze.md", "reference_linear.md", "user_role.md"]


def test_the_folder_reads_as_four_typed_memories() -> None:
    assert detect(MEMORY).layout == "claude-code"
    folder = read_folder(MEMORY, "claude-code")
    assert sorted(folder.notes) == RELS  # MEMORY.md is the index, not a memory
    types = {rel: n.header.get("type") for rel, n in folder.notes.items()}
    assert types["feedback_testing.md"] == "feedback"  # nested metadata: {type: ...}
    assert types["user_role.md"] == "user"


def test_links_by_name_and_by_file_name_without_the_type_prefix() -> None:
    folder = read_folder(MEMORY, "claude-code")
    assert [(t, r.target) for t, _, r in folder.links("user_role.md")] == [
        ("testing", "feedback_testing.md")
    ]
    linear = {t: r for t, _, r in folder.links("reference_linear.md")}
    assert linear["release_freeze"].target == "project_release_freeze.md"
    dangling = linear["some-memory-not-written-yet"]
    assert dangling.target is None and dangling.problem[0] == "warning"  # Claude Code: fine
    assert {p[2] for p in folder.problems()} == {"link.dangling"}


def test_memory_md_counts_as_inbound_links_and_lists_everything() -> None:
    data = (MEMORY / "MEMORY.md").read_bytes()
    assert references(data.decode()) == set(RELS)
    assert index_findings(data, RELS) == []


def test_what_claude_code_would_lose_is_reported() -> None:
    entries = "".join(f"- [Memory {i}](m{i}.md) — hook {i}\n" for i in range(230))
    findings = index_findings(entries.encode(), [f"m{i}.md" for i in range(229)] + ["extra.md"])
    codes = [(f[0], f[1]) for f in findings]
    assert ("warning", "memory-index.too-long") in codes
    assert next(f for f in findings if f[1] == "memory-index.too-long")[3].count("30 entries")
    assert ("error", "memory-index.dangling") in codes  # m229.md does not exist
    assert ("warning", "memory-index.unlisted") in codes  # extra.md is not listed
    big = ("- [x](x.md) — " + "y" * 200 + "\n") * 130  # under 200 lines, over 25 KB
    assert [f[1] for f in index_findings(big.encode(), ["x.md"])] == ["memory-index.too-large"]
    assert index_findings(big.encode(), ["x.md"], max_bytes=64 * 1024) == []  # configurable


def test_an_edit_keeps_every_other_line_and_refuses_when_nothing_was_read() -> None:
    existing = "# Memory\n\n- [Old](gone.md) — x\n- [B](b.md) — old hook\nfree text\n".encode()
    data = edit_index(
        existing, [("a.md", "A", "first"), ("b.md", "B", "new")], ["gone.md"], memories=2
    )
    assert data.decode() == "# Memory\n\n- [B](b.md) — old hook\n- [A](a.md) — first\nfree text\n"
    assert [e.href for e in parse_index(data.decode())] == ["b.md", "a.md"]
    with pytest.raises(MemoryIndexRefused):
        edit_index(existing, [], [], memories=0)  # nothing read: never rebuild an index empty


def test_fields_claude_code_has_no_place_for_go_under_curator() -> None:
    layout = get_layout("claude-code")
    header = {"name": "X", "type": "project", "curator": {"reviewed": "2026-01-01"}}
    routed = layout.route(header, {"status": "superseded", "superseded_by": "y", "name": "Y"})
    assert routed == {
        "name": "Y",
        "curator": {"reviewed": "2026-01-01", "status": "superseded", "superseded_by": "y"},
    }
    cleared = layout.route({"curator": {"status": "retired"}}, {"status": DELETE})
    assert cleared == {"curator": DELETE}
    assert get_layout("obsidian").route({}, {"status": "retired"}) == {
        "curator": {"status": "retired"}
    }
    assert get_layout("folder").route({}, {"status": "retired"}) == {"status": "retired"}
    view = layout.view("project_x.md", {"name": "X", "curator": {"status": "retired"}}, ["project"])
    assert view["status"] == "retired" and view["type"] == "project"  # read back, prefix type


@settings(deadline=None)
@given(st.text(st.characters(blacklist_categories=["Cs"]), max_size=400))
def test_index_parsing_never_raises_and_an_edit_names_every_added_memory(text: str) -> None:
    parse_index(text)
    index_findings(text.encode(), ["a.md"])
    data = edit_index(text.encode(), [("a.md", "A [1]", "hook\nsplit")], memories=1)
    assert "a.md" in references(data.decode())


def test_a_superseded_memory_still_listed_is_a_warning_not_a_missing_file() -> None:
    data = b"- [Old](old.md) \xe2\x80\x94 replaced\n- [New](new.md) \xe2\x80\x94 current\n"
    findings = index_findings(data, ["new.md"], retired=["old.md"])
    assert [(f[0], f[1]) for f in findings] == [("warning", "memory-index.superseded")]
