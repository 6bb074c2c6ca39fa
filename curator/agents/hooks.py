"""`curator hook claude-code|generic EVENT`: memory handed to an agent at the points of its loop.

- SessionStart: where INDEX.md is and the instruction to read matching notes before working a
  fact out again; the project's stale and expired notes as warnings; the inbox count.
- UserPromptSubmit: a memory pack for the prompt (nothing when nothing clears the floor); it
  also notes the project's git state, so that Stop can tell whether the turn changed files.
- Stop: a warning (never a block) when the turn changed files but captured nothing.

`answer` runs one hook request on a loaded `Memory`: in the warm server, or in the hook's own
process when none listens (`hookrun`: the process, its time budget, its log and its output).
Other areas add lines with `register_context`: a contributor takes the `HookRun` and returns
markdown lines (or raises; the answer reports it as a problem, and the run's log says so).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import shlex
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator.agents import hooklog, turns
from curator.agents.warm import EVENTS

if TYPE_CHECKING:  # the warm path never loads a palace, nor palace.toml, in the hook's process
    from curator.agents.service import Memory
    from curator.agents.settings import AgentSettings

__all__ = ["EVENTS", "HookRun", "answer", "register_context"]

MAX_WARNINGS = 12


@dataclass
class HookRun:
    """One hook invocation: the palace, the event's JSON and what the run produced."""

    memory: Memory
    event: str
    data: dict[str, Any]
    settings: AgentSettings
    started: float = field(default_factory=time.time)
    items: int = 0
    ranked: str = ""  # UserPromptSubmit: the pack came from the "index" or the "palace" alone
    changed: bool = False  # Stop: the turn changed files in the project
    turn_started: float = 0.0  # Stop: when the turn's prompt came in
    # work the caller runs once the answer is sent (the warm server: see `answer`); None: the
    # answer does it itself
    later: list[Callable[[], None]] | None = None

    @property
    def root(self) -> Path:
        return self.memory.root

    @property
    def project(self) -> Path:
        cwd = self.data.get("cwd")
        return Path(cwd) if isinstance(cwd, str) and cwd else Path.cwd()

    @property
    def session(self) -> str:
        return session_key(self.data)


def session_key(data: dict[str, Any]) -> str:
    """The session's name in curator's state files (a digest: the id is the tool's text)."""
    raw = str(data.get("session_id") or "default")
    return hashlib.sha256(raw.encode("utf-8", "replace")).hexdigest()[:16]


Contributor = Callable[[HookRun], list[str]]
CONTRIBUTORS: dict[str, list[Contributor]] = {e: [] for e in EVENTS}


def register_context(event: str, contributor: Contributor) -> Contributor:
    """Add `contributor`'s lines to every `event` hook after the built-in ones."""
    if contributor not in CONTRIBUTORS[event]:
        CONTRIBUTORS[event].append(contributor)
    return contributor


# -- the events ------------------------------------------------------------------------------------
def session_start(run: HookRun) -> list[str]:
    from curator.search.filters import visible

    palace = run.memory.palace
    index = run.memory.index_name()
    where = f"{run.root / index}" if index else f"{run.root}"
    read = "read the notes there that match the task, or search" if index else "search it"
    mcp = mcp_configured(run.project)
    if index and any(not visible(palace, n, include_sensitive=False) for n in palace.all()):
        # the file lists notes agents may not see: point to the index as they may see it
        where = f"{run.root}"
        served = (
            f"the curator://{index} resource"
            if mcp
            else (f"`{command_prefix(run.root)} index --served`")
        )
        read = f"read its {index} as you may see it ({served}), then the notes that match the "
        read += "task, or search"
    if mcp:
        how = "the curator MCP tools search, ask, read_note, related, recent; to keep a "
        how += "lesson, capture"
    else:
        cli = command_prefix(run.root)
        how = f'`{cli} search "WORDS"`; to keep a lesson, `{cli} capture --type TYPE --name NAME`'
        how += " with the text on stdin"
    lines = [
        f"Memory palace: {where}. Before working a fact out again, {read} ({how}). Notes are "
        "hints to check against the repository; drafts are not rules.",
    ]
    project = run.project.resolve()
    scopes = {
        name
        for name in palace.config.scopes
        if (root := palace.config.scope_root(name)) is not None
        and (project == root or root in project.parents)
    }
    warned: list[str] = []
    for note in palace.notes:
        if note.scope not in scopes and note.scope != "_global":
            continue
        if not visible(palace, note, include_sensitive=False):
            continue
        marks = [f for f in palace.flags(note) if f in ("stale", "expired")]
        if marks and not note.superseded:
            warned.append(f"- {note.name} ({note.rel}) is {' and '.join(marks)}: re-verify it")
    if warned:
        lines.append("Warnings (not facts) about notes for this project:")
        lines += warned[:MAX_WARNINGS]
        if len(warned) > MAX_WARNINGS:
            lines.append(f"- ... and {len(warned) - MAX_WARNINGS} more (`curator list --stale`)")
    drafts = sum(1 for d in palace.drafts if visible(palace, d, include_sensitive=False))
    lines.append(f"Inbox: {drafts} draft(s) wait for a person's review.")
    run.items = len(warned) + 1
    return lines


