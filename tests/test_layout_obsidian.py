"""Obsidian's link rules on a vault built from Obsidian's documented formats."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from layouthelpers import FIXTURES, read_folder

from curator.model.layouts import detect
from curator.model.links import RawLink

VAULT = FIXTURES / "obsidian" / "vault"


@pytest.fixture(scope="module")
def vault():  # type: ignore[no-untyped-def]
    return read_folder(VAULT, "obsidian")


def targets(vault, rel: str) -> dict[tuple[str, str], str | None]:  # type: ignore[no-untyped-def]
    return {(t, h): r.target for t, h, r in vault.links(rel)}


def test_detected_as_obsidian_with_the_vault_as_notes_root() -> None:
    found = detect(VAULT)
    assert (found.layout, found.notes) == ("obsidian", ".")


def test_every_link_in_the_vault_resolves_without_findings(vault) -> None:  # type: ignore[no-untyped-def]
    assert vault.problems() == []
    assert ".obsidian/app.json" not in vault.files  # excluded
    assert "attachments/diagram.png" in vault.files and "attachments/diagram.png" not in vault.notes


def test_paths_headings_blocks_aliases_embeds_and_encoded_links(vault) -> None:  # type: ignore[no-untyped-def]
    home = targets(vault, "Home.md")
    assert home[("Projects/Alpha", "")] == "Projects/Alpha.md"  # exact path
    assert home[("alpha", "Goals")] == "Projects/Alpha.md"  # case-insensitive, heading checked
    assert home[("Alpha", "^decision1")] == "Projects/Alpha.md"  # block id checked
    assert home[("Alpha Plan", "")] == "Projects/Alpha Plan.md"  # [[Alpha Plan|AP]]
    assert home[("Projects/Alpha Plan.md", "")] == "Projects/Alpha Plan.md"  # percent-decoded
    assert home[("diagram.png", "")] == "attachments/diagram.png"  # an embed
    assert home[("report.pdf", "")] == "attachments/report.pdf"  # a non-markdown file
    assert home[("Alpha\\", "")] == "Projects/Alpha.md"  # `\|` inside a table
    assert home[("Alpha Plan", "Milestones\\")] == "Projects/Alpha Plan.md"


def test_duplicate_names_same_folder_first_then_shortest_path(vault) -> None:  # type: ignore[no-untyped-def]
    assert targets(vault, "Home.md")[("Meeting", "")] == "Projects/Meeting.md"  # shortest
    archive = targets(vault, "Archive/2024/Index.md")
    assert archive[("Meeting", "")] == "Archive/2024/Meeting.md"  # the linking note's folder


def test_missing_heading_block_and_note_are_reported(vault) -> None:  # type: ignore[no-untyped-def]
    resolve = vault.table.resolve
    heading = resolve("Home.md", RawLink("Alpha", "wiki", 1, "Timeline"))
    assert heading.target == "Projects/Alpha.md" and heading.problem[1] == "link.heading"
    block = resolve("Home.md", RawLink("Alpha", "wiki", 1, "^nope"))
    assert block.problem[1] == "link.block"
    missing = resolve("Home.md", RawLink("Nowhere", "wiki", 1))
    assert missing.target is None and missing.problem[:2] == ("warning", "link.broken")
    png = resolve("Home.md", RawLink("missing.png", "wiki", 1))
    assert png.target is None


def test_names_tags_and_notes_without_front_matter(vault) -> None:  # type: ignore[no-untyped-def]
    daily = vault.notes["Daily/2025-01-01.md"]
    assert daily.ok and daily.header["name"] == "2025-01-01" and "type" not in daily.header
    assert vault.notes["Projects/Alpha.md"].header["name"] == "Project Alpha"  # its title
    assert vault.notes["Projects/Meeting.md"].header["name"] == "Meeting"  # the file name
    assert vault.notes["Home.md"].header["tags"] == ["hub", "index"]
    assert vault.notes["Projects/Alpha.md"].header["tags"] == ["project"]  # one string


def test_the_vault_read_in_place_is_never_written(tmp_path: Path) -> None:
    copy = tmp_path / "vault"
    shutil.copytree(VAULT, copy)
    before = {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    read_folder(copy, "obsidian")
    assert {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()} == before


def test_a_vault_in_a_subfolder_resolves_from_its_own_root(tmp_path: Path) -> None:
    from curator.model.check import run_checks
    from curator.model.palace import Palace

    shutil.copytree(VAULT, tmp_path / "vault")
    (tmp_path / "palace.toml").write_text('[palace]\nlayout = "obsidian"\nnotes = "vault"\n')
    (tmp_path / "README.md").write_text("not a note\n")
    palace = Palace.open(tmp_path, cache=False)
    assert len(palace.notes) == 7 and all(n.rel.startswith("vault/") for n in palace.notes)
    home = palace.by_rel["vault/Home.md"]
    assert palace.resolve(home.rel, home.links[0]) == "vault/Projects/Alpha.md"
    assert [f for f in run_checks(palace) if f.severity == "error"] == []


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    target=st.text(st.characters(blacklist_categories=["Cs"]), max_size=40),
    heading=st.text(st.characters(blacklist_categories=["Cs"]), max_size=20),
    kind=st.sampled_from(["wiki", "md"]),
)
def test_resolving_any_link_text_never_raises(
    vault,  # type: ignore[no-untyped-def]
    target: str,
    heading: str,
    kind: str,
) -> None:
    resolved = vault.table.resolve("Home.md", RawLink(target, kind, 1, heading))  # type: ignore[arg-type]
    assert resolved.target is None or resolved.target in vault.files
    assert (resolved.target is None) == (
        resolved.problem is not None and resolved.problem[1] == "link.broken"
    )
