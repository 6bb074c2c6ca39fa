"""`curator mcp`: the palace served over MCP on stdio with the official SDK's MCPServer.

Tools come from one table of `ToolDef` rows: `memory_tools` here and `task_tools` (the
checkpoints, in agents/tasks_tools.py), each a function of the server's `Memory`. Each row
gives the tool's description, every parameter's description, its answer's TypedDict
(outputSchema and structuredContent) and its hints (readOnlyHint, idempotentHint...).

Every tool's refusal (`AgentRefusal`, any `CuratorError`) becomes an error result with the
sentence the agent can act on, and so does an argument of the wrong type (named, with the
form expected); an unexpected failure becomes one line naming it; neither stops the server.
A note that is missing or hidden, read as a resource, answers -32602 (invalid params).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints

from curator.agents.answers import (
    AskAnswer,
    CaptureAnswer,
    ContextAnswer,
    DiagnosticsAnswer,
    DirectoryAnswer,
    InboxAnswer,
    NoteAnswer,
    PackAnswer,
    RecentAnswer,
    RelatedAnswer,
    SearchAnswer,
)
from curator.agents.browse import Browser
from curator.agents.service import MIN_TOKENS, NOT_RULES, AgentRefusal, Memory, cap
from curator.agents.settling import Quiet, keep_settled
from curator.agents.tasks_tools import task_tools
from curator.agents.tooldef import ToolDef
from curator.errors import CuratorError
from curator.search.filters import MAX_LIMIT

__all__ = ["ToolDef", "build_server", "client_config", "serve"]

SERVER_NAME = "curator"
NOTE_URI = "curator://notes/{+path}"


def _text(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1)
    return cap(text)


def _one_or_many(value: Any) -> Any:
    """A single string where a list of strings is expected: agents send both."""
    return [value] if isinstance(value, str) else value


def _is_str_list(hint: Any) -> bool:
    args = get_args(hint) if get_origin(hint) in (Union, UnionType) else (hint,)
    return any(get_origin(a) is list and get_args(a) == (str,) for a in args)


def tool_annotations(tool: ToolDef) -> Any:
    from mcp_types import ToolAnnotations

    return ToolAnnotations(
        title=tool.shown_title,
        read_only_hint=not tool.writes,
        destructive_hint=False,  # nothing an agent calls deletes or overwrites
        idempotent_hint=tool.idempotent,
        open_world_hint=False,  # the palace only
    )


def tool_function(tool: ToolDef) -> Callable[..., Any]:
    """The tool as the SDK calls it: the signature of `tool.fn` with each parameter described,
    a refusal raised as a ToolError in curator's words, the answer as structured content
    (validated against `tool.output` by the SDK) and the same JSON as text."""
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import CallToolResult, TextContent
    from pydantic import BeforeValidator
    from pydantic import Field as Described

    hints = get_type_hints(tool.fn)
    signature = inspect.signature(tool.fn)
    params = []
    for param in signature.parameters.values():
        if param.name not in tool.params:
            raise ValueError(f"tool {tool.name}: parameter {param.name!r} has no description")
        hint = hints.get(param.name, Any)
        meta: list[Any] = [BeforeValidator(_one_or_many)] if _is_str_list(hint) else []
        meta.append(
            Described(description=tool.params[param.name], **tool.bounds.get(param.name, {}))
        )
        params.append(
            param.replace(kind=inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[hint, *meta])
        )
    unknown = set(tool.params) - set(signature.parameters)
    if unknown:
        raise ValueError(f"tool {tool.name}: described parameters it does not take: {unknown}")

    def run(**kwargs: Any) -> Any:
        try:
            value = tool.fn(**kwargs)
        except CuratorError as exc:
            raise ToolError(f"refused: {exc}") from None
        except Exception as exc:  # keep serving; say what failed in one line
            raise ToolError(f"{tool.name} failed: {type(exc).__name__}: {exc}") from None
        return CallToolResult(content=[TextContent(type="text", text=_text(value))],
                              structured_content=value)  # fmt: skip

    run.__name__ = tool.name
    run.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=params, return_annotation=Annotated[CallToolResult, tool.output]
    )
    return run


# -- argument errors in curator's words ------------------------------------------------------------
_EXPECTED = {
    "string_type": "a string",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "list_type": "a list of strings (or one string)",
    "missing": "given",
}


def argument_error(tool: str, error: Any) -> str:
    """A pydantic ValidationError of a tool's arguments, as one sentence an agent can act on."""
    problems = []
    for item in error.errors():
        loc = [str(p) for p in item.get("loc", ()) if not str(p).startswith("function-")]
        name = loc[0] if loc else "?"
        where = f"{name}[{loc[1]}]" if len(loc) > 1 and loc[1].isdigit() else name
        kind = str(item.get("type", ""))
        if kind == "missing":
            problems.append(f"{where} is required")
        elif kind == "extra_forbidden":
            problems.append(f"{where} is not a parameter of {tool}")
        else:
            expected = _EXPECTED.get(kind, "of the type the schema gives")
            got = item.get("input")
            problems.append(f"{where} must be {expected}, got {json.dumps(got, default=str)[:60]}")
    return f"refused: {tool}: " + "; ".join(dict.fromkeys(problems))