def mcp_configured(project: Path) -> bool:
    """Is curator's MCP server configured for Claude Code in this project (its .mcp.json, or
    ~/.claude.json for the user or the project)? Then the context names tools, not commands."""
    places: list[Any] = []
    for path in (project / ".mcp.json", Path.home() / ".claude.json"):
        with contextlib.suppress(OSError, ValueError):
            data = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(data, dict):
                places.append(data.get("mcpServers"))
                projects = data.get("projects")
                if isinstance(projects, dict):
                    entry = projects.get(str(project)) or projects.get(str(project.resolve()))
                    places.append(entry.get("mcpServers") if isinstance(entry, dict) else None)
    for servers in places:
        if not isinstance(servers, dict):
            continue
        for name, entry in servers.items():
            if not isinstance(entry, dict):
                continue
            words = [str(entry.get("command", "")), *map(str, entry.get("args") or [])]
            if name == "curator" or ("mcp" in words and any("curator" in w for w in words)):
                return True
    return False


def command_prefix(root: Path) -> str:
    """The command that works from the agent's shell: the interpreter the hooks run (curator
    may not be on its PATH) with this palace."""
    return f"{shlex.quote(sys.executable)} -m curator --palace {shlex.quote(str(root))}"


def _exact_commands(lines: list[str], root: Path) -> list[str]:
    """Every `curator ...` command a contributor wrote, as the command that works."""
    cli = command_prefix(root)
    return [line.replace("`curator ", f"`{cli} ") for line in lines]


STOP_FOR_MODEL = (
    "curator: the last turn changed files in the project and captured nothing for memory. "
    "If you learnt something worth keeping, capture it as a draft ({how}); a person reviews "
    "drafts before they become memory."
)
STOP_FOR_PERSON = "curator: files changed, nothing captured; the agent is reminded next prompt."
TASK_REMIND_SECONDS = 1800.0  # a checkpoint not saved for this long is stale


def user_prompt(run: HookRun) -> list[str]:
    carried = turns.take(run.root, run.session)  # what the last turn's Stop left for the model
    prompt = run.data.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        return carried
    return carried + _prompt_pack(run, prompt)


def _prompt_pack(run: HookRun, prompt: str) -> list[str]:
    mark = functools.partial(turns.mark, run.root, run.session, run.project, run.started)
    marker = None
    if run.later is not None:  # after the answer is sent: its git status (tens of ms in a
        run.later.append(mark)  # big project) never takes the pack's CPU on a busy machine
    else:
        marker = threading.Thread(target=mark, daemon=True)
        marker.start()
    prompt = prompt[:2000]
    searcher = run.memory.searcher_now()  # one for the whole prompt, whichever is ready
    run.ranked = "index" if searcher.indexed else "palace"
    # one query: the pack, given only when a note it may hold shares a word with the prompt
    # (budget and floor: [agents])
    text = run.memory.pack(prompt, using=searcher, floor=run.settings.pack_floor, matched=True)
    if marker is not None:
        marker.join(timeout=0.5)
    run.items = text.count("\n> hint, not truth")
    return text.rstrip("\n").splitlines() if run.items else []


