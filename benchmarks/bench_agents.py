"""Agents at N notes: the MCP server (start to first answer; a warm `search` tool round trip,
against the same queries in-process), and the UserPromptSubmit hook as Claude Code runs it (a
whole process) with the warm hook server, without it, and SessionStart; baselines from the
same run: `python -c pass` and a `curator search` process.

    python benchmarks/bench_agents.py --palace P --notes N   (or through run.py)
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from bench_search import keyword_queries
from benchutil import REPO, Row, main_for, process_times, row, timed

sys.path.insert(0, str(REPO / "tests"))

AREA = "agents"


def _prompt_event(palace: Path, prompt: str) -> bytes:
    return json.dumps(
        {
            "session_id": "bench",
            "transcript_path": str(palace / "t.jsonl"),
            "cwd": str(palace),
            "permission_mode": "default",
            "hook_event_name": "UserPromptSubmit",
            "prompt": prompt,
        }
    ).encode()


def _mcp_rows(palace: Path, queries: list[str]) -> list[Row]:
    from agenthelpers import McpClient

    from curator.model.palace import Palace
    from curator.search import Searcher

    starts = []
    for _ in range(3):
        began = time.perf_counter()
        client = McpClient(palace)
        client.call("search", query=queries[0], limit=10)
        starts.append(time.perf_counter() - began)
        client.close()
    client = McpClient(palace)
    try:
        client.call("search", query="warm up", limit=10)
        rounds = []
        for q in queries:
            began = time.perf_counter()
            error, _ = client.call("search", query=q, limit=10)
            rounds.append(time.perf_counter() - began)
            assert not error
    finally:
        client.close()
    searcher = Searcher(Palace.open(palace))
    searcher.search("warm up")
    inproc = [
        timed(lambda q=q: searcher.search(q, limit=10), 1)[0]  # type: ignore[misc]
        for q in queries
    ]
    base = row(AREA, "in-process search", inproc)
    return [
        row(AREA, "mcp: start to first answer", starts, target_ms=2000.0),
        row(
            AREA,
            "mcp: warm search round trip",
            rounds,
            target_ms=50.0,
            baseline="Searcher.search in-process",
            baseline_ms=base.median_ms,
        ),
    ]


def _hook_rows(palace: Path, prompts: list[str]) -> list[Row]:
    # the command `curator hook install` writes, and the same hook through the whole CLI
    hook = [sys.executable, "-m", "curator.agents", "--palace", str(palace), "claude-code"]
    cli_hook = [sys.executable, "-m", "curator", "--palace", str(palace), "hook", "claude-code"]
    cold_env = {"CURATOR_HOOK_WARM": "0", "CURATOR_HOOK_BUDGET": "60"}
    passes = process_times([sys.executable, "-c", "pass"], 10)
    search = process_times(
        [sys.executable, "-m", "curator", "--palace", str(palace), "search", prompts[0]], 5
    )
    cold = [
        process_times([*hook, "UserPromptSubmit"], 1, env=cold_env, stdin=_prompt_event(palace, p))[
            0
        ]
        for p in prompts[:5]
    ]
    start_event = json.dumps({"cwd": str(palace), "source": "startup"}).encode()
    session = process_times([*hook, "SessionStart"], 5, env=cold_env, stdin=start_event)

    # no server running: the first prompt starts one and waits for it (its figure is once)
    warm_env = {"CURATOR_HOOK_WARM": "1", "CURATOR_HOOK_BUDGET": "60"}
    first = process_times(
        [*hook, "UserPromptSubmit"], 1, env=warm_env, stdin=_prompt_event(palace, prompts[0])
    )
    try:
        warm_times, cli_times = [], []
        for p in prompts:
            event = _prompt_event(palace, p)
            warm_times += process_times([*hook, "UserPromptSubmit"], 1, env=warm_env, stdin=event)
            cli_times += process_times(
                [*cli_hook, "UserPromptSubmit"], 1, env=warm_env, stdin=event
            )
    finally:
        _stop_server(palace)
    pass_ms = row(AREA, "python -c pass", passes).median_ms
    return [
        row(
            AREA,
            "hook UserPromptSubmit (warm server), whole process",
            warm_times,
            target_ms=300.0,
            baseline="curator search process",
            baseline_ms=row(AREA, "search", search).median_ms,
            note=f"python -c pass: {pass_ms:.0f} ms",
        ),
        row(
            AREA,
            "the same through `curator hook` (the whole CLI loaded)",
            cli_times,
            baseline="python -c pass",
            baseline_ms=pass_ms,
        ),
        row(
            AREA,
            "hook UserPromptSubmit (no warm server), whole process",
            cold,
            baseline="python -c pass",
            baseline_ms=pass_ms,
        ),
        row(
            AREA,
            "hook UserPromptSubmit, first prompt (starts the warm server, waits for it)",
            first,
            baseline="python -c pass",
            baseline_ms=pass_ms,
        ),
        row(
            AREA,
            "hook SessionStart, whole process",
            session,
            baseline="python -c pass",
            baseline_ms=pass_ms,
        ),
    ]


def _stop_server(palace: Path) -> None:
    """End the warm server the first prompt started, by the pid it wrote."""
    import os
    import signal

    from curator.agents import warm

    try:
        os.kill(int(warm.pid_path(palace).read_text()), signal.SIGTERM)
    except (OSError, ValueError):
        return
    deadline = time.monotonic() + 20
    while warm.socket_path(palace).exists() and time.monotonic() < deadline:
        time.sleep(0.1)


def run(palace: Path, notes: int) -> list[Row]:
    queries = keyword_queries(50)
    prompts = [f"fix the {q} before the release" for q in keyword_queries(20)]
    return [*_mcp_rows(palace, queries), *_hook_rows(palace, prompts)]


if __name__ == "__main__":
    main_for(run)
