"""`curator mcp` end to end: the real server as a subprocess, driven by the MCP SDK's own client
over stdio (and by hand, for raw bytes). Tools listed and called, the visibility gate, capture
writes a draft and no note, refusals come back as messages, and garbage on the wire leaves the
server answering."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agenthelpers import HASH_TOML, McpClient, served, server_env, write_palace
from palacehelpers import note_text, run_main

TOML = HASH_TOML + "\n[scopes.vault]\nsensitive = true\n"
TOOLS = {"search", "ask", "pack", "read_note", "list_inbox", "capture", "report_stale"}
TOOLS |= {"list_directory", "build_context", "diagnostics"}
SECRET = "notes/project/zebracorn-secret.md"
VAULT = "notes/project/zebracorn-vault.md"
PUBLIC = "notes/project/zebracorn-public.md"
HUB = "notes/reference/hub.md"
KEYS = "notes/keys/rotation.md"  # a folder holding only a hidden note


def _palace(base: Path) -> Path:
    root = base / "palace"
    files = {
        PUBLIC: note_text(
            "Zebracorn public",
            body="The zebracorn webhook handler dedupes on the event id.\n",
            extra="confidence: 0.9\n",
        ),
        SECRET: note_text(
            "Zebracorn secret",
            body="The zebracorn webhook signing key lives in the vault.\n",
            extra="sensitive: true\nconfidence: 0.9\n",
        ),
        VAULT: note_text(
            "Zebracorn vault",
            body="The zebracorn webhook vault rotation happens monthly.\n",
            extra="scope: vault\nconfidence: 0.9\n",
        ),
        "notes/feedback/retries.md": note_text(
            "Webhook retries are idempotent",
            type="feedback",
            body="Every zebracorn webhook retry records the event id first.\n",
            extra="confidence: 0.95\n",
        ),
        HUB: note_text(
            "Hub",
            type="reference",
            body="Read [public](../project/zebracorn-public.md), [this]"
            "(../project/zebracorn-secret.md) and [that](../project/zebracorn-vault.md).\n",
            extra="created: 2026-01-01\n",
        ),
        KEYS: note_text(
            "Key rotation", body="Rotate the keys on the first.\n", extra="sensitive: true\n"
        ),
        "inbox/2026-01-02-draft.md": note_text(
            "Zebracorn draft", body="An unreviewed zebracorn idea.\n", extra="status: draft\n"
        ),
        "INDEX.md": "# Index\n\n<!-- curator:generated — do not hand-edit below this line -->\n"
        f"- [Zebracorn public]({PUBLIC})\n- [Zebracorn secret]({SECRET})\n",
    }
    return write_palace(root, files, TOML)


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _palace(tmp_path_factory.mktemp("mcp"))


@pytest.fixture(scope="module")
def client(root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpClient]:
    with served(root, tmp_path_factory.mktemp("env")) as client:
        yield client


class Raw:
    """`curator mcp` driven by hand over its stdin and stdout: JSON-RPC lines, or any bytes."""

    def __init__(self, root: Path, base: Path, *extra: str) -> None:
        env = {**os.environ, **server_env(base)}
        argv = [sys.executable, "-m", "curator", "--palace", str(root), "mcp", *extra]
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
        )
        self.ids = iter(range(100, 10**6))

    def send(self, obj: object) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((obj if isinstance(obj, bytes) else json.dumps(obj).encode()) + b"\n")
        self.proc.stdin.flush()

    def reply(self, want_id: int) -> dict[str, Any]:
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            assert line, "the server closed its output"
            msg = json.loads(line)
            if msg.get("id") == want_id:
                return msg  # type: ignore[no-any-return]

    def ask(self, method: str, **params: object) -> dict[str, Any]:
        """The result of a request (its error is a failed test)."""
        ident = next(self.ids)
        self.send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        answer = self.reply(ident)
        assert "result" in answer, answer
        return answer["result"]  # type: ignore[no-any-return]

    def tool(self, name: str, **arguments: object) -> Any:
        result = self.ask("tools/call", name=name, arguments=arguments)
        assert not result.get("isError"), result
        return json.loads(result["content"][0]["text"])

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(20)


@pytest.fixture(scope="module")
def garbled(root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Raw, list]]:
    """An `--include-sensitive` server sent raw bytes that are not JSON-RPC and an unknown
    method before its handshake, then a tool call naming no tool: (the server, the replies
    to the handshake and to that call). One server for both: each start pays curator's, the
    SDK's and LanceDB's imports."""
    raw = Raw(root, tmp_path_factory.mktemp("env"), "--include-sensitive")
    try:
        raw.send(b"this is not json")
        raw.send(b"\xff\xfe garbage \x00")
        raw.send({"jsonrpc": "2.0", "id": 99, "method": "no/such/method"})
        raw.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "test", "version": "0"},
                },
            }
        )
        replies = [raw.reply(1)]
        raw.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        raw.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": 7}})
        replies.append(raw.reply(2))
        yield raw, replies
    finally:
        raw.close()


def _paths(results: list[dict[str, object]]) -> set[object]:
    return {r["path"] for r in results}


def test_lists_every_tool_with_plain_descriptions(client: McpClient) -> None:
    tools = {t.name: t for t in client.list_tools()}
    assert set(tools) >= TOOLS
    for name in ("capture", "report_stale", "list_inbox"):
        assert "NOT rules until a person promotes them" in (tools[name].description or "")
    assert "query" in tools["search"].input_schema["properties"]


def test_search_ask_pack_hide_sensitive_notes(client: McpClient) -> None:
    results = client.json("search", query="zebracorn webhook", limit=20)["results"]
    assert PUBLIC in _paths(results)
    assert not _paths(results) & {SECRET, VAULT}
    sources = client.json("ask", question="what does the zebracorn webhook do?")["sources"]
    assert sources and not _paths(sources) & {SECRET, VAULT}
    assert sources[0]["path"] == "notes/feedback/retries.md"  # authority order: feedback first
    assert all(s["marks"] for s in sources)  # each marked hint / stale / superseded / draft
    error, text = client.call("pack", goal="zebracorn webhook", floor=0.5)
    assert not error and PUBLIC in text and SECRET not in text and VAULT not in text


def test_include_sensitive_server_shows_them(garbled: tuple[Raw, list]) -> None:
    server, _ = garbled
    results = server.tool("search", query="zebracorn webhook", limit=20)["results"]
    assert {SECRET, VAULT} <= _paths(results)
    assert "signing key" in server.tool("read_note", ref=SECRET)["text"]
    index = server.ask("resources/read", uri="curator://INDEX.md")["contents"][0]["text"]
    assert SECRET in index


def test_read_note_by_slug_name_path_and_refusals(client: McpClient) -> None:
    assert client.json("read_note", ref="zebracorn-public")["path"] == PUBLIC
    assert client.json("read_note", ref="Zebracorn public")["path"] == PUBLIC
    assert "dedupes" in client.json("read_note", ref=PUBLIC)["text"]
    for ref in (SECRET, VAULT, "zebracorn-secret", "../../../etc/passwd", "/etc/passwd"):
        error, text = client.call("read_note", ref=ref)
        assert error and "no note or draft matches" in text, (ref, text)
        assert "signing key" not in text and "root:" not in text


def test_resources_index_and_notes(client: McpClient) -> None:
    index = client.read_resource("curator://INDEX.md")
    assert PUBLIC in index and SECRET not in index
    assert "dedupes" in client.read_resource(f"curator://notes/{PUBLIC}")
    with pytest.raises(Exception, match="no note or draft matches"):
        client.read_resource(f"curator://notes/{SECRET}")


def test_list_inbox_counts_drafts(client: McpClient) -> None:
    inbox = client.json("list_inbox")
    assert inbox["count"] >= 1 and "NOT rules" in inbox["note"]
    assert "inbox/2026-01-02-draft.md" in _paths(inbox["drafts"])


def test_capture_writes_a_draft_and_no_note(client: McpClient, root: Path) -> None:
    notes_before = sorted(p.relative_to(root) for p in (root / "notes").rglob("*.md"))
    body = "The zebracorn worker needs the ZC_QUEUE variable set before it starts.\n"
    args = {
        "name": "Zebracorn worker needs ZC_QUEUE",
        "description": "Set ZC_QUEUE before starting the worker.",
        "type": "project",
        "body": body,
        "source": "session=s1",
    }
    answer = client.json("capture", **args)
    path = root / answer["path"]
    assert answer["path"].startswith("inbox/") and path.is_file()
    assert "NOT rules" in answer["note"]
    assert "status: draft" in path.read_text()
    assert sorted(p.relative_to(root) for p in (root / "notes").rglob("*.md")) == notes_before
    assert (
        subprocess.run(
            ["git", "status", "--porcelain", "notes"], cwd=root, capture_output=True, text=True
        ).stdout
        == ""
    )
    error, text = client.call("capture", **args)  # the same draft again
    assert error and answer["path"] in text and "identical draft" in text
    # a second, similar capture lists the first one as similar
    again = client.json("capture", **{**args, "body": body + "Also ZC_REGION.\n"})
    assert answer["path"] in {s["path"] for s in again["similar"]}


def test_a_draft_never_names_a_hidden_similar_note(client: McpClient, root: Path) -> None:
    answer = client.json(
        "capture",
        name="Zebracorn secret again",
        description="About zebracorn secret.",
        type="project",
        body="The zebracorn webhook signing key rotates.\n",
    )
    on_disk = (root / answer["path"]).read_text()
    assert SECRET in on_disk  # the capture recorded it for the reviewer
    shown = client.json("read_note", ref=answer["path"])["text"]
    assert SECRET not in shown and "Zebracorn secret\n" not in shown
    assert SECRET not in json.dumps(answer) and SECRET not in client.read_resource(
        f"curator://notes/{answer['path']}"
    )


def test_capture_refusals_are_messages(client: McpClient, root: Path) -> None:
    drafts_before = set((root / "inbox").iterdir())
    base = {"name": "Bad one", "description": "d", "type": "project", "body": "x"}
    cases = [
        ({**base, "type": "nonsense"}, "unknown type"),
        ({**base, "body": "y" * 20_000}, "at most"),
        ({**base, "body": "  "}, "empty body"),
        ({**base, "name": ""}, "empty name"),
    ]
    for args, expected in cases:
        error, text = client.call("capture", **args)
        assert error and expected in text, (args["type"], text)
        assert "Traceback" not in text
    assert set((root / "inbox").iterdir()) == drafts_before


def test_capture_with_a_secret_is_refused(client: McpClient, root: Path) -> None:
    drafts_before = set((root / "inbox").iterdir())
    error, text = client.call(
        "capture",
        name="Zebracorn deploy key",
        description="The deploy key.",
        type="project",
        body="Deploy with the key below.\nUse AKIAIOSFODNN7EXAMPLE with the aws cli.\n",
    )
    assert error and "secret" in text and "body line 2" in text and "nothing was written" in text
    assert "AKIAIOSFODNN7EXAMPLE" not in text
    assert set((root / "inbox").iterdir()) == drafts_before


def test_report_stale_files_a_draft_and_leaves_the_note(client: McpClient, root: Path) -> None:
    before = (root / PUBLIC).read_bytes()
    answer = client.json(
        "report_stale", note="zebracorn-public", reason="the handler dedupes on the key now"
    )
    text = (root / answer["path"]).read_text()
    assert answer["path"].startswith("inbox/") and PUBLIC in text and "dedupes on the key" in text
    assert (root / PUBLIC).read_bytes() == before
    error, text = client.call("report_stale", note=SECRET, reason="x")
    assert error and "no note or draft matches" in text


def test_a_note_written_while_serving_is_found(client: McpClient, root: Path) -> None:
    (root / "notes" / "project" / "quokka.md").write_text(
        note_text("Quokka saxophone", body="Quokka saxophone tuning is weekly.\n")
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        found = client.json("search", query="quokka saxophone")["results"]
        if "notes/project/quokka.md" in _paths(found):
            break
        time.sleep(0.2)
    else:
        raise AssertionError("the server never saw the new note")


def test_bad_arguments_and_unknown_tools_keep_the_server_serving(client: McpClient) -> None:
    for name, args in (
        ("search", {"query": 5}),
        ("search", {}),
        ("search", {"query": "x", "limit": "many"}),
        ("nope", {}),
        ("read_note", {"ref": "\x00"}),
        ("search", {"query": "zebracorn " * 1000}),
        ("ask", {"question": "   "}),
    ):
        error, _ = client.call(name, **args)
        assert error
    assert client.json("search", query="zebracorn")["results"]


def test_garbage_on_the_wire_then_still_answers(garbled: tuple[Raw, list]) -> None:
    """Raw bytes that are not JSON-RPC, then a proper handshake and a call: still answered."""
    server, (hello, bad) = garbled
    assert "result" in hello
    assert "error" in bad or bad["result"]["isError"]
    assert PUBLIC in json.dumps(server.tool("search", query="zebracorn"))


def test_print_config_for_each_client(root: Path) -> None:
    for client in ("claude-code", "claude-desktop", "cursor"):
        proc = run_main(root, "--palace", str(root), "mcp", "--print-config", client)
        assert proc.returncode == 0, proc.stderr
        entry = json.loads(proc.stdout)["mcpServers"]["curator"]
        assert entry["args"][-1] == "mcp" and str(root) in entry["args"]
        assert (entry.get("type") == "stdio") == (client == "claude-code")


def test_a_broken_palace_toml_is_refused_before_serving(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "palace.toml").write_text("[palace\n")
    proc = subprocess.run(
        [sys.executable, "-m", "curator", "--palace", str(tmp_path), "mcp"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "palace.toml" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_folders_context_and_diagnostics_name_no_hidden_note(client: McpClient) -> None:
    """list_directory, build_context and diagnostics pass the gate: hidden notes are counted
    at most, never named; a folder holding only hidden notes is not listed."""
    hidden = (SECRET, VAULT, KEYS, "zebracorn-secret", "Zebracorn secret", "Zebracorn vault",
              "signing key", "Key rotation", "notes/keys")  # fmt: skip
    top = client.json("list_directory", depth=2)
    folders = {f["path"]: f["count"] for f in top["folders"]}
    assert folders["notes/reference"] == 1 and "notes/keys" not in folders, folders
    shown = client.json("list_directory", folder="notes/project")
    paths = [n["path"] for n in shown["notes"]]
    assert PUBLIC in paths and shown["total"] == len(paths) == folders["notes/project"], shown
    error, text = client.call("list_directory", folder="notes/keys")
    assert error and "Key rotation" not in text and KEYS not in text

    context = client.json("build_context", uri=f"curator://notes/{HUB}")
    assert context["note"]["path"] == HUB and "Read [public]" in context["note"]["text"]
    assert [r["path"] for r in context["related"]] == [PUBLIC]
    assert "dedupes" in context["related"][0]["text"] and context["tokens"] <= context["budget"]
    within = client.json("build_context", uri=HUB, timeframe="1d", budget=40)
    assert within["related"] == [] and within["outside_timeframe"] == 1  # created long ago
    assert within["note"]["truncated"] and within["tokens"] <= 40
    error, text = client.call("build_context", uri=f"curator://notes/{SECRET}")
    assert error and "no note or draft matches" in text and "signing key" not in text

    report = client.json("diagnostics")
    assert report["palace"]["hidden"] >= 3 and report["palace"]["notes"] >= 3
    assert report["index"]["state"] in ("built", "not built")
    assert report["check"]["findings"] == sum(report["check"]["by_severity"].values())
    for answer in (top, shown, context, within, report):
        dumped = json.dumps(answer)
        assert not [h for h in hidden if h in dumped], dumped
