"""Promoting into another tool's layout writes what that tool reads (issue 33): basic-memory
permalinks the project's way; a MEMORY.md entry Claude Code will load. The folders are
written here from the tools' documented formats."""

from __future__ import annotations

import json
from pathlib import Path

import frontmatter
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from layouthelpers import adopt_copy

from curator.model.layouts.basic_memory import project_prefix
from curator.model.palace import Palace
from curator.writer.actions.promote import plan_promote
from curator.writer.capture import capture
from curator.writer.session import commit


def bm_note(title: str, permalink: str | None) -> str:
    link = f"permalink: {permalink}\n" if permalink else ""
    return f"---\ntitle: {title}\ntype: note\n{link}---\n\n# {title}\n\n- [fact] {title} #x\n"


def promote_into(root: Path, name: str = "Check earnings date first") -> str:
    draft = capture(root, type="project", name=name, body="Always.\n", description="a rule")
    palace = Palace.open(root, cache=False)
    plan = plan_promote(palace, draft.path, confidence=0.8)
    commit(root, plan, palace=palace)
    return next(iter(plan.notes))


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [("research/", "research/check-earnings-date-first"), ("", "check-earnings-date-first")],
)
def test_basic_memory_permalinks_follow_the_projects_notes(
    tmp_path: Path, prefix: str, expected: str
) -> None:
    """basic-memory writes `<project>/<path>` when permalinks include the project name (its
    default) and `<path>` when they do not: the project's own notes say which."""
    src = tmp_path / "src"
    (src / "beans").mkdir(parents=True)
    (src / ".basic-memory").mkdir()
    (src / "Coffee Brewing.md").write_text(bm_note("Coffee Brewing", f"{prefix}coffee-brewing"))
    (src / "beans/Origins.md").write_text(bm_note("Origins", f"{prefix}beans/origins"))
    (src / "Grinders.md").write_text(bm_note("Grinders", None))  # generated: counts as none
    if prefix:
        (src / "Kettles.md").write_text(bm_note("Kettles", f"{prefix}kettles"))
    root = adopt_copy(src, tmp_path / "project", "basic-memory")
    rel = promote_into(root)
    assert frontmatter.load(root / rel)["permalink"] == expected


