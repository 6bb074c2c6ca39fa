"""Real Claude Code memory folders and basic-memory projects, read as their tools read them
(issue 19), and MEMORY.md edited, never regenerated (issue 23): every line but those of the
note an action adds or removes stays byte for byte."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import frontmatter
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from layouthelpers import FIXTURES, adopt_copy

from curator.model.check import run_checks
from curator.model.finding import Finding
from curator.model.layouts.claude_code import parse_index, references
from curator.model.palace import Palace
from curator.writer.actions.promote import plan_promote
from curator.writer.actions.retire import plan_retire
from curator.writer.actions.supersede import plan_supersede
from curator.writer.capture import capture
from curator.writer.plan import Plan, Write
from curator.writer.session import commit

REAL = FIXTURES / "claude-code" / "real"
PROJECT = FIXTURES / "basic-memory" / "attachments"


def findings(root: Path) -> list[Finding]:
    return run_checks(Palace.open(root, cache=False))


def codes(found: list[Finding]) -> set[tuple[str, str]]:
    return {(f.path, f.code) for f in found}


@pytest.fixture
def real(tmp_path: Path) -> Path:
    return adopt_copy(REAL, tmp_path / "memory", "claude-code")


# -- Claude Code: what MEMORY.md names -----------------------------------------------------
def test_a_memory_with_a_yaml_slip_is_present_and_its_header_is_the_finding(real: Path) -> None:
    found = findings(real)
    assert not [f for f in found if f.code == "memory-index.dangling"]  # slip and arch.png
    slip = [f for f in found if f.path == "feedback_slip.md"]
    # the slip is the header finding; the body is still judged, as Claude Code reads the header
    assert any(f.code.startswith("header") or f.code == "yaml" for f in slip), slip
    assert {f.code for f in slip} <= {"yaml", "feedback.why", "feedback.how"} | {
        f.code for f in slip if f.code.startswith("header")
    }, slip


def test_memories_named_mid_line_or_in_backticks_are_listed(real: Path) -> None:
    found = codes(findings(real))
    assert ("project_detail.md", "memory-index.unlisted") not in found
    assert ("reference_tracker.md", "memory-index.unlisted") not in found
    assert not any(code == "memory-index.unlisted" for _, code in found)


def test_why_and_how_as_headings_or_bold_on_one_line(real: Path) -> None:
    found = codes(findings(real))
    for rel in ("feedback_headings.md", "feedback_oneline.md"):
        assert (rel, "feedback.why") not in found and (rel, "feedback.how") not in found
    (real / "feedback_bare.md").write_text(
        "---\nname: Bare\ndescription: d\ntype: feedback\n---\nA rule, no reasons.\n"
    )
    found = codes(findings(real))
    assert {("feedback_bare.md", "feedback.why"), ("feedback_bare.md", "feedback.how")} <= found


def test_promote_adds_one_line_and_keeps_every_other_byte(real: Path) -> None:
    before = (real / "MEMORY.md").read_bytes()
    draft = capture(real, type="project", name="Deploy day", body="Tuesdays.\n", description="d")
    palace = Palace.open(real, cache=False)
    commit(real, plan_promote(palace, draft.path, confidence=0.8), palace=palace)
    after = (real / "MEMORY.md").read_bytes()
    new = [line for line in after.splitlines(keepends=True) if line not in before]
    assert new == ["- [Deploy day](project_deploy_day.md) — d\r\n".encode()]
    assert after.replace(new[0], b"") == before  # no entry for the mid-line or backtick ones
    assert len(after.splitlines()) == len(before.splitlines()) + 1


def test_retire_removes_only_the_retired_memorys_lines(real: Path) -> None:
    before = (real / "MEMORY.md").read_bytes()
    palace = Palace.open(real, cache=False)
    commit(real, plan_retire(palace, "project_deploys.md", "moved to Wednesdays"))
    after = (real / "MEMORY.md").read_bytes()
    gone = [line for line in before.splitlines(keepends=True) if b"(project_deploys.md)" in line]
    assert len(gone) == 2  # listed twice: both lines were the retired memory's
    assert after == b"".join(line for line in before.splitlines(keepends=True) if line not in gone)


# -- basic-memory: attachments and permalinks ----------------------------------------------
@pytest.fixture
def project(tmp_path: Path) -> Path:
    return adopt_copy(PROJECT, tmp_path / "project", "basic-memory")


def test_an_attachment_resolves_by_file_name_as_basic_memory_does(project: Path) -> None:
    found = [f for f in findings(project) if f.path == "trips/Lisbon Trip.md"]
    assert [f.message for f in found if f.code == "link.forward"] == [
        "'Packing List' does not exist yet (a forward reference basic-memory keeps)"
    ]
    palace = Palace.open(project, cache=False)
    note = palace.by_rel["trips/Lisbon Trip.md"]
    targets = {link.target: palace.resolve(note.rel, link) for link in note.links}
    assert targets["pic.png"] == targets["attachments/pic.png"] == "attachments/pic.png"


def test_duplicate_permalinks_are_reported_and_promote_never_reuses_one(project: Path) -> None:
    dupes = [f for f in findings(project) if f.code == "permalink.duplicate"]
    assert [(f.path, f.line) for f in dupes] == [("Travel Log.md", 4)] or [
        (f.path, f.line) for f in dupes
    ] == [("Old Log.md", 4)]
    draft = capture(project, type="project", name="Travel-Log", body="x\n", description="d")
    palace = Palace.open(project, cache=False)
    plan = plan_promote(palace, draft.path, confidence=0.8)
    commit(project, plan, palace=palace)
    rel = next(iter(plan.notes))
    assert frontmatter.load(project / rel)["permalink"] == "travel-log-1"
    dupes = [f for f in findings(project) if f.code == "permalink.duplicate"]
    assert len(dupes) == 1  # the pair the project came with, nothing new


# -- MEMORY.md edits: a property over generated files (any bytes) --------------------------
MEMORIES = ["user_role.md", "project_deploys.md", "project_detail.md", "feedback_headings.md"]
_text = st.text(st.characters(blacklist_categories=["Cs", "Zl", "Zp", "Cc"]), max_size=30)
_line = st.one_of(
    st.sampled_from([*MEMORIES, "arch.png", "gone.md", "project_deploy_day.md"]).flatmap(
        lambda rel: st.sampled_from(
            [f"- [{rel}]({rel}) — hook", f"* [x]({rel})", f"- see [d]({rel}) too", f"`{rel}`"]
        )
    ),
    _text,
    st.just("<!-- a comment -->"),
    st.just("# Heading"),
    st.just(""),
).map(str.encode) | st.binary(max_size=20).filter(lambda b: b"\n" not in b and b"\r" not in b)
_ending = st.sampled_from([b"\n", b"\r\n", b"\r"])


@st.composite
def memory_md(draw: st.DrawFn) -> bytes:
    lines = draw(st.lists(st.tuples(_line, _ending), max_size=25))
    data = b"".join(line + end for line, end in lines)
    return data[:-1] if draw(st.booleans()) and data.endswith(b"\n") else data


@pytest.fixture(scope="module")
def folder() -> Iterator[tuple[Path, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        root = adopt_copy(REAL, Path(tmp) / "memory", "claude-code")
        draft = capture(root, type="project", name="Deploy day", body="Tue.\n", description="d")
        yield root, draft.path


def _memory_md_change(plan: Plan) -> bytes | None:
    writes = [c for c in plan.changes if isinstance(c, Write) and c.path == "MEMORY.md"]
    return writes[0].data if writes else None


def _entry_for(line: bytes, rels: set[str]) -> bool:
    entries = parse_index(line.decode("utf-8", "replace").rstrip("\r\n"))
    return bool(entries) and entries[0].href in rels


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=memory_md(), action=st.sampled_from(["promote", "retire", "supersede"]))
def test_an_action_keeps_every_line_not_of_the_changed_note(
    folder: tuple[Path, str], data: bytes, action: str
) -> None:
    root, draft = folder
    (root / "MEMORY.md").write_bytes(data)
    palace = Palace.open(root, cache=False)
    if action == "promote":
        plan, added, removed = (
            plan_promote(palace, draft, confidence=0.8),
            "project_deploy_day.md",
            "",
        )
    elif action == "retire":
        plan, added, removed = (
            plan_retire(palace, "project_deploys.md", "moved"),
            "",
            "project_deploys.md",
        )
    else:
        plan = plan_supersede(palace, "project_deploys.md", "project_detail.md")
        added, removed = "", "project_deploys.md"
    after = _memory_md_change(plan)
    old = data.splitlines(keepends=True)
    named = references(data.decode("utf-8", "replace"))
    changes = (added and added not in named) or any(_entry_for(x, {removed}) for x in old)
    if after is None:  # nothing to add (already named) and nothing to remove
        assert not changes
        return
    assert changes
    new = after.splitlines(keepends=True)
    mine = [line for line in new if added and _entry_for(line, {added}) and line not in old]
    assert len(mine) <= 1
    kept_new = [line for line in new if line not in mine]
    kept_old = [line for line in old if not (removed and _entry_for(line, {removed}))]
    # compared as bytes: taking a line out can join a lone CR before it with the LF after it
    # into one CRLF line, the same bytes split differently
    got, was = b"".join(kept_new), b"".join(kept_old)
    assert got == was or (got.startswith(was) and got[len(was) :] in (b"\n", b"\r\n"))
