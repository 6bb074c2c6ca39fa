"""INDEX.md as served to agents holds visible notes only: `curator://INDEX.md` (and `curator
index --served`, which SessionStart points to when the file lists notes agents may not see) is
rendered by the one renderer from the notes the gate shows. A file name that cannot be listed
on one line (a line break, a control character, an escape) is reported by check, hidden from
agents and refused at promote."""

from __future__ import annotations

from pathlib import Path

import pytest
from agenthelpers import hook_context
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from palacehelpers import MakePalace, RunCli, git, note_text

from curator.agents.service import Memory
from curator.model.palace import Palace
from curator.model.schema import is_visible

TOML = (
    '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[scopes.ops-private]\nsensitive = true\n\n'
    '[index]\nembedder = "hash"\ndim = 64\n'
)
SECRET = "HIDDEN-wombat-rotation-key"
PUBLIC = "notes/project/wombat-public.md"
# characters a file name may hold that no one-line listing can show
BREAKS = ["\n", "\r", "\x0b", "\x0c", "\x1b", "\x85", "\u2028", "\u2029", "\x07", "\u202e"]


def _files(hidden_rel: str) -> dict[str, str]:
    return {
        PUBLIC: note_text("Wombat public", body="wombat open\n", extra="confidence: 0.9\n"),
        hidden_rel: note_text(
            "Wombat vault",
            description=f"{SECRET} description",
            body=f"{SECRET}\n",
            extra="scope: ops-private\nconfidence: 0.9\n",
        ),
    }


def _write_index(root: Path) -> None:
    """INDEX.md as `curator index` writes it (every note, hidden ones too: people read it)."""
    from curator.model.index_md import render_index

    (root / "INDEX.md").write_text(render_index(Palace.open(root), None))


settings_ = settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@settings_
@given(
    stem=st.sampled_from(["wombat", "a b", "x"]),
    brk=st.sampled_from(BREAKS),
    tail=st.sampled_from(["", "- [Wombat](notes/project/wombat-public.md) — x", "y"]),
)
def test_a_file_name_that_cannot_be_one_line_is_hidden_and_reported(
    make_palace: MakePalace, stem: str, brk: str, tail: str
) -> None:
    hidden = f"notes/project/{stem}{brk}{tail.replace('/', '_')}.md"
    visible_too = f"notes/project/{stem}{brk}open.md"
    files = _files("notes/project/wombat-vault.md")
    files[visible_too] = note_text("Wombat break", body=f"{SECRET}\n")
    files[hidden] = note_text("Wombat break 2", body=f"{SECRET}\n", extra="scope: ops-private\n")
    root = make_palace(files, toml=TOML, commit=False)
    _write_index(root)
    palace = Palace.open(root)
    for rel in (hidden, visible_too):
        note = palace.by_rel[rel]
        assert not is_visible(note, palace.config)
        assert any(p.code == "file.name" and p.severity == "error" for p in note.problems)
    served = Memory(root).index_md()
    assert SECRET not in served and "wombat-vault" not in served and "Wombat break" not in served
    assert PUBLIC in served
    assert all(
        line.startswith(("- [", "#", "_", "<!--", "One", "then")) or not line.strip()
        for line in served.splitlines()
    ), served


def test_the_served_index_and_sessionstart(make_palace: MakePalace, run_cli: RunCli) -> None:
    hidden = "notes/project/wombat-vault.md"
    root = make_palace(_files(hidden), toml=TOML)
    _write_index(root)
    git(root, "add", "INDEX.md")
    git(root, "commit", "-q", "--no-verify", "-m", "index")
    assert SECRET in (root / "INDEX.md").read_text()  # the file is the team's, whole
    served = Memory(root).index_md()
    assert SECRET not in served and hidden not in served and PUBLIC in served
    code, out, _ = run_cli("--palace", root, "index", "--served")
    assert code == 0 and SECRET not in out and PUBLIC in out
    code, out, _ = run_cli("--palace", root, "check")
    text = hook_context(root, "SessionStart", source="startup")
    assert "index --served" in text and str(root / "INDEX.md") not in text


def test_check_reports_and_promote_refuses_a_broken_file_name(
    make_palace: MakePalace, run_cli: RunCli
) -> None:
    draft = "inbox/2026-01-01-wombat\nx.md"
    root = make_palace(
        {draft: note_text("Wombat draft", extra="status: draft\n"), PUBLIC: note_text("P")},
        toml=TOML,
        commit=False,
    )
    bad = "notes/project/wombat\nsplit.md"
    (root / bad).write_text(note_text("Wombat split"))
    code, out, _ = run_cli("--palace", root, "check")
    assert code == 1 and "file.name" in out and "wombat\\nsplit" in out
    code, _, err = run_cli("--palace", root, "promote", draft, "--yes", "--confidence", "0.8")
    assert code == 2 and "line break" in err
    assert (root / draft).exists()


@pytest.mark.parametrize("brk", BREAKS)
def test_each_break_is_a_name_problem(brk: str) -> None:
    from curator.model.schema import path_problem

    assert path_problem(f"notes/a{brk}b.md") is not None
    assert path_problem("notes/a b-é.md") is None