@pytest.mark.parametrize(
    ("include", "expected"),
    [(None, "coffee-research/check-earnings-date-first"), (False, "check-earnings-date-first")],
)
def test_basic_memory_permalinks_follow_its_config_when_no_note_has_one(
    tmp_path: Path, include: bool | None, expected: str
) -> None:
    """Notes with no permalink of their own say nothing (basic-memory gives them one by its
    config): its config.json names the project and says whether permalinks include it (by
    default they do)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / ".basic-memory").mkdir()
    (src / "Coffee Brewing.md").write_text(bm_note("Coffee Brewing", None))
    (src / "Grinders.md").write_text(bm_note("Grinders", None))
    root = adopt_copy(src, tmp_path / "project", "basic-memory")
    config: dict[str, object] = {"projects": {"main": str(tmp_path / "elsewhere"),
                                              "Coffee Research": str(root)}}  # fmt: skip
    if include is not None:
        config["permalinks_include_project"] = include
    (Path.home() / ".basic-memory").mkdir(exist_ok=True)
    (Path.home() / ".basic-memory" / "config.json").write_text(json.dumps(config))
    rel = promote_into(root)
    assert frontmatter.load(root / rel)["permalink"] == expected


def test_a_promote_into_a_memory_md_past_its_cap_lands_where_claude_code_loads_it(
    tmp_path: Path,
) -> None:
    """Claude Code loads the first 200 lines of MEMORY.md (its documented cap): an entry
    appended at line 257 is never loaded. The entry goes above the cap, and the plan (and
    its commit) say so, by the same rule `check` warns with."""
    src = tmp_path / "src"
    src.mkdir()
    lines = ["# Memory index", ""]
    for i in range(254):
        (src / f"project_fact_{i}.md").write_text(
            f"---\nname: Fact {i}\ndescription: fact number {i}\ntype: project\n---\nFact {i}.\n"
        )
        lines.append(f"- [Fact {i}](project_fact_{i}.md) — fact number {i}")
    (src / "MEMORY.md").write_text("\n".join(lines) + "\n")
    root = adopt_copy(src, tmp_path / "memory", "claude-code")
    draft = capture(root, type="project", name="Earnings", body="Check.\n", description="first")
    palace = Palace.open(root, cache=False)
    plan = plan_promote(palace, draft.path, confidence=0.8)
    assert "Curator-Index-Cap: MEMORY.md is 257 lines, past the 200 Claude Code loads" in (
        plan.message
    )
    commit(root, plan, palace=palace)
    after = (root / "MEMORY.md").read_text().splitlines()
    at = next(n for n, line in enumerate(after, 1) if "Earnings" in line)
    assert at <= 200
    assert sorted(after) == sorted([*lines, after[at - 1]])  # every other line kept


@pytest.mark.parametrize("layout", ["claude-code", "obsidian"])
def test_promoting_a_feedback_rule_asks_for_why_and_how_by_checks_own_rule(
    tmp_path: Path, layout: str
) -> None:
    """The rule check warns with (Claude Code's memory format asks a feedback memory for
    **Why:** and **How to apply:**) is the rule promote asks by: the plan names what is
    missing, so the warning check gives afterwards is never a surprise."""
    src = tmp_path / "src"
    src.mkdir()
    if layout == "claude-code":
        (src / "MEMORY.md").write_text("# Memory\n")
    else:
        (src / ".obsidian").mkdir()
        (src / "Home.md").write_text("# Home\n")
    root = adopt_copy(src, tmp_path / "m", layout)
    bare = capture(root, type="feedback", name="Ask first", body="Ask.\n", description="ask")
    whole = capture(
        root, type="feedback", name="Test first", description="tests",
        body="Test.\n\n**Why:** it broke.\n\n**How to apply:** run them.\n",
    )  # fmt: skip
    palace = Palace.open(root, cache=False)
    asks = plan_promote(palace, bare.path, confidence=0.8).message
    assert asks.count("Curator-Asks: feedback note has no") == 2
    assert "Curator-Asks" not in plan_promote(palace, whole.path, confidence=0.8).message


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(alphabet="ab/ .-", min_size=1, max_size=12).map(lambda s: s + ".md"),
            st.text(alphabet="ab/-", max_size=16),
        ),
        max_size=6,
    )
)
def test_the_project_prefix_is_one_the_notes_carry_or_none(notes: list[tuple[str, str]]) -> None:
    prefix = project_prefix(notes)
    assert prefix == "" or any(p.strip("/").startswith(prefix + "/") for _, p in notes)


def test_a_plan_made_between_another_promotes_files_and_its_commit_keeps_both_in_memory_md(
    tmp_path: Path,
) -> None:
    """A promote planned while another writer had installed its files (MEMORY.md with its
    entry) but not yet committed them: once that one commits, this one's MEMORY.md must name
    both new memories, and the user's own lines stay as they were."""
    from palacehelpers import git, installed

    src = tmp_path / "src"
    src.mkdir()
    (src / "project_deploy.md").write_text(
        "---\nname: Deploy\ndescription: how we deploy\ntype: project\n---\nFridays.\n"
    )
    (src / "MEMORY.md").write_text(
        "# Memory index\n\nMy own note, not an entry.\n\n"
        "- [Deploy](project_deploy.md) — how we deploy\n"
    )
    root = adopt_copy(src, tmp_path / "memory", "claude-code")
    first = capture(root, type="project", name="Earnings", body="Check.\n", description="first")
    second = capture(root, type="project", name="Rollback", body="Revert.\n", description="next")
    other = plan_promote(Palace.open(root, cache=False), first.path, confidence=0.8)
    written = installed(root, other.effects(root))  # the other writer's files
    plan = plan_promote(Palace.open(root, cache=False), second.path, confidence=0.8)
    tracked = [rel for rel in written if not rel.startswith((".curator/", "inbox/"))]
    git(root, "add", "--", *tracked)  # the draft it removed is in the ignored inbox
    git(root, "commit", "-q", "-m", other.message)  # ...and now committed
    commit(root, plan)
    memory = (root / "MEMORY.md").read_text()
    assert "[Earnings]" in memory and "[Rollback]" in memory, memory
    assert memory.startswith("# Memory index\n\nMy own note, not an entry.\n\n- [Deploy]")
    assert git(root, "status", "--porcelain").stdout == ""
