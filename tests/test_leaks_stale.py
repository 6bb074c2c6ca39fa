"""One rule for "may this note be served as a current hint" (`schema.not_current`), failing
closed: a `stale:` value of any kind but absent, null or exactly false (`true`, `1`, `yes`, a
list, an empty text...) and an `expires` that has passed or cannot be read keep a note out of
the pack and the prompt hook, mark it in ask and search, and put it in `list --stale`."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from agenthelpers import hook_context
from hypothesis import given, settings
from hypothesis import strategies as st
from palacehelpers import MakePalace, RunCli, note_text

from curator.agents.service import Memory
from curator.model.note import parse_note
from curator.model.schema import not_current

TOML = '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[index]\nembedder = "hash"\ndim = 64\n'
TODAY = date(2026, 12, 5)
HOOK = "UserPromptSubmit"

# header lines that say "stale" in a way curator must not read as "current"
STALE_LINES = [
    "stale: true",
    "stale: 1",
    "stale: yes",
    "stale: [a]",
    "stale: ''",
    "stale: 0",
    "stale: {}",
    "stale: the queue moved",
    "stale: {reason: moved, since: 2026-11-20}",
    "expires: 2020-01-31",
    "expires: 2026-12-04",
    "expires: someday",
    "expires: [2030-01-01]",
]
CURRENT_LINES = ["", "stale: false", "stale: null", "expires: 2030-01-01", "expires: 2099-12-31"]

scalars = st.one_of(
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.sampled_from(["reason", "since", "x"]), st.text(max_size=5), max_size=2),
)


@settings(deadline=None)
@given(value=scalars)
def test_any_stale_value_but_false_is_not_current(value: object) -> None:
    header = json.dumps({"name": "N", "description": "d", "type": "project", "stale": value})
    note = parse_note("notes/project/n.md", f"---\n{header}\n---\nBody.\n".encode(), "note")
    if not note.ok:  # what cannot be read is not served as current either
        assert not_current(note, TODAY) is not None
    elif value is False:
        assert not_current(note, TODAY) is None and note.stale is None
    else:
        assert not_current(note, TODAY) is not None and note.stale is not None


@pytest.mark.parametrize("line", STALE_LINES + CURRENT_LINES)
def test_the_rule_on_each_line(line: str) -> None:
    note = parse_note("notes/project/n.md", note_text("N", extra=line + "\n").encode(), "note")
    assert (not_current(note, TODAY) is None) == (line in CURRENT_LINES)


def _palace(make_palace: MakePalace) -> tuple[Path, dict[str, str]]:
    files = {}
    paths = {}
    for i, line in enumerate(STALE_LINES + CURRENT_LINES):
        rel = f"notes/project/quokka-{i}.md"
        files[rel] = note_text(
            f"Quokka rule {i}",
            body=f"The quokka billing worker rule number {i} applies to quokka jobs.\n",
            extra=f"confidence: 0.9\n{line}\n" if line else "confidence: 0.9\n",
        )
        paths[rel] = line
    return make_palace(files, toml=TOML), paths


def _pack_entries(pack: str) -> set[str]:
    """The paths a pack serves as hints (not the ones its warning line names)."""
    return {ln.split("source: ")[1].split()[0] for ln in pack.splitlines() if "source: " in ln}


def test_every_path_follows_the_one_rule(make_palace: MakePalace, run_cli: RunCli) -> None:
    root, paths = _palace(make_palace)
    not_current_paths = {rel for rel, line in paths.items() if line in STALE_LINES}
    memory = Memory(root)

    pack = memory.pack("quokka billing worker rule", budget=4000, floor=0.5)
    served = _pack_entries(pack)
    assert served and not served & not_current_paths
    warning = next(ln for ln in pack.splitlines() if "left out" in ln)
    assert all(rel in warning for rel in not_current_paths)

    asked = memory.ask("quokka billing worker rule", limit=50)["sources"]
    assert asked
    for source in asked:
        assert ("hint" in source["marks"]) == (source["path"] not in not_current_paths)

    found = memory.search("quokka billing worker rule", limit=50)["results"]
    assert {r["path"] for r in found if r["stale"]} == not_current_paths & {
        r["path"] for r in found
    }

    code, out, _ = run_cli("--palace", root, "list", "--stale", "--json")
    assert code == 0
    listed = {row["path"] for row in json.loads(out)["notes"]}
    assert listed == not_current_paths


def test_the_prompt_hook_serves_no_expired_or_stale_note(make_palace: MakePalace) -> None:
    root, paths = _palace(make_palace)
    text = hook_context(root, HOOK, prompt="fix the quokka billing worker rule")
    served = _pack_entries(text)
    assert served
    assert not served & {rel for rel, line in paths.items() if line in STALE_LINES}
