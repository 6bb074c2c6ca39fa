"""Task checkpoints for agents (issue 14): the task_* MCP tools and the hooks' context lines.

The tools are registered with the MCP server's registry when this module is imported; the
hook functions return plain text for the hooks module to add to the agent's context. Both
keep the store's rules: a change names the revision the agent read (task_show tells it),
only the holder saves, and a refusal names who holds the task.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from curator.agents.answers import TaskChangeAnswer, TaskRequestAnswer, TaskShowAnswer
from curator.agents.service import MAX_ANSWER_CHARS
from curator.agents.tooldef import ToolDef
from curator.tasks import TaskService, default_owner
from curator.tasks.checkpoint import OPEN_STATUSES
from curator.tasks.claims import age_text, holder, now_utc, parse_time
from curator.tasks.store import REQUESTS_NAME, rev_name

RULE = (
    "Before you start on a request from the person, record it word for word: "
    "`curator task request {slug}` with their exact words on stdin (or the task_request tool)."
)
SAVE_HINT = (
    "Save a new revision (`curator task save {slug}`, seven sections on stdin, or task_save) "
    "after each significant change, before you wait or hand over, and before you end or compact."
)
MAX_SHOWN = 3
TASK = "The task's slug."
REVISION = "The revision you last read or saved (task_show gives it)."
OWNER = "Who you are (default: this machine's user); the holder of a claim."


def context_lines(
    root: Path, owner: str | None = None, *, now: datetime | None = None, event: str = ""
) -> list[str]:
    """SessionStart / UserPromptSubmit: the agent's current checkpoint(s) with size and last
    update, how to keep it, and the rule to record each request word for word first."""
    owner, now = owner or default_owner(), now or now_utc()
    svc = TaskService(root)
    mine = svc.current_for(owner)
    if not mine:
        if event == "UserPromptSubmit":
            return []
        return [
            f"You ({owner}) hold no task checkpoint in {svc.store.dir}. For work that spans "
            "sessions start one: `curator task new SLUG --objective TEXT`."
        ]
    lines: list[str] = []
    for header in mine[:MAX_SHOWN]:
        path = svc.store.revision_path(header.task, header.revision)
        size = path.stat().st_size
        saved = parse_time(header.saved_at)
        ago = f", {age_text((now - saved).total_seconds())} ago" if saved else ""
        flag = " (unverified: a hook wrote it)" if header.unverified else ""
        if holder(header, now) is None:
            flag += (
                f" Your claim lapsed at {header.expires_at}: claim it again with "
                f"`curator task claim {header.task} --revision {header.revision}`."
            )
        lines.append(
            f"Your task checkpoint: {path} ({size} bytes, saved {header.saved_at}{ago}, "
            f"revision {header.revision}, {header.status}){flag}. "
            f"Next action: {header.next_action or '(none recorded)'}"
        )
    slug = mine[0].task
    lines.append(SAVE_HINT.format(slug=slug))
    lines.append(RULE.format(slug=slug))
    if len(mine) > MAX_SHOWN:
        lines.append(f"(and {len(mine) - MAX_SHOWN} more tasks: `curator task list`)")
    return lines


def stop_warning(
    root: Path, owner: str | None, *, turn_started: datetime, changed_files: bool
) -> str | None:
    """Stop: a warning (the hook never blocks) when the turn changed files in the project but
    saved no checkpoint of a task the agent holds."""
    if not changed_files:
        return None
    owner = owner or default_owner()
    mine = TaskService(root).current_for(owner)
    stale = [h for h in mine if (parse_time(h.saved_at) or turn_started) < turn_started]
    if not stale:
        return None
    names = ", ".join(h.task for h in stale[:MAX_SHOWN])
    return (
        f"This turn changed files but saved no checkpoint of {names}: save one with "
        f"`curator task save {stale[0].task}` before you end."
    )


# -- MCP tools -------------------------------------------------------------------------------------
def _show(svc: TaskService, slug: str, owner: str, revision: int | None) -> dict[str, Any]:
    """task_show's answer, always whole JSON within one answer's limit: a section or request
    too long for it is cut (the answer says which, and where the full text is), never left
    out; a hand edit of requests.md is a warning, the requests around it are still served."""
    cp = svc.show(slug, owner=owner, revision=revision)
    requests, warnings = svc.read_requests(slug)
    path = svc.store.rel(slug, rev_name(cp.header.revision))
    answer: dict[str, Any] = {
        "path": path,
        "header": cp.header.as_dict(),
        "sections": dict(cp.sections),
        "requests": [
            {"number": r.number, "at": r.at, "by": r.by, "words": r.text} for r in requests
        ],
        "note": "Pass this revision to task_claim / task_save / task_release: a change made "
        "from an older view is refused.",
    }
    if warnings:
        answer["warnings"] = [str(w) for w in warnings[:MAX_SHOWN]]
        if len(warnings) > MAX_SHOWN:
            answer["warnings"].append(f"(and {len(warnings) - MAX_SHOWN} more)")
    return _fit(answer, path, svc.store.rel(slug, REQUESTS_NAME))


_ROOM = MAX_ANSWER_CHARS - 800  # left for the notes on what was cut
_CUT = " […cut]"


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, indent=1))


def _fit(answer: dict[str, Any], path: str, requests_path: str) -> dict[str, Any]:
    """`answer` cut to fit one answer: the oldest requests left out if even their headings do
    not fit, then each text (section or request) given an equal share of the room, the room a
    shorter one leaves going to the longer ones. Every section keeps a share, so the next
    action and the checks are always there."""
    if _size(answer) <= _ROOM:
        return answer
    requests = answer["requests"]
    texts: list[tuple[dict[str, Any], str, str]] = [
        (answer["sections"], key, key) for key in answer["sections"]
    ] + [(r, "words", f"request {r['number']}") for r in requests]
    originals = [box[field] for box, field, _ in texts]
    for box, field, _ in texts:
        box[field] = ""
    dropped = 0
    while _size(answer) > _ROOM // 2 and len(answer["requests"]) > 0:
        dropped += max(1, len(answer["requests"]) // 2)  # the oldest half
        answer["requests"] = requests[dropped:]
    room = _ROOM - _size(answer)
    kept_requests = {id(r) for r in answer["requests"]}
    order = sorted(
        (
            i
            for i, (box, _, _) in enumerate(texts)
            if box is answer["sections"] or id(box) in kept_requests
        ),
        key=lambda i: _size(originals[i]),
    )
    cut: list[str] = []  # the sections cut, by name
    cut_requests = 0
    for left, i in zip(range(len(order), 0, -1), order, strict=True):
        box, field, label = texts[i]
        text, share = originals[i], room // left
        if _size(text) > share:
            kept = text[: max(0, share - len(_CUT))]
            while kept and _size(kept + _CUT) > share:
                kept = kept[: len(kept) * 3 // 4]
            if box is answer["sections"]:
                cut.append(f"{label} ({len(kept)} of {len(text)} characters)")
            else:
                cut_requests += 1
            text = kept + _CUT
        box[field] = text
        room -= _size(text)
    notes = []
    if cut:
        notes.append(f"cut to fit one answer: {', '.join(cut)}; the full text is in {path}")
    if cut_requests:
        notes.append(f"{cut_requests} requests cut ([…cut]): read {requests_path}")
    if dropped:
        notes.append(f"the oldest {dropped} requests are not shown: read {requests_path}")
    answer["cut"] = "; ".join(notes)
    return answer


def task_tools(memory: Any) -> list[ToolDef]:
    """The five task tools over `memory`'s palace. One function: each tool closes over the
    palace root and is a few lines; the SDK reads each one's signature for its schema."""
    root = Path(memory.root)

    def task_show(task: str, revision: int | None = None, owner: str | None = None) -> Any:
        return _show(TaskService(root), task, owner or default_owner(), revision)

    def task_save(
        task: str,
        revision: int,
        objective: str,
        environment: str,
        state: str,
        next_action: str,
        checks: str,
        sources: str,
        risks: str,
        status: str | None = None,
        owner: str | None = None,
    ) -> Any:
        sections = {
            "objective": objective,
            "environment": environment,
            "state": state,
            "next_action": next_action,
            "checks": checks,
            "sources": sources,
            "risks": risks,
        }
        svc = TaskService(root)
        who = owner or default_owner()
        return svc.save(task, who, sections, base=revision, status=status).as_dict()

    def task_claim(
        task: str, revision: int, take_over: bool = False, owner: str | None = None
    ) -> Any:
        svc = TaskService(root)
        who = owner or default_owner()
        return svc.claim(task, who, base=revision, take_over=take_over).as_dict()

    def task_release(task: str, revision: int, owner: str | None = None) -> Any:
        return TaskService(root).release(task, owner or default_owner(), base=revision).as_dict()

    def task_request(task: str, words: str, owner: str | None = None) -> Any:
        request, committed = TaskService(root).request(
            task, owner or default_owner(), words.encode("utf-8", "surrogatepass")
        )
        return {"task": task, "request": request.number, "at": request.at, "commit": committed.sha}

    return [
        ToolDef(
            "task_show",
            "Your task checkpoint (newest revision unless you ask for one): objective, "
            "environment, where the work stands, the exact next action, checks that remain, "
            "sources, risks, and the person's requests word for word. Read it after a restart, "
            "a compaction or a hand-over, before anything else.",
            task_show,
            {"task": TASK, "revision": "A revision number (default: the newest).", "owner": OWNER},
            TaskShowAnswer,
            title="Show a task checkpoint",
        ),
        ToolDef(
            "task_save",
            "Save a new checkpoint revision of a task you hold, all seven sections. Pass the "
            "revision you last read or saved; a save from an older view or from someone who "
            "does not hold the task is refused. Save after each significant change, before "
            "waiting or handing over, and before ending or compacting.",
            task_save,
            {
                "task": TASK,
                "revision": REVISION,
                "objective": "What the task is for, and what done looks like.",
                "environment": "Where the work happens: repository, branch, machine, tools.",
                "state": "Where the work stands now: done, in progress, found.",
                "next_action": "The exact next step, so a fresh session can take it.",
                "checks": "The checks that remain before the task is done.",
                "sources": "Files, links and notes the work relies on.",
                "risks": "What could go wrong, and what not to do.",
                "status": f"{' or '.join(OPEN_STATUSES)} (default: unchanged).",
                "owner": OWNER,
            },
            TaskChangeAnswer,
            title="Save a task checkpoint",
            writes=True,
            idempotent=False,
        ),
        ToolDef(
            "task_claim",
            "Take ownership of a task nobody holds (pass the revision you read). Someone "
            "else's claim is refused until it lapses; then take_over=true takes it over, and "
            "the history records both owners.",
            task_claim,
            {
                "task": TASK,
                "revision": REVISION,
                "take_over": "true: take over a claim that lapsed.",
                "owner": OWNER,
            },
            TaskChangeAnswer,
            title="Claim a task",
            writes=True,
            idempotent=False,
        ),
        ToolDef(
            "task_release",
            "Hand a task you hold back (pass the revision you read), e.g. before you stop.",
            task_release,
            {"task": TASK, "revision": REVISION, "owner": OWNER},
            TaskChangeAnswer,
            title="Release a task",
            writes=True,
            idempotent=False,
        ),
        ToolDef(
            "task_request",
            "Record a request from the person in their exact words, before you start on it, "
            "so it survives compaction. Give the words unchanged.",
            task_request,
            {"task": TASK, "words": "The person's request, word for word.", "owner": OWNER},
            TaskRequestAnswer,
            title="Record a request word for word",
            writes=True,
            idempotent=False,
        ),
    ]
