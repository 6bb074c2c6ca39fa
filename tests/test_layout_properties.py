"""A foreign vault's own properties are its tool's: in Obsidian and basic-memory layouts only
the fields under `curator:` are held to curator's schema (issue 33). The vaults are written
here from the tools' documented property formats: Obsidian's Text, List, Number, Checkbox and
Date properties with its default `tags`, `aliases` and `cssclasses`; basic-memory's `title`,
`type`, `permalink` and `tags`."""

from __future__ import annotations

from pathlib import Path

import pytest
from layouthelpers import adopt_copy

from curator.model.check import run_checks
from curator.model.palace import Palace

TAGS9 = "".join(f"  - topic{i}\n" for i in range(9))
VAULT_NOTE = (
    "---\n"
    f"tags:\n{TAGS9}"
    "aliases:\n  - Rate limits\n"
    "cssclasses:\n  - wide\n"
    "description: |\n  Two lines of the vault's own\n  description property.\n"
    "type: feedback\n"
    "status: someday\n"
    "created: last spring\n"
    "confidence: high\n"
    "rating: 4\n"
    "done: false\n"
    "---\n"
    "# Limits\n\nBody without why or how.\n"
)
# a note curator promoted: its own fields under `curator:`, which curator's schema judges
CURATOR_NOTE = (
    "---\n"
    "description: a rule\n"
    "type: feedback\n"
    "curator:\n  confidence: 7\n  status: maybe\n"
    "---\n"
    "Do it.\n"
)
FOLDERS = {"obsidian": ".obsidian", "basic-memory": ".basic-memory"}


def vault(tmp_path: Path, layout: str) -> Path:
    src = tmp_path / "src"
    (src / FOLDERS[layout]).mkdir(parents=True)
    text = VAULT_NOTE
    if layout == "basic-memory":  # basic-memory's own fields beside the vault's
        text = text.replace("---\n", "---\ntitle: Limits\npermalink: main/limits\n", 1)
    (src / "Limits.md").write_text(text)
    (src / "Rule.md").write_text(CURATOR_NOTE)
    (src / "Home.md").write_text("[[Limits]] [[Rule]]\n")
    (src / "Limits.md").write_text((src / "Limits.md").read_text() + "[[Home]]\n")
    return adopt_copy(src, tmp_path / "vault", layout)


@pytest.mark.parametrize("layout", ["obsidian", "basic-memory"])
def test_the_vaults_own_properties_are_not_judged_by_curators_schema(
    tmp_path: Path, layout: str
) -> None:
    root = vault(tmp_path, layout)
    findings = run_checks(Palace.open(root, cache=False))
    by_file: dict[str, list[str]] = {}
    for f in findings:
        by_file.setdefault(f.path, []).append(f.code)
    # 9 tags, a two-line description, type: feedback with no Why/How, and the vault's own
    # status, created and confidence are the vault's (this was 7 findings)
    assert by_file.get("Limits.md", []) == []
    # what sits under `curator:` is still curator's: the confidence 7 and the status maybe
    rule = sorted(by_file.get("Rule.md", []))
    assert rule == ["feedback.how", "feedback.why", "header.invalid", "header.invalid"]


def test_claude_codes_fields_are_still_curators_own(tmp_path: Path) -> None:
    """Claude Code's name, description and type are curator's fields with the same rules."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "feedback_x.md").write_text(
        "---\nname: X\ndescription: |\n  two\n  lines\ntype: feedback\n---\nDo x.\n"
    )
    (src / "MEMORY.md").write_text("- [X](feedback_x.md) — x\n")
    found = run_checks(Palace.open(adopt_copy(src, tmp_path / "m", "claude-code"), cache=False))
    codes = sorted(f.code for f in found if f.path == "feedback_x.md")
    assert codes == ["feedback.how", "feedback.why", "header.invalid"]
