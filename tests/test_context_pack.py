"""`curator pack GOAL --into FILE`: the managed section of a context file, every other byte
kept, hand edits refused without --force, the line cap kept by cutting the pack, and the
`curator check` rule for always-loaded files over their cap."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from curator.agents.context import BEGIN, context_findings, split_pack, write_pack
from curator.agents.service import AgentRefusal


def entry(i: int, lines: int = 3) -> str:
    body = "\n".join(f"line {j} of note {i}" for j in range(lines))
    return f"## Note {i}\n> hint, not truth — source: notes/project/n{i}.md\n\n{body}\n"


def a_pack(n: int, lines: int = 3) -> str:
    head = "# Memory pack: the goal\n\n_n notes from memory. Each is a hint, not truth._\n\n"
    return head + "\n".join(entry(i, lines) for i in range(n))


def test_split_pack_keeps_order_and_bytes() -> None:
    text = a_pack(3)
    preamble, entries = split_pack(text)
    assert preamble.startswith("# Memory pack") and len(entries) == 3
    assert entries[0].startswith("## Note 0") and "## Note 2" in entries[2]
    assert split_pack("# Memory pack: x\n\n_0 notes_\n") == ("# Memory pack: x\n\n_0 notes_\n", [])


def test_appends_then_replaces_only_the_section(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    before = "# Project\r\n\r\nRun `make test`.\r\n"
    path.write_bytes(before.encode())
    first = write_pack(path, a_pack(2), cap=200)
    assert first.kept == 2 and first.cut == 0 and not first.created
    text = path.read_bytes().decode()
    assert text.startswith(before) and BEGIN in text and "\r\n" in text.split(BEGIN)[1]
    assert "\n" not in text.replace("\r\n", "")  # the file's own line ends throughout
    path.write_bytes(text.encode() + b"## My own notes\r\nkeep me\r\n")
    write_pack(path, a_pack(1), cap=200)
    again = path.read_bytes().decode()
    assert again.startswith(before) and again.endswith("## My own notes\r\nkeep me\r\n")
    assert "Note 0" in again and "Note 1" not in again


def test_hand_edit_inside_is_refused_without_force(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    write_pack(path, a_pack(2), cap=200)
    edited = path.read_text().replace("line 1 of note 0", "line 1 edited by hand")
    path.write_text(edited)
    with pytest.raises(AgentRefusal, match="edited by hand"):
        write_pack(path, a_pack(1), cap=200)
    assert path.read_text() == edited
    write_pack(path, a_pack(1), cap=200, force=True)
    assert "edited by hand" not in path.read_text()


def test_damaged_markers_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    write_pack(path, a_pack(1), cap=200)
    text = path.read_text()
    path.write_text(text + BEGIN + "\n")
    with pytest.raises(AgentRefusal, match="damaged"):
        write_pack(path, a_pack(1), cap=200, force=True)


def test_cap_cuts_the_lowest_scored_entries_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_text("".join(f"own line {i}\n" for i in range(20)))
    result = write_pack(path, a_pack(10, lines=5), cap=60)
    text = path.read_text()
    assert result.lines <= 60 and len(text.splitlines()) <= 60
    assert result.cut > 0 and result.kept + result.cut == 10
    assert "Note 0" in text and f"Note {9}" not in text  # best first: the tail goes
    assert f"{result.cut} lower-scored notes cut" in text
    with pytest.raises(AgentRefusal, match="over its cap"):
        write_pack(path, a_pack(3), cap=20)


def test_unchanged_pack_leaves_the_file_alone(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    write_pack(path, a_pack(2), cap=200)
    stamp = path.stat().st_mtime_ns
    write_pack(path, a_pack(2), cap=200)
    assert path.stat().st_mtime_ns == stamp


_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=300
)


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(head=_text, tail=_text, n=st.integers(0, 4), m=st.integers(0, 4))
def test_every_byte_outside_the_section_is_kept(
    tmp_path: Path, head: str, tail: str, n: int, m: int
) -> None:
    if "curator:pack" in head + tail:
        return
    path = tmp_path / "CLAUDE.md"
    path.write_bytes(head.encode())
    write_pack(path, a_pack(n), cap=10_000)
    first = path.read_bytes().decode()
    assert first.startswith(head)
    path.write_bytes((first + tail).encode())
    write_pack(path, a_pack(m), cap=10_000)
    second = path.read_bytes().decode()
    assert second.startswith(head) and second.endswith(tail)
    assert second.count(BEGIN) == 1


def test_check_rule_for_always_loaded_files(tmp_path: Path) -> None:
    (tmp_path / "palace.toml").write_text(
        '[agents]\nmax_lines = 20\nalways_loaded = ["CLAUDE.md", "AGENTS.md"]\n'
    )
    (tmp_path / "CLAUDE.md").write_text("x\n" * 21)
    (tmp_path / "AGENTS.md").write_text("x\n" * 20)
    findings = context_findings(tmp_path)
    assert [(f.path, f.severity, f.code) for f in findings] == [
        ("CLAUDE.md", "warning", "context.too-long")
    ]
    assert "21 lines" in findings[0].message
    (tmp_path / "palace.toml").write_text("[agents]\nmax_lines = -1\n")
    assert context_findings(tmp_path)[0].code == "agents.config"


def test_pack_into_cli(make_palace: Any, run_cli: Any, tmp_path: Path) -> None:
    from agenthelpers import HASH_TOML
    from palacehelpers import note_text

    notes = {
        f"notes/project/n{i}.md": note_text(
            f"Billing worker fact {i}",
            body="The billing worker retries jobs.\n" * 6,
            extra="confidence: 0.9\n",
        )
        for i in range(12)
    }
    root = make_palace(notes, toml=HASH_TOML + "\n[agents]\nmax_lines = 40\n")
    target = tmp_path / "CLAUDE.md"
    target.write_text("# Mine\n")
    code, out, err = run_cli("--palace", root, "pack", "billing worker retries", "--into", target)
    assert code == 0, err
    text = target.read_text()
    assert text.startswith("# Mine\n") and BEGIN in text and len(text.splitlines()) <= 40
    assert "Wrote" in out and "cut the" in err and "cap of 40 lines" in err
    code, _, err = run_cli(
        "--palace", root, "pack", "billing", "--into", target, "--include-sensitive"
    )
    assert code == 2 and "sensitive" in err
    target.write_text(text.replace("The billing worker retries jobs.", "hand edit", 1))
    code, _, err = run_cli("--palace", root, "pack", "billing worker retries", "--into", target)
    assert code == 2 and "edited by hand" in err
    code, _, _ = run_cli(
        "--palace", root, "pack", "billing worker retries", "--into", target, "--force"
    )
    assert code == 0 and "hand edit" not in target.read_text()


def test_curator_check_warns_about_a_long_claude_md(make_palace: Any, run_cli: Any) -> None:
    root = make_palace({"CLAUDE.md": "line\n" * 201})
    _, out, err = run_cli("--palace", root, "check")
    line = next(ln for ln in (out + err).splitlines() if "context.too-long" in ln)
    assert line.startswith("CLAUDE.md") and "warning" in line and "201 lines" in line
