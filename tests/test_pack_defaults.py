"""The pack's budget and floor come from palace.toml's [agents] table, once: `curator pack`
and the MCP `pack` tool used their own 2000 and 0.7 and ignored `pack_budget`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from agenthelpers import HASH_TOML, McpClient, served_here, write_palace
from palacehelpers import MakePalace, RunCli, note_text

AGENTS = HASH_TOML + "\n[agents]\npack_budget = 250\npack_floor = 0.2\n"
BODY = "Deploy the worker with the release script, then watch the queue drain.\n" * 3
FILES = {
    f"notes/deploy-{i}.md": note_text(f"Deploy worker {i}", body=BODY, extra="confidence: 0.5\n")
    for i in range(8)
}


def _palace(make_palace: MakePalace) -> Path:
    return make_palace(FILES, toml=AGENTS)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpClient]:
    """One server for the tests that only read through it."""
    base = tmp_path_factory.mktemp("pack")
    with served_here(write_palace(base / "palace", FILES, AGENTS), base) as client:
        yield client


def test_cli_and_mcp_pack_take_the_palace_settings(
    make_palace: MakePalace, run_cli: RunCli
) -> None:
    root = _palace(make_palace)
    code, out, err = run_cli("--palace", root, "pack", "deploy the worker", "--json")
    assert code == 0, err
    answer = json.loads(out)
    assert (answer["budget"], answer["floor"]) == (250, 0.2)
    small = answer["pack"]
    assert "Deploy worker" in small  # confidence 0.5 passes the palace's floor, not 0.7
    code, out, _ = run_cli("--palace", root, "pack", "deploy the worker", "--budget", "2000")
    assert len(out) > len(small)  # the budget is what cut it


def test_mcp_pack_takes_the_palace_settings(client: McpClient) -> None:
    small = client.json("pack", goal="deploy the worker")["pack"]
    large = client.json("pack", goal="deploy the worker", budget=2000)["pack"]
    assert "Deploy worker" in small and len(large) > len(small)


def test_tool_schemas_say_their_bounds_and_titles(client: McpClient) -> None:
    """read_note refuses max_tokens below 50: its input schema says so; every tool has a
    title (the tool's own, not only in its annotations)."""
    tools = {t.name: t for t in client.list_tools()}
    error, text = client.call("read_note", ref="notes/deploy-0.md", max_tokens=10)
    assert all(t.title for t in tools.values()), [n for n, t in tools.items() if not t.title]
    schema = json.dumps(tools["read_note"].input_schema["properties"]["max_tokens"])
    assert '"minimum": 50' in schema
    assert error and "max_tokens" in text
