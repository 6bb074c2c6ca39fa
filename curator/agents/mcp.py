"""`curator mcp`: the palace served over MCP on stdio with the official SDK's MCPServer.

Tools come from a small explicit registry: `TOOL_PROVIDERS` is a list of functions taking the
server's `Memory` and returning `ToolDef`s; this module adds the memory tools, and another
area (tasks) appends its own provider with `register_tools(provider)` at import time of its
module. Every tool's refusal (`AgentRefusal`, any `CuratorError`) becomes an error result
with the sentence the agent can act on; an unexpected failure becomes one line naming it;
neither stops the server, and the SDK answers malformed requests with JSON-RPC errors.
"""

from __future__ import annotations

import contextlib
import functools
import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from curator.agents.service import NOT_RULES, AgentRefusal, Memory, cap
from curator.errors import CuratorError

__all__ = [
    "TOOL_PROVIDERS",
    "ToolDef",
    "build_server",
    "client_config",
    "register_tools",
    "serve",
]

SERVER_NAME = "curator"
NOTE_URI = "curator://notes/{+path}"
INDEX_URI = "curator://INDEX.md"


@dataclass(frozen=True)
class ToolDef:
    name: str
    description: str
    fn: Callable[..., Any]  # keyword arguments with type hints (the SDK derives the schema)


ToolProvider = Callable[[Memory], Iterable[ToolDef]]
TOOL_PROVIDERS: list[ToolProvider] = []


def register_tools(provider: ToolProvider) -> ToolProvider:
    """Add a provider of tools to every server built after this call (usable as a decorator)."""
    if provider not in TOOL_PROVIDERS:
        TOOL_PROVIDERS.append(provider)
    return provider


def _answer(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1)
    return cap(text)


def _guarded(name: str, fn: Callable[..., Any]) -> Callable[..., str]:
    """The tool as the SDK calls it: refusals and failures become ToolError messages."""
    from mcp.server.mcpserver.exceptions import ToolError

    @functools.wraps(fn)
    def run(**kwargs: Any) -> str:
        try:
            return _answer(fn(**kwargs))
        except CuratorError as exc:
            raise ToolError(f"refused: {exc}") from None
        except Exception as exc:  # keep serving; say what failed in one line
            raise ToolError(f"{name} failed: {type(exc).__name__}: {exc}") from None

    return run


# -- the memory tools ------------------------------------------------------------------------------
def memory_tools(memory: Memory) -> list[ToolDef]:
    """The Memory's methods, as they are: their signatures are the tools' input schemas."""
    types = ", ".join(memory.config.types)
    return [
        ToolDef(
            "search",
            "Search the memory palace (hybrid full-text and vector). Filters: types, scope, "
            "status, stale, min_confidence, drafts. Results are hints to check against the "
            "repository, not truth.",
            memory.search,
        ),
        ToolDef(
            "ask",
            "Sources for a question in order of authority; each is marked hint, stale, "
            "superseded or draft. Read a source with read_note before relying on it.",
            memory.ask,
        ),
        ToolDef(
            "pack",
            "A markdown memory pack for a goal: the best reviewed notes above a confidence "
            "floor, cut to a token budget. Each item is a hint to check, not a rule.",
            memory.pack,
        ),
        ToolDef(
            "read_note",
            "One note or draft by slug, name or palace path (notes/ and inbox/ only).",
            memory.read_note,
        ),
        ToolDef("list_inbox", f"The drafts waiting for review. {NOT_RULES}", memory.list_inbox),
        ToolDef(
            "capture",
            f"Write a new memory as a DRAFT into the inbox for a person to review. {NOT_RULES} "
            f"type is one of: {types}. The answer lists similar notes and drafts found first; "
            "an identical draft, or one holding a secret, is refused with the reason.",
            memory.capture,
        ),
        ToolDef(
            "report_stale",
            "Report a note you found wrong or out of date: files a DRAFT naming the note and "
            f"why. The note itself is never edited. {NOT_RULES}",
            memory.report_stale,
        ),
    ]


register_tools(memory_tools)


# -- the server ------------------------------------------------------------------------------------
def build_server(memory: Memory) -> Any:
    """An MCPServer over `memory` with every registered tool and the palace resources."""
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ResourceError

    with contextlib.suppress(ModuleNotFoundError):  # the task_* tools register on import
        from curator.agents import tasks_tools  # noqa: F401
    server = MCPServer(
        SERVER_NAME,
        instructions="The team's memory palace. Search or ask before working a fact out again; "
        f"every note is a hint to verify against the repository. {NOT_RULES}",
        log_level="WARNING",
    )
    for provider in TOOL_PROVIDERS:
        for tool in provider(memory):
            server.add_tool(
                _guarded(tool.name, tool.fn),
                name=tool.name,
                description=tool.description,
                structured_output=False,
            )

    @server.resource(INDEX_URI, name="INDEX.md", mime_type="text/markdown")
    def index() -> str:
        try:
            return memory.index_md()
        except CuratorError as exc:
            raise ResourceError(str(exc)) from None

    @server.resource(NOTE_URI, name="note", mime_type="text/markdown")
    def note(path: str) -> str:
        try:
            return str(memory.read_note(path)["text"])
        except CuratorError as exc:
            raise ResourceError(str(exc)) from None

    return server


def serve(root: Path, *, include_sensitive: bool = False) -> int:
    import threading

    memory = Memory(root, include_sensitive=include_sensitive, watch=True)
    memory.config  # noqa: B018 - a broken palace.toml is refused before serving
    # load the palace and open the index while the SDK loads and the client connects
    threading.Thread(target=_warm_up, args=(memory,), daemon=True).start()
    server = build_server(memory)
    try:
        server.run("stdio")
    except KeyboardInterrupt:
        pass
    finally:
        memory.close()
    return 0


def _warm_up(memory: Memory) -> None:
    try:
        memory.searcher  # noqa: B018
    except Exception as exc:  # the tools report it on their first call
        print(f"curator mcp: the search index could not be opened: {exc}", file=sys.stderr)


# -- registering the server with agent tools ------------------------------------------------------
CLIENTS = ("claude-code", "claude-desktop", "cursor")


def command_line(palace: Path | None, include_sensitive: bool = False) -> list[str]:
    """How an agent tool should start the server: this interpreter's curator, absolute."""
    args = [sys.executable, "-m", "curator"]
    if palace is not None:
        args += ["--palace", str(palace)]
    args.append("mcp")
    if include_sensitive:
        args.append("--include-sensitive")
    return args


def client_config(client: str, palace: Path | None) -> dict[str, Any]:
    """The JSON snippet that registers the server with `client`."""
    if client not in CLIENTS:
        raise AgentRefusal(f"unknown client {client!r} (known: {', '.join(CLIENTS)})")
    command, *args = command_line(palace)
    entry: dict[str, Any] = {"command": command, "args": args}
    if client == "claude-code":
        entry = {"type": "stdio", **entry}
    return {"mcpServers": {SERVER_NAME: entry}}
