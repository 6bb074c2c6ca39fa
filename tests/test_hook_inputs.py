"""Each hook fed every input Claude Code documents (all session sources, fork included, and
stop_hook_active both ways), and where each message lands: SessionStart and UserPromptSubmit
put theirs in additionalContext (the model reads it), Stop puts one short line in
systemMessage (the person reads it) and hands the agent's part to the next prompt's context;
Stop never blocks. The injected context names the MCP tools when curator's server is
configured for the project, else the exact command that works; task lines come at
SessionStart, not on every prompt."""

# ruff: noqa: F811  (the fixtures of test_hooks, imported by name)
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from agenthelpers import run_hook
from palacehelpers import run_main
from test_hooks import context, event, no_warm_server, root  # noqa: F401

SOURCES = ["startup", "resume", "clear", "compact", "fork"]


def _project(root: Path) -> Path:
    return root / "workspace" / "app"


@pytest.mark.parametrize("source", SOURCES)
def test_session_start_every_source_lands_in_additional_context(root: Path, source: str) -> None:
    start = event("SessionStart", _project(root), source=source, model="claude")
    proc = run_hook(root, "claude-code", "SessionStart", start)
    out = json.loads(proc.stdout)
    assert set(out) == {"hookSpecificOutput"}  # nothing for the person, nothing blocking
    text = context(proc, "SessionStart")
    assert "Memory palace" in text and "task checkpoint" in text
    # no MCP server configured: the exact command, with the interpreter the hooks run
    assert f"{sys.executable} -m curator --palace {root}" in text
    assert "`curator " not in text


def test_session_start_names_the_mcp_tools_when_the_server_is_configured(root: Path) -> None:
    project = _project(root)
    args = ["-m", "curator", "--palace", str(root), "mcp"]
    config = {"mcpServers": {"memory": {"command": sys.executable, "args": args}}}
    (project / ".mcp.json").write_text(json.dumps(config))
    start = event("SessionStart", project, source="startup")
    text = context(run_hook(root, "claude-code", "SessionStart", start), "SessionStart")
    assert "MCP tools" in text and "search" in text and "capture" in text
    assert f"{sys.executable} -m curator" not in text


def _changed_turn(root: Path, prompt: dict[str, object]) -> None:
    run_hook(root, "claude-code", "UserPromptSubmit", prompt)
    main = _project(root) / "main.py"
    main.write_text(main.read_text() + "# changed\n")


@pytest.mark.parametrize("active", [False, True])
def test_stop_never_blocks_and_its_messages_land_where_they_are_read(
    root: Path, active: bool
) -> None:
    project = _project(root)
    prompt = event("UserPromptSubmit", project, prompt="billing worker retries")
    _changed_turn(root, prompt)
    stop_event = event("Stop", project, stop_hook_active=active, last_assistant_message="Done.")
    stop = run_hook(root, "claude-code", "Stop", stop_event)
    assert stop.returncode == 0 and stop.stderr == ""
    nxt = run_hook(root, "claude-code", "UserPromptSubmit", prompt)
    carried = "the last turn changed files" in nxt.stdout
    if active:  # Claude Code is already continuing because of a stop hook: say nothing
        assert stop.stdout == "" and not carried
        return
    out = json.loads(stop.stdout)
    assert set(out) == {"systemMessage"} and len(out["systemMessage"]) < 100
    assert carried
    reminder = context(nxt, "UserPromptSubmit")
    assert "the last turn changed files" in reminder
    # no MCP server configured: the exact command, not a tool the agent does not have
    assert f"`{sys.executable} -m curator --palace {root} capture`" in reminder
    assert "MCP" not in reminder


def test_stops_reminder_names_the_mcp_tool_when_the_server_is_configured(root: Path) -> None:
    project = _project(root)
    args = ["-m", "curator", "--palace", str(root), "mcp"]
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"curator": {"args": args}}}))
    prompt = event("UserPromptSubmit", project, prompt="billing worker retries")
    _changed_turn(root, prompt)
    run_hook(root, "claude-code", "Stop", event("Stop", project, stop_hook_active=False))
    proc = run_hook(root, "claude-code", "UserPromptSubmit", prompt)
    reminder = context(proc, "UserPromptSubmit")
    assert "the MCP `capture` tool" in reminder and "-m curator" not in reminder


def test_task_lines_at_session_start_not_on_every_prompt(root: Path) -> None:
    made = run_main(root, "--palace", str(root), "task", "new", "billing-fix",
                    "--objective", "fix billing")  # fmt: skip
    assert made.returncode == 0, made.stderr  # the set-up: the hooks below are under test
    project = _project(root)
    begin = event("SessionStart", project, source="compact")
    start = context(run_hook(root, "claude-code", "SessionStart", begin), "SessionStart")
    assert "Your task checkpoint" in start and "billing-fix" in start
    for words in ("hello", "billing worker retries"):
        said = event("UserPromptSubmit", project, prompt=words)
        proc = run_hook(root, "claude-code", "UserPromptSubmit", said)
        assert proc.returncode == 0 and "task checkpoint" not in proc.stdout, words
