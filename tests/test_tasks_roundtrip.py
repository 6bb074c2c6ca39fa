"""Task checkpoints read back as saved (issue 23): names are whole-string rules, a section
holds any text, task_show's answer is always whole JSON with the next action and the checks,
and a hand edit of requests.md is a warning, not a refusal."""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from palacehelpers import DEFAULT_TOML, RunCli, git_init_commit

from curator.agents import tasks_tools
from curator.agents.service import MAX_ANSWER_CHARS
from curator.config.schema import DURATION_PATTERN, NAME_PATTERN
from curator.model.schema import _DATE
from curator.tasks import TaskService
from curator.tasks import requests as reqs
from curator.tasks.checkpoint import SECTION_KEYS
from curator.tasks.errors import TaskError
from curator.tasks.settings import _DURATION
from curator.tasks.store import SLUG, check_slug
from curator.writer.capture import _KEY

TASK = "port-parser"


# -- names: the whole string, a final newline included --------------------------------------
@pytest.mark.parametrize(
    ("accepts", "good"),
    [
        (lambda s: SLUG.fullmatch(s), "abc"),
        (lambda s: re.search(NAME_PATTERN, s), "feedback"),  # msgspec's pattern: a search
        (lambda s: re.search(DURATION_PATTERN, s), "30m"),
        (lambda s: _DURATION.fullmatch(s), "30m"),
        (lambda s: _KEY.fullmatch(s), "session"),
        (lambda s: _DATE.fullmatch(s), "2026-12-01"),
    ],
)
def test_every_name_rule_refuses_a_final_newline(accepts: Any, good: str) -> None:
    assert accepts(good)
    assert not accepts(good + "\n") or good == "30m"  # a duration may end in white space
    assert not accepts(good + "\nx")


def test_task_new_refuses_a_name_with_a_final_newline(tmp_path: Path, run_cli: RunCli) -> None:
    with pytest.raises(TaskError, match="bad task name"):
        check_slug("abc\n")
    root = _palace(tmp_path)
    code, _, err = run_cli("--palace", root, "task", "new", "abc\n", "--objective", "x")
    assert code == 2 and "bad task name" in err
    assert not (root / "tasks").exists() or not any((root / "tasks").iterdir())


def _palace(where: Path) -> Path:
    root = where / "palace"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / ".keep").write_text("")
    (root / "palace.toml").write_text(DEFAULT_TOML)
    git_init_commit(root)
    return root


def _tools(root: Path) -> dict[str, Any]:
    return {t.name: t.fn for t in tasks_tools.task_tools(SimpleNamespace(root=root))}


# -- a section reads back as saved ----------------------------------------------------------
_lines = st.one_of(
    st.sampled_from(
        ["# next", "## Sources", "## Risks", "```", "~~~", "---", "## Next action", "# Goal"]
    ),
    st.text(st.characters(blacklist_categories=["Cs"]), max_size=40),
)
SECTION = st.lists(_lines, max_size=8).flatmap(
    lambda parts: st.sampled_from(["\n", "\r\n", "\n\n"]).map(lambda sep: sep.join(parts))
) | st.text(st.characters(blacklist_categories=["Cs"]), max_size=200)


@pytest.fixture(scope="module")
def shared() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        root = _palace(Path(tmp))
        TaskService(root).new(TASK, "Port the parser", "agent-1")
        yield root


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.fixed_dictionaries({key: SECTION for key in SECTION_KEYS}))
def test_what_task_save_saves_task_show_reads_back(shared: Path, sections: dict[str, str]) -> None:
    fn = _tools(shared)
    shown = fn["task_show"](task=TASK, owner="agent-1")
    saved = fn["task_save"](
        task=TASK, revision=shown["header"]["revision"], owner="agent-1", **sections
    )
    back = fn["task_show"](task=TASK, owner="agent-1")
    assert back["header"]["revision"] == saved["revision"]
    assert back["sections"] == sections and "cut" not in back


