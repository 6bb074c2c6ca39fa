"""A Claude Code memory header read as Claude Code reads it (issue 33): an unquoted `: `
inside a one-line value is the text after the first `: `, reported as a warning with the
quoted line that fixes it; a header that is unreadable for any other reason still fails
closed. The memories are written here in Claude Code's documented memory format (name,
description, type; **Why:** and **How to apply:** in a feedback memory)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st
from layouthelpers import adopt_copy
from palacehelpers import RunCli

from curator.model.check import run_checks
from curator.model.layouts.loose import loose_header
from curator.model.palace import Palace
from curator.model.schema import is_visible
from curator.model.yaml import load

SLIPPED = (
    "---\nname: Force pushes\n"
    "description: Standing rule: ask before any force-push\n"
    "type: feedback\n---\n"
    "Ask before force-pushing. See [[user_role]].\n\n"
    "**Why:** a force-push lost a day of work.\n\n**How to apply:** ask first, every time.\n"
)
BROKEN = "---\nname: Broken\ndescription: [never closed\ntype: project\n---\nA body.\n"
ROLE = "---\nname: Role\ndescription: who the user is\ntype: user\n---\nA data engineer.\n"
INDEX = (
    "- [Force pushes](feedback_force.md) — ask first\n"
    "- [Broken](project_broken.md) — unreadable\n"
    "- [Role](user_role.md) — who\n"
)


def memory(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for name, text in {"feedback_force.md": SLIPPED, "project_broken.md": BROKEN,
                       "user_role.md": ROLE, "MEMORY.md": INDEX}.items():  # fmt: skip
        (src / name).write_text(text)
    return adopt_copy(src, tmp_path / "memory", "claude-code")


def test_an_unquoted_colon_is_read_as_claude_code_reads_it_and_reported(tmp_path: Path) -> None:
    palace = Palace.open(memory(tmp_path), cache=False)
    note = next(n for n in palace.notes if n.rel == "feedback_force.md")
    assert note.ok and note.header["description"] == "Standing rule: ask before any force-push"
    assert note.header["type"] == "feedback" and is_visible(note, palace.config)
    assert note.line_of("type") == 4
    findings = [f for f in run_checks(palace) if f.path == "feedback_force.md"]
    assert [(f.line, f.severity, f.code) for f in findings] == [(3, "warning", "header.loose")]
    assert "description: 'Standing rule: ask before any force-push'" in findings[0].message
    assert [str(t) for t in palace.outgoing(note)]  # its links are read
    broken = next(n for n in palace.notes if n.rel == "project_broken.md")
    assert not is_visible(broken, palace.config)  # still unreadable: still hidden, an error
    errors = [f for f in run_checks(palace) if f.severity == "error"]
    assert [(f.path, f.code) for f in errors] == [("project_broken.md", "header.yaml")]


def test_check_passes_on_the_slip_alone(tmp_path: Path, run_cli: RunCli) -> None:
    root = memory(tmp_path)
    (root / "project_broken.md").write_text(BROKEN.replace("[never closed", "fixed"))
    code, out, err = run_cli("--palace", root, "check")
    assert code == 0, out + err
    assert "header.loose" in out + err


@settings(max_examples=80, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab :-#'\"[]{}|>\n\t"), max_size=60))
@example("a: >\n :")  # a folded value with no line break after it keeps none
@example("a: |\n  x\nb: >\n  y")
def test_a_loose_read_never_raises_and_agrees_with_yaml_where_yaml_reads(text: str) -> None:
    read = loose_header(text)
    try:
        strict = load(text)
    except Exception:
        return
    if read is not None and isinstance(strict, dict) and not read.slips:
        assert read.fields == strict
