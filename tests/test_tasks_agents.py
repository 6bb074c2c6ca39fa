"""Tasks for agents: the hooks' checkpoint lines and Stop warning, and the task_* MCP tools,
called as the server calls them (over stdio with the SDK: tests/test_mcp_surface.py)."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from palacehelpers import MakePalace

from curator.agents import tasks_tools
from curator.tasks import TaskService
from curator.tasks.checkpoint import SECTION_KEYS
from curator.tasks.claims import now_utc
from curator.tasks.errors import Refused, StaleView

SLUG = "port-parser"


@pytest.fixture
def palace(make_palace: MakePalace) -> Path:
    return make_palace({"notes/.keep": ""})


def tools(root: Path) -> dict[str, object]:
    return {t.name: t.fn for t in tasks_tools.task_tools(SimpleNamespace(root=root))}


def test_context_lines_name_the_checkpoint_size_time_and_the_request_rule(palace: Path) -> None:
    assert "hold no task checkpoint" in tasks_tools.context_lines(palace, "agent-1")[0]
    assert tasks_tools.context_lines(palace, "agent-1", event="UserPromptSubmit") == []
    TaskService(palace).new(SLUG, "Port the parser", "agent-1")
    lines = tasks_tools.context_lines(palace, "agent-1", event="SessionStart")
    path = palace / "tasks" / SLUG / "0001.md"
    size = os.stat(path).st_size
    assert f"Your task checkpoint: {path} ({size} bytes, saved " in lines[0]
    assert any("word for word" in line and f"task request {SLUG}" in line for line in lines)
    assert tasks_tools.context_lines(palace, "someone-else", event="UserPromptSubmit") == []


def test_stop_warns_only_when_files_changed_and_no_save_since_the_turn(palace: Path) -> None:
    svc = TaskService(palace)
    svc.new(SLUG, "Port the parser", "agent-1")
    later = now_utc() + timedelta(minutes=5)
    warn = tasks_tools.stop_warning(palace, "agent-1", turn_started=later, changed_files=True)
    assert warn is not None and f"curator task save {SLUG}" in warn
    assert (
        tasks_tools.stop_warning(palace, "agent-1", turn_started=later, changed_files=False) is None
    )
    earlier = now_utc() - timedelta(minutes=5)
    assert (
        tasks_tools.stop_warning(palace, "agent-1", turn_started=earlier, changed_files=True)
        is None
    )


def test_mcp_tools_keep_the_ownership_rules(palace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CURATOR_AGENT", "agent-1")
    TaskService(palace).new(SLUG, "Port the parser", "agent-1")
    fn = tools(palace)
    assert set(fn) == {"task_show", "task_save", "task_claim", "task_release", "task_request"}
    shown = fn["task_show"](task=SLUG)  # type: ignore[operator]
    assert shown["header"]["revision"] == 1 and shown["sections"]["objective"] == "Port the parser"
    sections = {key: f"{key} now" for key in SECTION_KEYS}
    saved = fn["task_save"](task=SLUG, revision=1, **sections)  # type: ignore[operator]
    assert saved["revision"] == 2
    with pytest.raises(StaleView, match="moved on since you read revision 1"):
        fn["task_save"](task=SLUG, revision=1, **sections)  # type: ignore[operator]
    with pytest.raises(Refused, match="agent-1 holds task"):
        fn["task_claim"](task=SLUG, revision=2, owner="agent-2")  # type: ignore[operator]
    words = "Use **tabs**, not [red]spaces[/red] \x1b[1m — exactly this ✓"
    got = fn["task_request"](task=SLUG, words=words)  # type: ignore[operator]
    assert got["request"] == 1
    assert TaskService(palace).requests(SLUG)[0].words == words.encode()
    released = fn["task_release"](task=SLUG, revision=2)  # type: ignore[operator]
    assert released["header"]["owner"] is None
    claimed = fn["task_claim"](task=SLUG, revision=3, owner="agent-2")  # type: ignore[operator]
    assert claimed["header"]["owner"] == "agent-2"


def test_a_lapsed_claim_is_still_named_with_how_to_claim_it_again(palace: Path) -> None:
    TaskService(palace).new(SLUG, "Port the parser", "agent-1")
    later = now_utc() + timedelta(days=2)
    lines = tasks_tools.context_lines(palace, "agent-1", now=later)
    assert "Your claim lapsed at" in lines[0] and f"task claim {SLUG} --revision 1" in lines[0]
