"""A merge of anything hidden is hidden, and a merge that would widen visibility is refused
with the reason: one gate (`schema.is_visible`) decides, whichever way a source is hidden
(`sensitive:` of any value but false, a sensitive scope) and whatever scopes the others hold."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from palacehelpers import MakePalace, RunCli, note_text

from curator.agents.service import Memory
from curator.model.note import parse_note
from curator.model.palace import Palace
from curator.model.schema import is_visible
from curator.writer.actions.common import ActionError
from curator.writer.actions.merge import plan_merge, plan_merge_draft

TOML = (
    '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[scopes.ops-private]\nsensitive = true\n\n'
    "[scopes.secret2]\nsensitive = true\n\n[scopes.open]\n\n[scopes.web]\n\n"
    '[index]\nembedder = "hash"\ndim = 64\n'
)
SECRET = "HIDDEN-okapi-runbook-text"
# how a note or draft may be hidden (header lines), and how it may be visible
HIDDEN = [
    "sensitive: true",
    "sensitive: yes",
    "sensitive: 1",
    "scope: ops-private",
    "scope: secret2",
    "sensitive: true\nscope: web",
]
SHOWN = ["", "scope: open", "scope: web", "sensitive: false"]


def _note(name: str, line: str, body: str) -> str:
    return note_text(name, body=body, extra=f"confidence: 0.9\n{line}\n" if line else "")


settings_ = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@settings_
@given(
    lines=st.lists(st.sampled_from(HIDDEN + SHOWN), min_size=2, max_size=3),
    hidden_at=st.integers(0, 2),
    how=st.sampled_from(HIDDEN),
)
def test_a_merge_of_anything_hidden_is_hidden(
    make_palace: MakePalace, lines: list[str], hidden_at: int, how: str
) -> None:
    lines[hidden_at % len(lines)] = how
    files = {
        f"notes/project/okapi-{i}.md": _note(
            f"Okapi {i}", line, f"{SECRET} {i}\n" if line in HIDDEN else f"okapi open {i}\n"
        )
        for i, line in enumerate(lines)
    }
    root = make_palace(files, toml=TOML, commit=False)
    palace = Palace.open(root)
    plan = plan_merge(palace, list(files), "Okapi merged")
    merged_rel = plan.notes[0]
    data = next(c for c in plan.changes if c.path == merged_rel).data
    merged = parse_note(merged_rel, data)
    assert SECRET in merged.text and not is_visible(merged, palace.config)


def test_merged_hidden_text_is_not_served(make_palace: MakePalace, run_cli: RunCli) -> None:
    files = {
        "notes/project/okapi-0.md": _note("Okapi 0", "scope: ops-private", f"{SECRET} 0\n"),
        "notes/project/okapi-1.md": _note("Okapi 1", "scope: web", "okapi runbook text 1\n"),
    }
    root = make_palace(files, toml=TOML)
    code, _, err = run_cli(
        "--palace", root, "merge", *files, "--into", "Okapi merged", "--yes", "--json"
    )
    assert code == 0, err
    palace = Palace.open(root)
    (merged,) = palace.named("Okapi merged")
    assert merged.scope == "ops-private" and not is_visible(merged, palace.config)
    memory = Memory(root)
    assert SECRET not in str(memory.search("okapi runbook text", limit=50))
    assert SECRET not in memory.pack("okapi runbook text", floor=0.0)


@settings_
@given(draft_line=st.sampled_from(HIDDEN), note_line=st.sampled_from(SHOWN))
def test_a_hidden_draft_is_never_folded_into_a_visible_note(
    make_palace: MakePalace, draft_line: str, note_line: str
) -> None:
    root = make_palace(
        {
            "notes/project/okapi.md": _note("Okapi", note_line, "okapi open\n"),
            "inbox/2026-01-01-okapi.md": _note("Okapi draft", draft_line, f"{SECRET}\n"),
        },
        toml=TOML,
        commit=False,
    )
    with pytest.raises(ActionError, match="hidden from agents"):
        plan_merge_draft(Palace.open(root), "inbox/2026-01-01-okapi.md", "notes/project/okapi.md")


def _fold(run_cli: RunCli, root: Path) -> tuple[int, str, str]:
    """`curator merge DRAFT --into-note NOTE --yes` on the palace's one draft and note."""
    draft, note = "inbox/2026-01-01-okapi.md", "notes/project/okapi.md"
    return run_cli("--palace", root, "merge", draft, "--into-note", note, "--yes")


def test_the_cli_refuses_with_the_reason(make_palace: MakePalace, run_cli: RunCli) -> None:
    root = make_palace(
        {
            "notes/project/okapi.md": _note("Okapi", "", "okapi open\n"),
            "inbox/2026-01-01-okapi.md": _note("Okapi draft", "scope: ops-private", f"{SECRET}\n"),
        },
        toml=TOML,
    )
    before = (root / "notes/project/okapi.md").read_bytes()
    code, out, err = _fold(run_cli, root)
    assert code == 2, out + err
    assert "hidden from agents" in err and "'ops-private' is sensitive" in err
    assert (root / "notes/project/okapi.md").read_bytes() == before


def test_a_hidden_draft_may_fold_into_a_hidden_note(
    make_palace: MakePalace, run_cli: RunCli
) -> None:
    root = make_palace(
        {
            "notes/project/okapi.md": _note("Okapi", "scope: ops-private", "okapi\n"),
            "inbox/2026-01-01-okapi.md": _note("Okapi draft", "scope: ops-private", f"{SECRET}\n"),
        },
        toml=TOML,
    )
    code, _, err = _fold(run_cli, root)
    assert code == 0, err
    assert SECRET in Path(root / "notes/project/okapi.md").read_text()