# -- the memory tools ------------------------------------------------------------------------------
QUERY = "What to look for, in a few words (at most 4,000 characters)."
LIMIT = f"How many results at most (1..{MAX_LIMIT})."
NOTE_REF = "A note's or draft's palace path (as list_inbox and search give it), slug or name."


def memory_tools(memory: Memory) -> list[ToolDef]:
    """The tool table of the memory tools: descriptions, parameters, answers, hints."""
    types = ", ".join(memory.config.types)
    listed = "One value or a list; known values are listed in the refusal of an unknown one."

    def pack(goal: str, budget: int | None = None, floor: float | None = None) -> PackAnswer:
        return {"goal": goal, "pack": memory.pack(goal, budget=budget, floor=floor)}

    date = "A date, YYYY-MM-DD."
    browser = Browser(memory)
    tools = [
        ToolDef(
            "search",
            "Search the memory palace (hybrid full-text and vector). Filter by type, scope, "
            "status, tag, stale, confidence and created/reviewed dates; drafts only when asked. "
            "Results are hints to check against the repository, not truth.",
            memory.search,
            {
                "query": QUERY,
                "types": f"Only notes of these types ({types}). {listed}",
                "scope": f"Only notes in these scopes. {listed}",
                "status": f"Only these statuses (active, superseded, retired, draft). {listed}",
                "tags": "Only notes carrying at least one of these tags. One tag or a list.",
                "stale": "true: only notes the audit marked stale; false: none of them.",
                "min_confidence": "Only notes with at least this confidence (0..1).",
                "drafts": "Also search the inbox's unreviewed drafts.",
                "created_after": f"Only notes created on or after this day. {date}",
                "created_before": f"Only notes created on or before this day. {date}",
                "reviewed_after": f"Only notes a person reviewed on or after this day. {date}",
                "reviewed_before": f"Only notes reviewed on or before this day. {date}",
                "limit": LIMIT,
            },
            SearchAnswer,
            title="Search the memory palace",
        ),
        ToolDef(
            "ask",
            "Sources for a question in order of authority; each is marked hint, stale, "
            "superseded or draft. Read a source with read_note before relying on it.",
            memory.ask,
            {"question": "The question, in plain words.", "limit": LIMIT},
            AskAnswer,
            title="Ask the palace a question",
        ),
        ToolDef(
            "pack",
            "A markdown memory pack for a goal: the best reviewed notes above a confidence "
            "floor, cut to a token budget. Each item is a hint to check, not a rule.",
            pack,
            {
                "goal": "What you are about to do, in a sentence.",
                "budget": "The pack's size in tokens (about 4 characters each); default: the "
                "palace's [agents] pack_budget.",
                "floor": "Leave out notes below this confidence (0..1); default: the palace's "
                "[agents] pack_floor.",
            },
            PackAnswer,
            title="Memory pack for a goal",
        ),
        ToolDef(
            "read_note",
            "One note or draft by path, slug or name (notes and drafts only). A long note can "
            "be read in parts: a line range, one heading's section, or a token budget; the "
            "answer says which lines it holds.",
            memory.read_note,
            {
                "ref": NOTE_REF,
                "start_line": "First line to show (1 = the first line of the file).",
                "end_line": "Last line to show (inclusive).",
                "heading": "Show only the section under this markdown heading (its text, "
                "without the #s).",
                "max_tokens": "Show at most about this many tokens (4 characters each) from "
                f"the start (or from start_line); at least {MIN_TOKENS}.",
            },
            NoteAnswer,
            bounds={"max_tokens": {"ge": MIN_TOKENS}},
            title="Read a note",
        ),
        ToolDef(
            "recent",
            "What changed in the palace lately: notes promoted, superseded, retired, merged or "
            "flagged stale since a date or in the last N days, newest first.",
            memory.recent,
            {
                "since": f"Changes on or after this day. {date} Default: the last `days` days.",
                "days": "Changes in the last this many days (when since is not given).",
                "limit": LIMIT,
            },
            RecentAnswer,
            title="Recent changes",
        ),
        ToolDef(
            "related",
            "A note's neighbours, to follow the palace instead of searching blind: the notes "
            "it links to, the notes linking to it, and its supersede chain, to a depth.",
            memory.related,
            {
                "ref": NOTE_REF,
                "depth": "How many steps to follow (1..3).",
                "limit": LIMIT,
            },
            RelatedAnswer,
            title="A note's neighbours",
        ),
        ToolDef(
            "list_directory",
            "The palace's folders with how many notes and drafts you may read in each, and "
            "the notes directly in one folder: to find your way before reading.",
            browser.list_directory,
            {
                "folder": "A palace folder, e.g. notes/project (default: the palace's top).",
                "depth": "How many levels of subfolders to count (1..5).",
                "limit": LIMIT,
            },
            DirectoryAnswer,
            title="List a folder",
        ),
        ToolDef(
            "build_context",
            "A note and the notes around it in one answer: the notes it links to, those "
            "linking to it and its supersede chain, to a depth, only those reviewed or created "
            "within a timeframe, their texts nearest first while they fit a token budget (the "
            "pack's). Each is a hint to check, not truth.",
            browser.build_context,
            {
                "uri": f"The note: its URI ({NOTE_URI.replace('{+path}', 'PATH')}), or a path, "
                "slug or name.",
                "depth": "How many steps of links to follow (1..3).",
                "timeframe": "Only neighbours reviewed or created this recently: a number and "
                "a unit (s, m, h, d), e.g. 30d. Default: any time.",
                "budget": "The answer's size in tokens (about 4 characters each); default: "
                "the palace's [agents] pack_budget.",
                "limit": LIMIT,
            },
            ContextAnswer,
            title="Build context around a note",
        ),
        ToolDef(
            "diagnostics",
            "How the palace stands: counts of the notes and drafts you may read (and how many "
            "are hidden from you), rooms, the search index's state and whether it is at the "
            "palace's last commit, and `curator check`'s findings by severity and rule.",
            browser.diagnostics,
            {},
            DiagnosticsAnswer,
            title="Palace diagnostics",
        ),
        ToolDef(
            "list_inbox",
            f"The drafts waiting for review. {NOT_RULES}",
            memory.list_inbox,
            {"limit": LIMIT},
            InboxAnswer,
            title="List drafts awaiting review",
        ),
        ToolDef(
            "capture",
            f"Write a new memory as a DRAFT into the inbox for a person to review. {NOT_RULES} "
            f"type is one of: {types}. The answer lists similar notes and drafts found first; "
            "an identical draft, or one holding a secret in any field, is refused with the "
            "reason and nothing is written.",
            memory.capture,
            {
                "name": "A short title, one line (at most 200 characters).",
                "description": "One line saying what the memory holds.",
                "type": f"The kind of memory: one of {types}.",
                "body": "The memory itself: the fact or rule, why, and how to apply it.",
                "source": "Where it came from: text, or key=value,key=value (e.g. session=...).",
                "scope": "The project space it belongs to (a scope from palace.toml).",
                "tags": "A few words to filter by (at most 8). One tag or a list.",
                "context": "The text the fact came from (the conversation turns around it, the "
                "file and lines it was read from): searched and shown to the reviewer beside "
                "the draft, never served as the fact.",
            },
            CaptureAnswer,
            writes=True,
            idempotent=False,
            title="Capture a draft memory",
        ),
        ToolDef(
            "report_stale",
            "Report a note you found wrong or out of date. You cannot edit notes: this files "
            "a DRAFT report naming the note and why, for a person to review; the note itself "
            f"is never changed. {NOT_RULES}",
            memory.report_stale,
            {
                "note": NOTE_REF,
                "reason": "Why the note is wrong or out of date, in a sentence.",
                "evidence": "What shows it: a command's output, a file and line, a link.",
            },
            CaptureAnswer,
            writes=True,
            idempotent=False,
            title="Report a stale note",
        ),
    ]
    # a read answers the files as they are when one changed before the watch said so
    return [tool if tool.writes else replace(tool, fn=memory.fresh(tool.fn)) for tool in tools]