def stop(run: HookRun) -> list[str]:
    if run.data.get("stop_hook_active"):
        return []  # Claude Code is already continuing because of a stop hook
    turn = turns.read(run.root, run.session)
    if turn is None or turn.get("state") == turns.project_state(run.project):
        return []
    run.changed, run.turn_started = True, float(turn.get("started", 0))
    if turns.captured_since(run.root, turn):
        return []
    run.items = 1
    how = "the MCP `capture` tool" if mcp_configured(run.project) else "`curator capture`"
    return [STOP_FOR_MODEL.format(how=how)]  # `curator ...` becomes the exact command


# -- other areas' lines, called by name (a module not installed gives none) ------------------------
def task_lines(run: HookRun) -> list[str]:
    """The agent's task checkpoint (curator.agents.tasks_tools, issue 14)."""
    try:
        from curator.agents import tasks_tools
    except ModuleNotFoundError:
        return []
    return tasks_tools.context_lines(run.root, event=run.event)


def task_stop(run: HookRun) -> list[str]:
    if not run.changed:
        return []
    try:
        from curator.agents import tasks_tools
    except ModuleNotFoundError:
        return []
    started = datetime.fromtimestamp(run.turn_started, UTC)
    warning = tasks_tools.stop_warning(run.root, None, turn_started=started, changed_files=True)
    return [warning] if warning else []


def task_reminder(run: HookRun) -> list[str]:
    """On a prompt, the task lines only when the agent's checkpoint is stale (not saved for
    TASK_REMIND_SECONDS), at most once per that time: SessionStart (startup, resume, clear,
    compact, fork) sends them every time."""
    try:
        from curator.tasks import TaskService, default_owner
        from curator.tasks.claims import parse_time
    except ModuleNotFoundError:
        return []
    mine = TaskService(run.root).current_for(default_owner())
    saved = [t.timestamp() for h in mine if (t := parse_time(h.saved_at)) is not None]
    if not mine or (saved and run.started - max(saved) < TASK_REMIND_SECONDS):
        return []
    if not turns.once(run.root, run.session, "task-reminded", TASK_REMIND_SECONDS, run.started):
        return []
    return task_lines(run)


BUILT_IN: dict[str, list[Contributor]] = {
    "SessionStart": [session_start, task_lines],
    "UserPromptSubmit": [user_prompt, task_reminder],
    "Stop": [stop, task_stop],
}


# -- answering a hook (in the warm server, or in the hook's own process: see `hookrun`) -----
def _work(run: HookRun) -> tuple[list[str], list[str]]:
    """(lines, problems) of every contributor to the run's event."""
    lines: list[str] = []
    problems: list[str] = []
    for contributor in [*BUILT_IN[run.event], *CONTRIBUTORS[run.event]]:
        try:
            lines += contributor(run)
        except Exception as exc:  # one contributor failing must not cost the others' lines
            name = getattr(contributor, "__name__", "contributor")
            problems.append(f"{name}: {hooklog.failure(exc)}")
    if any("`curator " in line for line in lines) and not mcp_configured(run.project):
        lines = _exact_commands(lines, run.root)
    return lines, problems


def answer(
    memory: Memory, request: dict[str, Any], *, later: list[Callable[[], None]] | None = None
) -> dict[str, Any]:
    """Run one hook request on a loaded Memory (in this process or in the warm server).

    `later` (the warm server's): the work no answer waits for is added to it, for the caller
    to run once the answer is sent: a prompt's turn mark (the project's git state, which only
    the session's Stop reads; the server answers a Stop after the marks before it)."""
    event = str(request.get("event"))
    raw = request.get("data")
    data: dict[str, Any] = raw if isinstance(raw, dict) else {}
    agents = memory.palace.config.agents  # as the palace last read it
    run = HookRun(memory, event, data, agents, later=later)
    lines, problems = _work(run)
    if request.get("tool") == "claude-code" and event == "Stop" and lines:
        # what Stop prints reaches the person only: the model reads it with the next prompt
        turns.leave(memory.root, session_key(data), lines)
        lines = [STOP_FOR_PERSON]
    reply = {"lines": lines, "items": run.items, "problems": problems}
    if run.ranked:  # what the prompt's pack was ranked from (see Memory.searcher_now)
        reply["ranked"] = run.ranked
    return reply