def test_the_issues_example_reads_back_whole(tmp_path: Path) -> None:
    root = _palace(tmp_path)
    TaskService(root).new(TASK, "Port the parser", "agent-1")
    fn = _tools(root)
    sections = {key: f"{key} text" for key in SECTION_KEYS}
    sections["state"] = "Parsed the lexer.\n# next\nthe grammar, then the tests; 87 characters."
    fn["task_save"](task=TASK, revision=1, owner="agent-1", **sections)
    assert fn["task_show"](task=TASK, owner="agent-1")["sections"] == sections


# -- task_show always fits one answer -------------------------------------------------------
@settings(deadline=None)
@given(
    sizes=st.fixed_dictionaries({k: st.integers(0, 40_000) for k in SECTION_KEYS}),
    requests=st.lists(st.integers(1, 20_000), max_size=60),
    char=st.sampled_from(["x", "é", "\x1b", '"', "✓"]),
)
def test_task_show_is_whole_json_under_the_limit(
    sizes: dict[str, int], requests: list[int], char: str
) -> None:
    answer = {
        "path": "tasks/t/0002.md",
        "header": {"task": "t", "revision": 2, "next_action": "n"},
        "sections": {k: f"{k}:" + char * n for k, n in sizes.items()},
        "requests": [
            {"number": i, "at": "2026-12-01T00:00:00Z", "by": "agent", "words": char * n}
            for i, n in enumerate(requests, 1)
        ],
        "note": "n",
    }
    fitted = tasks_tools._fit(json.loads(json.dumps(answer)), "tasks/t/0002.md", "r.md")
    text = json.dumps(fitted, ensure_ascii=False, indent=1)
    assert len(text) <= MAX_ANSWER_CHARS
    back = json.loads(text)
    for key in ("next_action", "checks"):
        assert back["sections"][key].startswith(f"{key}:")  # there, at least its start
    for key, n in sizes.items():
        whole = back["sections"][key] == f"{key}:" + char * n
        assert whole or (key in back["cut"] and back["sections"][key].endswith("[…cut]"))


# -- requests.md edited by hand -------------------------------------------------------------
def test_a_hand_edit_of_requests_md_is_a_warning(tmp_path: Path, run_cli: RunCli) -> None:
    root = _palace(tmp_path)
    svc = TaskService(root)
    svc.new(TASK, "Port the parser", "agent-1")
    svc.request(TASK, "agent-1", b"Keep the old API.")
    path = svc.store.requests_path(TASK)
    with path.open("ab") as handle:
        handle.write(b"also: rename nothing (added by hand)")  # no line end either
    svc.request(TASK, "agent-1", b"And write tests first.")
    shown = _tools(root)["task_show"](task=TASK, owner="agent-1")
    assert [r["words"] for r in shown["requests"]] == [
        "Keep the old API.",
        "And write tests first.",
    ]
    assert [r["number"] for r in shown["requests"]] == [1, 2]
    assert len(shown["warnings"]) == 1 and "requests.md:7:" in shown["warnings"][0]
    code, out, err = run_cli("--palace", root, "task", "show", TASK, "--json")
    assert code == 0 and "edited by hand" in err
    assert len(json.loads(out)["requests"]) == 2


_junk = st.text(st.characters(blacklist_categories=["Cs"]), min_size=1, max_size=60).filter(
    lambda s: "### Request" not in s
)


@settings(deadline=None)
@given(st.lists(st.tuples(st.binary(min_size=1, max_size=80), st.none() | _junk), max_size=6))
def test_requests_around_any_hand_edit_are_read(entries: list[tuple[bytes, str | None]]) -> None:
    data: bytes | None = None
    words = []
    for said, junk in entries:
        if not said.strip():
            continue
        request, data = reqs.append(data, TASK, "agent", said, "2026-12-01T00:00:00Z")
        words.append(said)
        assert request.number == len(words)
        if junk is not None:
            data += junk.encode()
    found, warnings = reqs.read(data or b"")
    assert [r.words for r in found] == words
    assert len(warnings) == sum(1 for said, junk in entries if said.strip() and junk)
