"""The MCP server describes itself, driven by the SDK's own client (in this process, over the
SDK's in-memory transport: tests/test_mcp.py drives the process over stdio): every tool,
parameter, resource and prompt is described, every tool carries its four hints, every tool's
structured answer validates against its outputSchema, serverInfo has curator's version, and the
errors are exact (unknown filter values listed, argument types in curator's words, a missing
note -32602). Also the reads agents ask for: read_note in parts, recent, related, search by tag
and date, and the index an adopted Claude Code folder points to (MEMORY.md)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from agenthelpers import HASH_TOML, McpClient, served_here, write_palace
from layouthelpers import FIXTURES
from palacehelpers import RunCli, note_text

import curator
from curator.agents.service import MAX_ANSWER_CHARS, Memory
from curator.tasks import TaskService
from curator.tasks.checkpoint import SECTION_KEYS

LONG = "notes/project/long.md"
OLD = "notes/project/old-deploy.md"
NEW = "notes/project/new-deploy.md"
LINKER = "notes/reference/runbook.md"


def _palace(base: Path) -> Path:
    root = base / "palace"
    sections = "".join(
        f"## Part {i}\n" + "".join(f"line {i}.{j}\n" for j in range(40)) for i in range(5)
    )
    files = {
        LONG: note_text("Long zebracorn note", body=f"# Long\n\n{sections}", extra="tags: [big]\n"),
        OLD: note_text(
            "Old zebracorn deploy",
            body="Deploy with the old script.\n",
            extra="status: superseded\nsuperseded_by: new-deploy\ncreated: 2025-01-05\n",
        ),
        NEW: note_text(
            "New zebracorn deploy",
            body="Deploy with the new pipeline.\n",
            extra="supersedes: [old-deploy]\ncreated: 2026-03-01\nreviewed: 2026-04-01\n"
            "tags: [deploy, ci]\n",
        ),
        LINKER: note_text(
            "Zebracorn runbook",
            type="reference",
            body="See [the deploy](../project/new-deploy.md) first.\n",
            extra="created: 2026-05-01\n",
        ),
        "inbox/2026-01-02-draft.md": note_text(
            "Zebracorn draft", body="An unreviewed zebracorn idea.\n", extra="status: draft\n"
        ),
        "INDEX.md": "# Index\n",
    }
    return write_palace(root, files)


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _palace(tmp_path_factory.mktemp("surface"))


@pytest.fixture(scope="module")
def client(root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpClient]:
    with served_here(root, tmp_path_factory.mktemp("env")) as client:
        yield client


def _call(client: McpClient, name: str, /, **args: Any) -> Any:
    return client.request(lambda s: s.call_tool(name, args))


# a valid call of every tool (the task tools on a task this test creates)
CALLS: dict[str, dict[str, Any]] = {
    "search": {"query": "zebracorn deploy"},
    "ask": {"question": "how do we deploy zebracorn?"},
    "pack": {"goal": "deploy zebracorn", "floor": 0.0},
    "read_note": {"ref": NEW},
    "recent": {"days": 3650},
    "related": {"ref": NEW},
    "list_inbox": {},
    "capture": {
        "name": "Zebracorn capture",
        "description": "d",
        "type": "project",
        "body": "A fact about zebracorn.",
        "tags": "one-tag",
    },
    "report_stale": {"note": OLD, "reason": "the old script is gone"},
    "list_directory": {"depth": 2},
    "build_context": {"uri": f"curator://notes/{LINKER}", "depth": 2},
    "diagnostics": {},
}


def test_every_tool_parameter_and_hint_is_described(client: McpClient) -> None:
    tools = client.list_tools()
    assert {t.name for t in tools} >= set(CALLS)
    for tool in tools:
        assert tool.description and len(tool.description) > 30, tool.name
        props = tool.input_schema.get("properties", {})
        for pname, schema in props.items():
            assert schema.get("description"), (tool.name, pname)
        hints = tool.annotations
        assert hints is not None, tool.name
        for hint in ("read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint"):
            assert isinstance(getattr(hints, hint), bool), (tool.name, hint)
        assert tool.output_schema and tool.output_schema.get("type") == "object", tool.name
        # a real answer shape, not a bare object; a title of its own, not the name reworded
        assert tool.output_schema.get("properties"), tool.name
        assert tool.title and tool.title != tool.name.replace("_", " ").capitalize(), tool.name
        assert hints.title == tool.title, tool.name
        writes = tool.name in ("capture", "report_stale") or (
            tool.name.startswith("task_") and tool.name != "task_show"
        )
        assert hints.read_only_hint is (not writes), tool.name
        assert hints.destructive_hint is False and hints.open_world_hint is False


def test_every_answer_validates_against_its_output_schema(client: McpClient) -> None:
    tools = {t.name: t for t in client.list_tools()}
    for name, args in CALLS.items():
        result = _call(client, name, **args)
        assert not result.is_error, (name, result.content)
        jsonschema.validate(result.structured_content, tools[name].output_schema)
        text = "".join(c.text for c in result.content)
        assert json.loads(text) == result.structured_content, name


def test_task_tools_answer_structured_content(client: McpClient, root: Path) -> None:
    TaskService(root).new("zc-task", "ship it", "agent-1")
    tools = {t.name: t for t in client.list_tools()}
    shown = _call(client, "task_show", task="zc-task")
    assert not shown.is_error, shown.content
    jsonschema.validate(shown.structured_content, tools["task_show"].output_schema)
    asked = _call(client, "task_request", task="zc-task", words="ship it today")
    assert not asked.is_error, asked.content
    jsonschema.validate(asked.structured_content, tools["task_request"].output_schema)
    assert "header" in tools["task_save"].output_schema["required"]
    # read_note's input schema states the smallest max_tokens it takes
    max_tokens = tools["read_note"].input_schema["properties"]["max_tokens"]
    assert 50 in [b.get("minimum") for b in max_tokens.get("anyOf", [max_tokens])], max_tokens


def test_task_tools_keep_the_ownership_rules(client: McpClient, root: Path) -> None:
    task = "port-parser"
    TaskService(root).new(task, "Port the parser", "agent-1")
    assert client.json("task_show", task=task)["header"]["owner"] == "agent-1"
    error, text = client.call("task_claim", task=task, revision=1, owner="agent-2")
    assert error and "agent-1 holds task" in text
    error, text = client.call("task_release", task=task, revision=7)
    assert error and "moved on" in text
    assert json.loads(client.call("task_request", task=task, words="hi")[1])["request"] == 1


def test_a_task_reads_back_whole(client: McpClient, root: Path) -> None:
    """A 30 KB state section, a `# next` line and a hand edit of requests.md."""
    task = "port-lexer"
    svc = TaskService(root)
    svc.new(task, "Port the lexer", "agent-1")
    svc.request(task, "agent-1", b"Keep the old API.")
    with svc.store.requests_path(task).open("ab") as handle:
        handle.write(b"one more thing, typed by hand\n")
    sections = {key: f"{key}: done\n# next\nmore" for key in SECTION_KEYS}
    sections["state"] = "lexer done\n" + "x" * 30_000
    error, text = client.call("task_save", task=task, revision=1, owner="agent-1", **sections)
    assert not error, text
    error, text = client.call("task_show", task=task, owner="agent-1")
    assert not error and len(text) <= MAX_ANSWER_CHARS
    shown = json.loads(text)  # whole JSON
    for key in SECTION_KEYS:
        if key != "state":
            assert shown["sections"][key] == sections[key]  # the `# next` line kept
    assert shown["sections"]["state"].startswith("lexer done\n")
    assert "state (" in shown["cut"] and shown["path"] in shown["cut"]
    assert [r["words"] for r in shown["requests"]] == ["Keep the old API."]
    assert "edited by hand" in shown["warnings"][0]


def test_server_info_resources_and_prompts(client: McpClient) -> None:
    info = client.request(lambda s: _async(s.server_info))
    assert info.name == "curator" and info.version == curator.__version__
    resources = client.request(lambda s: s.list_resources()).resources
    templates = client.request(lambda s: s.list_resource_templates()).resource_templates
    assert [t.uri_template for t in templates] == ["curator://notes/{+path}"]
    for item in [*resources, *templates]:
        assert item.description, item.name
    assert "curator://INDEX.md" in {str(r.uri) for r in resources}
    tool_names = {t.name for t in client.list_tools()}
    prompts = client.request(lambda s: s.list_prompts()).prompts
    assert {p.name for p in prompts} == {"review_inbox", "what_do_we_know", "save_checkpoint"}
    for prompt in prompts:
        named = {t for t in tool_names if t in (prompt.description or "")}
        assert len(named) >= 2, prompt.name
        for arg in prompt.arguments or []:
            assert arg.description, (prompt.name, arg.name)
        got = client.request(
            lambda s, p=prompt: s.get_prompt(
                p.name, {"topic": "deploys"} if p.name == "what_do_we_know" else {}
            )
        )
        text = got.messages[0].content.text
        assert all(t in text for t in named), prompt.name


async def _async(value: Any) -> Any:
    return value


def test_unknown_filter_values_are_refused_with_the_known_ones(client: McpClient) -> None:
    for args, word in (
        ({"types": ["nonsense"]}, "type"),
        ({"scope": "nowhere"}, "scope"),
        ({"status": ["bogus"]}, "status"),
    ):
        error, text = client.call("search", query="zebracorn", **args)
        assert error and f"unknown {word}" in text and "(known: " in text, text


def test_a_single_string_is_taken_for_a_list(client: McpClient) -> None:
    one = client.json("search", query="zebracorn deploy", types="project", status="active")
    many = client.json("search", query="zebracorn deploy", types=["project"], status=["active"])
    assert one["results"] == many["results"] and one["results"]


@pytest.mark.parametrize(
    ("tool", "args", "param", "form"),
    [
        ("search", {"query": 5}, "query", "a string"),
        ("search", {"query": "x", "limit": "many"}, "limit", "a whole number"),
        ("search", {"query": "x", "types": [1]}, "types", "a string"),
        ("search", {"query": "x", "stale": "maybe"}, "stale", "true or false"),
        ("read_note", {}, "ref", "required"),
        ("capture", {"name": "n", "description": "d", "type": "project"}, "body", "required"),
    ],
)
def test_argument_errors_in_curators_words(
    client: McpClient, tool: str, args: dict[str, Any], param: str, form: str
) -> None:
    error, text = client.call(tool, **args)
    assert error and param in text and form in text, text
    assert "pydantic" not in text and "http" not in text and "Input should" not in text


def test_a_missing_note_resource_is_invalid_params(client: McpClient) -> None:
    from mcp.shared.exceptions import MCPError

    with pytest.raises(MCPError) as caught:
        client.read_resource("curator://notes/notes/project/nope.md")
    assert caught.value.error.code == -32602


def test_report_stale_says_what_happens_next(client: McpClient) -> None:
    answer = client.json("report_stale", note=NEW, reason="the pipeline moved")
    assert "draft" in answer["note"] and "person" in answer["note"]
    assert "unchanged" in answer["note"] and "consider updating" not in json.dumps(answer)


def test_read_note_in_parts(client: McpClient) -> None:
    whole = client.json("read_note", ref=LONG)
    assert (
        whole["truncated"] is False
        and whole["lines"] == f"1-{whole['total_lines']} of {whole['total_lines']}"
    )
    part = client.json("read_note", ref=LONG, start_line=10, end_line=12)
    assert part["text"] == "".join(whole["text"].splitlines(keepends=True)[9:12])
    assert part["lines"].startswith("10-12 of") and part["truncated"]
    section = client.json("read_note", ref=LONG, heading="Part 2")
    assert section["text"].startswith("## Part 2\n") and "line 2.39" in section["text"]
    assert "Part 3" not in section["text"] and "line 1." not in section["text"]
    small = client.json("read_note", ref=LONG, max_tokens=50)
    assert len(small["text"]) <= 200 and small["truncated"] and small["text"].endswith("\n")
    error, text = client.call("read_note", ref=LONG, heading="Nope")
    assert error and "Part 1" in text


def test_recent_and_related(client: McpClient) -> None:
    related = client.json("related", ref=NEW, depth=1)["related"]
    relations = {(r["path"], r["relation"]) for r in related}
    assert (OLD, "supersedes") in relations and (LINKER, "backlink") in relations
    from_old = client.json("related", ref=OLD, depth=2)["related"]
    assert {r["path"]: r["depth"] for r in from_old}.get(LINKER) == 2
    error, text = client.call("related", ref=NEW, depth=9)
    assert error and "depth" in text
    recent = client.json("recent", since="2000-01-01")
    assert recent["since"] == "2000-01-01" and isinstance(recent["changes"], list)
    error, text = client.call("recent", since="yesterday")
    assert error and "YYYY-MM-DD" in text


def test_search_by_tag_and_dates(client: McpClient) -> None:
    tagged = client.json("search", query="zebracorn", tags="ci")["results"]
    assert [r["path"] for r in tagged] == [NEW] and "ci" in tagged[0]["tags"]
    after = client.json("search", query="zebracorn", status=["active", "superseded"],
                        created_after="2026-01-01")["results"]  # fmt: skip
    paths = {r["path"] for r in after}
    assert NEW in paths and LINKER in paths and OLD not in paths
    reviewed = client.json("search", query="zebracorn", reviewed_before="2026-04-30")["results"]
    assert [r["path"] for r in reviewed] == [NEW]


def test_an_adopted_claude_code_folder_points_to_memory_md(tmp_path: Path, run_cli: RunCli) -> None:
    root = tmp_path / "memory"
    shutil.copytree(FIXTURES / "claude-code/memory", root)
    code, _, err = run_cli("init", "--adopt", root, "--yes")
    assert code == 0, err
    memory = Memory(root)
    assert memory.index_name() == "MEMORY.md" and not (root / "INDEX.md").exists()
    assert "feedback_testing.md" in memory.index_md()


def test_recent_lists_promotions_and_retirements_from_history(
    make_palace: Any, run_cli: RunCli
) -> None:
    root = make_palace(
        {
            "inbox/2026-11-01-queue.md": note_text(
                "Queue is SQS", body="The queue is SQS now.\n", extra="status: draft\n"
            ),
            "notes/project/old.md": note_text("Old fact", body="Old.\n"),
        },
        toml=HASH_TOML,
    )
    code, _, err = run_cli("--palace", root, "promote", "inbox/2026-11-01-queue.md", "--yes")
    assert code == 0, err
    code, _, err = run_cli("--palace", root, "retire", "old", "--reason", "gone", "--yes")
    assert code == 0, err
    changes = Memory(root).recent(days=2)["changes"]
    got = {(c["change"], c["name"]) for c in changes}
    assert ("promoted", "Queue is SQS") in got and ("retired", "Old fact") in got
    assert Memory(root).recent(since="2999-01-01")["changes"] == []