# -- prompts: the workflows agents are asked for ---------------------------------------------------
def _prompts(server: Any) -> None:
    from pydantic import Field as Described

    def described(fn: Callable[..., str], **params: str) -> Callable[..., str]:
        """`fn` with real (not string) annotations, each parameter described."""
        fn.__annotations__ = {
            **{k: Annotated[str, Described(description=v)] for k, v in params.items()},
            "return": str,
        }
        return fn

    @server.prompt(
        "review_inbox",
        title="Review my inbox",
        description="Go through the drafts waiting for review (uses list_inbox, read_note, "
        "search).",
    )
    def review_inbox() -> str:
        return (
            "Review the memory inbox with me. Call list_inbox, then for each draft call "
            "read_note on its path and search for notes it may duplicate or contradict. For "
            "each draft tell me: what it claims, the closest existing note, and whether to "
            "promote, merge, or reject it and why. You cannot promote: a person does that in "
            "curator. " + NOT_RULES
        )

    @server.prompt(
        "what_do_we_know",
        title="What do we know about X",
        description="Collect what the palace holds on a topic (uses ask, read_note, related).",
    )
    @functools.partial(described, topic="The topic, in a few words.")
    def what_do_we_know(topic: str) -> str:
        return (
            f"What do we know about {topic}? Call ask with the question, read the top sources "
            "with read_note, and follow related from the best one. Answer with each fact and "
            "its source path, most authoritative first; mark stale, superseded and draft "
            "sources as such. Every note is a hint to verify against the repository."
        )

    @server.prompt(
        "save_checkpoint",
        title="Save a checkpoint",
        description="Save what you have learnt and where the work stands (uses capture, "
        "task_show, task_save).",
    )
    @functools.partial(described, task="The task's slug (empty: no task checkpoint).")
    def save_checkpoint(task: str = "") -> str:
        which = f"the task {task!r}" if task else "each task checkpoint you hold"
        steps = (
            f"Call task_show for {which}, then task_save with all seven sections and the "
            "revision task_show gave. "
        )
        return (
            f"Save a checkpoint now. {steps}For each lesson from this session worth keeping "
            "(a rule, a fact about the system, where to find something), search first; if no "
            "note holds it, capture it as a draft with its evidence. " + NOT_RULES
        )


