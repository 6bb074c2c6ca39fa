"""A note's or draft's `context:` (the text its fact came from) never reaches an agent as the
fact: through the MCP server (run in this process: read_note, the note resource, search, ask,
pack, capture then read) and the prompt hook's pack, the context's words are not in the note's
text or snippet; read_note gives it apart, in a field that says what it is."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from agenthelpers import McpClient, hook_context, served_here, write_palace
from palacehelpers import note_text

from curator.agents.service import CONTEXT_NOTE
from curator.model.note import parse_note

CONTEXT = "Melanie asked about the quasar pipeline; Caroline said the zeppelin broke first."
NOTE = "notes/project/deploy.md"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    files = {
        NOTE: note_text(
            "Deploy order for the billing worker",
            body="Deploy the billing worker after the schema migration.\n",
            extra=f"confidence: 0.9\ncontext: {json.dumps(CONTEXT)}\n",
        ),
    }
    return write_palace(tmp_path_factory.mktemp("context") / "palace", files)


@pytest.fixture(scope="module")
def client(root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpClient]:
    with served_here(root, tmp_path_factory.mktemp("env")) as client:
        yield client


def assert_no_context(text: str) -> None:
    assert "quasar" not in text and "zeppelin" not in text, text


def test_read_note_and_the_resource_give_the_fact_without_its_context(client: McpClient) -> None:
    answer = client.json("read_note", ref=NOTE)
    assert "Deploy the billing worker" in answer["text"]
    assert_no_context(answer["text"])
    assert "context:" not in answer["text"]
    assert answer["context"] == {"note": CONTEXT_NOTE, "text": CONTEXT}
    resource = client.read_resource(f"curator://notes/{NOTE}")
    assert "Deploy the billing worker" in resource
    assert_no_context(resource)


def test_search_ask_and_pack_find_by_context_but_never_serve_it(client: McpClient) -> None:
    found = client.json("search", query="quasar zeppelin billing")["results"]
    assert [r["path"] for r in found] == [NOTE]  # the context is searched...
    assert_no_context(json.dumps(found))  # ...and not served
    sources = client.json("ask", question="what broke in the quasar pipeline?")["sources"]
    assert sources and all(s["path"] == NOTE for s in sources)
    assert_no_context(json.dumps(sources))
    pack = client.json("pack", goal="fix the quasar pipeline billing deploy", floor=0.0)["pack"]
    assert NOTE in pack
    assert_no_context(pack.split("\n", 1)[1])  # below the title, which names the goal


def test_a_captured_drafts_context_is_apart_from_its_text(client: McpClient) -> None:
    wrote = client.json(
        "capture",
        name="Worker retries",
        description="The worker retries three times",
        type="project",
        body="The billing worker retries a failed job three times.",
        context="Caroline: the zeppelin job failed twice on Tuesday.",
    )
    draft = client.json("read_note", ref=wrote["path"])
    assert "retries a failed job" in draft["text"]
    assert_no_context(draft["text"])
    assert draft["context"]["text"] == "Caroline: the zeppelin job failed twice on Tuesday."
    found = client.json("search", query="zeppelin tuesday", drafts=True)["results"]
    assert wrote["path"] in [r["path"] for r in found]
    assert_no_context(json.dumps(found))


def test_the_capture_tool_keeps_a_context_in_the_header(client: McpClient, root: Path) -> None:
    turns = "Ana: which queue takes the invoices?\nBo: the slow one, since March."
    args = {"name": "Slow queue", "description": "d", "type": "project", "body": "Fact.\n"}
    answer = client.json("capture", **args, context=turns)
    header = parse_note(answer["path"], (root / answer["path"]).read_bytes(), "draft").header
    assert header["context"] == turns
    error, text = client.call(
        "capture", **{**args, "name": "Key"}, context="Ana: AKIAIOSFODNN7EXAMPLE"
    )
    assert error and "in the context" in text and "nothing was written" in text


def test_the_prompt_hook_never_serves_the_context(root: Path) -> None:
    context = hook_context(
        root, "UserPromptSubmit", prompt="fix the quasar zeppelin billing worker deploy"
    )
    assert NOTE in context
    assert_no_context(context.split("\n", 1)[1])  # below the title, which names the prompt
