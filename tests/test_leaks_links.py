"""A note is a regular file inside notes/ (a draft inside inbox/): a committed symbolic link
that leads out of its folder (into .curator/rejected/, .git, inbox/, another folder of the
palace) is not a note: not served to agents, not indexed, and `check` reports it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from palacehelpers import DEFAULT_TOML, MakePalace, RunCli, git, note_text

from curator.agents.service import AgentRefusal, Memory
from curator.model.palace import Palace

SECRET = "REJECTED-SECRET-zebracorn"
TOML = DEFAULT_TOML + '\n[index]\nembedder = "hash"\ndim = 64\n'

# where a link may lead that is inside the palace but outside the link's own folder
TARGETS = [
    ".curator/rejected/bad.md",
    ".git/bad.md",
    "inbox/bad.md",
    "elsewhere/bad.md",
    "notes-old/bad.md",
]


def _link(root: Path, link_rel: str, target_rel: str, relative: bool) -> None:
    target = root / target_rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(note_text("Zebracorn leak", body=f"{SECRET}\n", extra="confidence: 0.9\n"))
    link = root / link_rel
    link.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(os.path.relpath(target, link.parent) if relative else target, link)


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    target=st.sampled_from(TARGETS),
    sub=st.sampled_from(["", "project/", "a/b/"]),
    relative=st.booleans(),
    folder=st.sampled_from(["notes", "inbox"]),
)
def test_a_link_leaving_its_folder_is_not_read(
    make_palace: MakePalace, target: str, sub: str, relative: bool, folder: str
) -> None:
    if target.startswith(folder + "/"):
        target = "notes/elsewhere-bad.md" if folder == "inbox" else target
    root = make_palace({"notes/project/ok.md": note_text("Ok")}, commit=False)
    link_rel = f"{folder}/{sub}x.md"
    _link(root, link_rel, target, relative)
    palace = Palace.open(root)
    assert link_rel not in palace.by_rel
    assert all(SECRET not in n.text for n in palace.all() if n.rel != target)
    finding = next(f for f in palace.problems if f.path == link_rel)
    assert finding.severity == "error" and finding.code.startswith("file.symlink")


def test_rejected_draft_linked_into_notes_is_not_served(
    make_palace: MakePalace, run_cli: RunCli
) -> None:
    root = make_palace({"notes/project/ok.md": note_text("Ok", body="zebracorn fine\n")}, toml=TOML)
    _link(root, "notes/project/x.md", ".curator/rejected/2026-01-01-bad.md", True)
    git(root, "add", "-f", "notes/project/x.md")
    git(root, "commit", "-q", "--no-verify", "-m", "a link")

    memory = Memory(root)
    with pytest.raises(AgentRefusal):
        memory.read_note("notes/project/x.md")
    found = memory.search("zebracorn leak")["results"]
    assert all(r["path"] != "notes/project/x.md" for r in found)
    assert SECRET not in str(found)
    _, out, _ = run_cli("--palace", root, "search", "--json", "zebracorn leak")
    assert "notes/project/x.md" not in out and SECRET not in out
    code, out, _ = run_cli("--palace", root, "check")
    assert code == 1 and "notes/project/x.md: error:" in out and SECRET not in out


def test_a_link_that_stays_in_its_folder_is_still_read(make_palace: MakePalace) -> None:
    root = make_palace({"notes/project/a.md": note_text("A")}, commit=False)
    os.symlink("a.md", root / "notes" / "project" / "alias.md")
    palace = Palace.open(root)
    assert "notes/project/alias.md" in palace.by_rel and palace.problems == []