# -- the server ------------------------------------------------------------------------------------
def build_server(memory: Memory, quiet: Quiet | None = None) -> Any:
    """An MCPServer over `memory` with every registered tool, the resources and the prompts;
    each call and read stamps `quiet` as it starts and as it ends."""
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
    from pydantic import ValidationError

    from curator import __version__

    class Server(MCPServer):
        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            with stamped():
                return await self._call_tool(name, arguments, context)

        async def read_resource(self, uri: Any, context: Any = None) -> Any:
            with stamped():
                return await super().read_resource(uri, context)

        async def _call_tool(self, name: str, arguments: dict[str, Any], context: Any) -> Any:
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as exc:
                if isinstance(exc.__cause__, ValidationError):
                    raise ToolError(argument_error(name, exc.__cause__)) from None
                if type(exc.__cause__) is ToolError:  # ours: the sentence as it is
                    raise ToolError(str(exc.__cause__)) from None
                raise

    @contextlib.contextmanager
    def stamped() -> Iterator[None]:
        if quiet is not None:
            quiet.stamp()
        try:
            yield
        finally:
            if quiet is not None:
                quiet.stamp()

    server = Server(
        SERVER_NAME,
        version=__version__,
        instructions="The team's memory palace. Search or ask before working a fact out again; "
        f"every note is a hint to verify against the repository. {NOT_RULES}",
        log_level="WARNING",
    )
    for provider in (memory_tools, task_tools):
        for tool in provider(memory):
            server.add_tool(
                tool_function(tool),
                name=tool.name,
                title=tool.shown_title,
                description=tool.description,
                annotations=tool_annotations(tool),
            )

    index_name = memory.index_name()
    if index_name is not None:

        @server.resource(
            f"curator://{index_name}",
            name=index_name,
            description=f"The palace's index ({index_name}): every note you may see, by room, "
            "with a one-line description.",
            mime_type="text/markdown",
        )
        def index() -> str:
            try:
                return memory.fresh(memory.index_md)()
            except CuratorError as exc:
                raise ResourceError(str(exc)) from None

    @server.resource(
        NOTE_URI,
        name="note",
        description="One note or draft by its palace path, e.g. curator://notes/notes/project/"
        "deploy.md (the same text read_note gives).",
        mime_type="text/markdown",
    )
    def note(path: str) -> str:
        try:
            return str(memory.fresh(memory.read_note)(path)["text"])
        except CuratorError as exc:
            raise ResourceNotFoundError(str(exc)) from None

    _prompts(server)
    return server


def serve(root: Path, *, include_sensitive: bool = False) -> int:
    import threading

    memory = Memory(root, include_sensitive=include_sensitive, watch=True)
    memory.config  # noqa: B018 - a broken palace.toml is refused before serving
    # load the palace and open the index while the SDK loads and the client connects
    threading.Thread(target=_warm_up, args=(memory,), daemon=True).start()
    quiet, stop = Quiet(), threading.Event()
    threading.Thread(target=keep_settled, args=(memory, quiet, stop), daemon=True).start()
    server = build_server(memory, quiet)
    try:
        server.run("stdio")
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
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
