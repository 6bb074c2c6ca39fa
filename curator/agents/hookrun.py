"""One hook process, as an agent tool runs it at every point of its loop (`python -m
curator.agents` and `curator hook claude-code|generic EVENT`): read the event, ask the warm
server, else answer in this process within a time budget; log the run; print the answer.

A prompt's whole process is interpreter start, this module's imports and one round trip, so
everything up to the server's answer is the standard library and curator's light modules
(finding the palace, the socket, the log). What each event says is `hooks`, imported only when
this process answers itself. Every path exits 0: a failure prints one line to stderr.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time

from curator.agents import hooklog, warm

TYPE_CHECKING = False  # typing.TYPE_CHECKING without loading typing: a hook process imports this
if TYPE_CHECKING:  # nor pathlib (see curator.model.discovery)
    from typing import Any

__all__ = ["ALIASES", "BUDGETS", "main", "render", "run_hook"]

ALIASES = {"session-start": "SessionStart", "prompt": "UserPromptSubmit", "stop": "Stop"}
BUDGETS = {"SessionStart": 8.0, "UserPromptSubmit": 4.0, "Stop": 3.0}  # seconds
CONTEXT_CAP = 9_500  # Claude Code drops additionalContext past 10,000 characters
STDIN_CAP = 1_000_000
WORKER = "curator-hook"


def _parse_event(text: str, event: str) -> dict[str, Any]:
    """The event JSON; plain text (generic tools) is taken as the prompt."""
    text = text.strip()
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {"prompt": text} if event == "UserPromptSubmit" else {}
    return value if isinstance(value, dict) else {}


def render(tool: str, event: str, lines: list[str]) -> str:
    """What the hook prints: the tool's JSON (claude-code) or the text (generic), cut to fit."""
    if not lines:
        return ""
    text = "\n".join(lines)
    if len(text) > CONTEXT_CAP:
        cut = text.rfind("\n", 0, CONTEXT_CAP - 60)
        text = text[: cut if cut > 0 else CONTEXT_CAP - 60] + "\n[memory cut to fit the cap]"
    if tool == "generic":
        return text + "\n"
    if event == "Stop":  # a warning shown to the person; never {"decision": "block"}
        return json.dumps({"systemMessage": text}) + "\n"
    return json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}})


def _budget(event: str) -> float:
    with contextlib.suppress(KeyError, ValueError):
        return float(os.environ["CURATOR_HOOK_BUDGET"])
    return BUDGETS[event]


def _site() -> None:
    """The interpreter's site step (site-packages, .pth files), when the hook was started
    without it (`python -S`, as installed): answering in this process needs the whole of
    curator and its dependencies, asking the warm server only the standard library."""
    if sys.flags.no_site:
        import site

        site.main()


def _in_process(root: str, request: dict[str, Any], result: dict[str, Any]) -> None:
    from pathlib import Path

    from curator.agents.hooks import answer
    from curator.agents.service import Memory

    try:
        result.update(answer(Memory(Path(root)), request))
    except Exception as exc:
        result.update(lines=[], items=0, problems=[hooklog.failure(exc)])


def run_hook(tool: str, event: str, stdin: str, palace: str | None) -> tuple[str, str | None]:
    """(stdout text, a one-line failure for stderr or None). Never raises, never blocks long."""
    event = ALIASES.get(event, event)
    if event not in warm.EVENTS:
        return "", f"curator hook: unknown event {event!r} (known: {', '.join(warm.EVENTS)})"
    data = _parse_event(stdin[:STDIN_CAP], event)
    if not isinstance(data.get("cwd"), str) or not data["cwd"]:
        data["cwd"] = os.getcwd()  # the project, for a tool that does not send it
    started = time.perf_counter()
    try:
        from curator.model.discovery import palace_root

        root = palace_root(palace, data["cwd"])
    except Exception as exc:
        return "", f"curator hook {event}: {hooklog.failure(exc)}"
    budget = _budget(event)
    request = {"tool": tool, "event": event, "data": data}
    deadline = time.monotonic() + budget
    result = warm.ask(root, request, budget) if warm.enabled() else None
    if result is None:  # a bad [agents] table is reported before any work (the server's
        _site()  # answer reports it as a problem): palace.toml is read only here
        try:
            from pathlib import Path

            from curator.agents.settings import load_settings

            load_settings(Path(root))
        except Exception as exc:
            return "", f"curator hook {event}: {hooklog.failure(exc)}"
    if result is None and event != "Stop":
        warm.start(root)  # for the next prompts: it keeps the palace loaded and the index open
    via = "warm"
    if result is None:  # this process answers without the index (`Memory.searcher_now`)
        via, result = "process", {}
        worker = threading.Thread(
            target=_in_process, args=(root, request, result), name=WORKER, daemon=True
        )
        worker.start()
        worker.join(max(0.0, deadline - time.monotonic()))
    ms = round((time.perf_counter() - started) * 1000, 1)
    record: dict[str, Any] = {"tool": tool, "event": event, "ms": ms, "via": via}
    if "ranked" in result:
        record["ranked"] = result["ranked"]
    if "lines" not in result:
        message = f"curator hook {event}: timed out after {budget:g} s; no memory given"
        hooklog.append(root, {**record, "items": 0, "outcome": "timeout", "detail": message})
        return "", message
    problems = [str(p) for p in result.get("problems") or []]
    lines = [str(line) for line in result.get("lines") or []]
    outcome = "error" if problems else ("ok" if lines else "empty")
    detail = "; ".join(problems)
    hooklog.append(
        root, {**record, "items": result.get("items", 0), "outcome": outcome, "detail": detail}
    )
    failure = f"curator hook {event}: {detail}" if problems else None
    return render(tool, event, lines), failure


def _read_stdin(wait: float = 2.0) -> str:
    """stdin, unless it is a terminal or stays open past `wait` seconds without ending."""
    if sys.stdin is None or sys.stdin.isatty():
        return ""
    got: list[str] = []

    def read() -> None:
        with contextlib.suppress(OSError, ValueError, UnicodeDecodeError):
            got.append(sys.stdin.read(STDIN_CAP))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(wait)
    return got[0] if got else ""


def main(tool: str, event: str, palace: str | None) -> int:
    """The process: read stdin, write stdout, one stderr line on failure, always exit 0."""
    try:
        text, failure = run_hook(tool, event, _read_stdin(), palace)
    except Exception as exc:  # the last guard: a hook never fails the agent's turn
        text, failure = "", f"curator hook {event}: internal error: {hooklog.failure(exc)}"
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.write(text)
        sys.stdout.flush()
    if failure:  # a line on the person's terminal, of text from the agent, notes or git
        from curator.model.text import one_line

        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(one_line(failure) + "\n")
            sys.stderr.flush()
    if any(t.name == WORKER and t.is_alive() for t in threading.enumerate()):
        os._exit(0)  # timed out: leave the worker to the OS, never wait for it at exit
    return 0
