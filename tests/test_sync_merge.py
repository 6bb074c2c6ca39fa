"""A sync conflict merged by hand (`curator.writer.syncmerge`): the text a merge starts from is
git's three-way merge with markers naming both sides, and a merged text with a marker left or a
header that does not parse is refused, by `curator sync --merged` as by the app (issue 22)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from palacehelpers import RunCli, note_text
from synchelpers import edited_on_both, head, make_team, promote_new

from curator.writer.sync import SyncConflictError, sync
from curator.writer.syncmerge import merge_problems, merge_start


def _conflict(clone: Path):  # the one conflict a sync of `clone` stops on
    try:
        sync(clone)
    except SyncConflictError as exc:
        (conflict,) = exc.plan.conflicts
        return conflict
    raise AssertionError("the sync went through")


def test_merge_starts_from_both_sides_between_markers(tmp_path: Path) -> None:
    _remote, (a, b) = make_team(tmp_path, clones=2)
    rel = edited_on_both(a, b)
    conflict = _conflict(b)
    assert conflict.path == rel and conflict.kind == "edited-both"
    start = merge_start(b, conflict)
    assert b"<<<<<<< this clone\nBeta's text.\n=======\nAlpha's text.\n>>>>>>> the remote\n" in (
        start
    )
    header = start[: start.index(b"<<<<<<<")]
    assert header.startswith(b"---\n") and b"name: Shared fact" in header  # agreed on: once
    assert any("conflict marker" in p for p in merge_problems(rel, start))
    assert merge_problems(rel, header + b"Both texts.\n") == []


def test_a_name_taken_on_both_sides_merges_from_no_common_text(tmp_path: Path) -> None:
    _remote, (a, b) = make_team(tmp_path, clones=2)
    promote_new(a, "Same name", body="Alpha wrote this.\n")
    sync(a)
    promote_new(b, "Same name", body="Beta wrote this.\n")
    conflict = _conflict(b)
    assert conflict.kind == "name-taken" and conflict.base is None
    start = merge_start(b, conflict)
    assert b"Alpha wrote this." in start and b"Beta wrote this." in start
    assert start.count(b"<<<<<<< this clone") == 1


def test_cli_merged_file_with_a_marker_left_is_refused(tmp_path: Path, run_cli: RunCli) -> None:
    _remote, (a, b) = make_team(tmp_path, clones=2)
    rel = edited_on_both(a, b)
    before = head(b)
    left = tmp_path / "half-merged.md"
    left.write_bytes(merge_start(b, _conflict(b)))
    code, _, stderr = run_cli("--palace", b, "sync", "--yes", "--merged", f"{rel}={left}")
    assert code == 2 and f"--merged {rel}={left}" in stderr and "conflict marker" in stderr
    assert head(b) == before
    broken = tmp_path / "no-header.md"
    broken.write_text("Just a body, the header was deleted.\n")
    code, _, stderr = run_cli("--palace", b, "sync", "--yes", "--merged", f"{rel}={broken}")
    assert code == 2 and "no-header.md" in stderr and head(b) == before


LINES = st.lists(
    st.one_of(
        st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=20),
        st.sampled_from(["<<<<<<< this clone", ">>>>>>> the remote", "=======", "<<<<<<<"]),
    ),
    max_size=12,
)


@settings(deadline=None)
@given(LINES)
def test_a_marker_is_found_exactly_when_a_line_is_one(lines: list[str]) -> None:
    body = "\n".join(lines) + "\n"
    data = note_text("Merged", body=body).encode("utf-8")
    problems = merge_problems("notes/project/merged.md", data)
    alone = ("<<<<<<<", ">>>>>>>", "<<<<<<<\r", ">>>>>>>\r")
    marked = any(
        line.startswith(("<<<<<<< ", ">>>>>>> ")) or line in alone for line in body.split("\n")
    )
    assert any("conflict marker" in p for p in problems) == marked
