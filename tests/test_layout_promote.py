"""Promoting into another tool's layout writes what that tool reads (issue 33): basic-memory
permalinks the project's way; a MEMORY.md entry Claude Code will load. The folders are
written here from the tools' documented formats."""

from __future__ import annotations

from pathlib import Path

import frontmatter
import pytest
from layouthelpers import adopt_copy

from curator.model.palace import Palace
from curator.writer.capture import capture
from curator.writer.planners import plan_promote
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
