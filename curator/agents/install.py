"""`curator hook install|uninstall claude-code`: curator's hooks merged into Claude Code's
settings.json, touching nothing else.

Install appends one matcher group per event (SessionStart, UserPromptSubmit, Stop) whose
command is `... hook claude-code EVENT`; uninstall removes exactly those commands (and a group
or list that only held them), and nothing a person wrote. The file is written back in the
formatting it was read in (indent, key order, final newline), so install then uninstall gives
back the same bytes. Both show a unified diff before anything is written.
"""

from __future__ import annotations

import difflib
import json
import re
import shlex
import sys
from pathlib import Path
from typing import Any

from curator.agents.service import AgentRefusal

__all__ = ["Change", "plan_install", "plan_uninstall", "settings_path"]

MATCHERS = {"SessionStart": "startup|resume|clear|compact|fork"}  # every session source
TIMEOUTS = {"SessionStart": 10, "UserPromptSubmit": 6, "Stop": 5}  # seconds, above our budgets
# ours: `... -m curator.agents ... claude-code EVENT` or `curator ... hook claude-code EVENT`
_OURS = re.compile(r"(?:^|[\s/])(?:curator|-m curator(?:\.agents)?)\b.* claude-code (\w+)$")


class Change:
    """The settings file before and after; `diff()` for the person, `apply()` to write it."""

    def __init__(self, path: Path, before: str | None, after: str | None) -> None:
        self.path, self.before, self.after = path, before, after

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        return "".join(
            difflib.unified_diff(
                (self.before or "").splitlines(keepends=True),
                (self.after or "").splitlines(keepends=True),
                fromfile=str(self.path) if self.before is not None else "/dev/null",
                tofile=str(self.path) if self.after is not None else "/dev/null",
            )
        )

    def apply(self) -> None:
        from curator.fsutil import atomic_write

        if self.after is None:
            self.path.unlink(missing_ok=True)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        mode = self.path.stat().st_mode & 0o777 if self.path.exists() else 0o644
        atomic_write(self.path, self.after.encode("utf-8"), mode)


def settings_path(user: bool, project: Path) -> Path:
    return (Path.home() if user else project) / ".claude" / "settings.json"


def command(event: str, palace: str | None) -> str:
    """This interpreter's light hook entry (`python -m curator.agents`): a prompt hook must not
    load the whole command line first."""
    base = f"{shlex.quote(sys.executable)} -m curator.agents"
    if palace:
        base += f" --palace {shlex.quote(str(Path(palace).resolve()))}"
    return f"{base} claude-code {event}"


def _read(path: Path) -> tuple[str | None, dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, {}
    except (OSError, UnicodeDecodeError) as exc:
        raise AgentRefusal(f"cannot read {path}: {exc}") from None
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise AgentRefusal(f"{path} is not valid JSON ({exc}); fix it first") from None
    if not isinstance(data, dict):
        raise AgentRefusal(f"{path} does not hold a JSON object; fix it first")
    return text, data


def _style(text: str | None) -> tuple[int | str, str]:
    """(indent, final newline) of a JSON text, defaulting to Claude Code's own (2, "\\n")."""
    if not text:
        return 2, "\n"
    match = re.search(r"\n([ \t]+)\S", text)
    indent: int | str = 2
    if match:
        ws = match.group(1)
        indent = len(ws) if set(ws) == {" "} else ws
    return indent, text[len(text.rstrip()) :]


def _dump(data: dict[str, Any], before: str | None) -> str | None:
    indent, tail = _style(before)
    return json.dumps(data, indent=indent, ensure_ascii=False) + tail


def _hooks_of(data: dict[str, Any], path: Path) -> dict[str, Any]:
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise AgentRefusal(f"{path}: 'hooks' is not an object; fix it first")
    return hooks


def _is_ours(entry: Any) -> bool:
    return isinstance(entry, dict) and bool(_OURS.search(str(entry.get("command", "")).strip()))


def plan_install(path: Path, palace: str | None, events: tuple[str, ...]) -> Change:
    before, data = _read(path)
    hooks = _hooks_of(data, path)
    for event in events:
        groups = hooks.get(event, [])
        if not isinstance(groups, list):
            raise AgentRefusal(f"{path}: hooks.{event} is not a list; fix it first")
        ours = [
            g for g in groups if isinstance(g, dict) and any(map(_is_ours, g.get("hooks") or []))
        ]
        for installed in ours:  # installed before: point it at this palace, today's matcher
            for hook in installed["hooks"]:
                if _is_ours(hook):
                    hook["command"] = command(event, palace)
            if event in MATCHERS:
                installed["matcher"] = MATCHERS[event]
        if ours:
            continue
        group: dict[str, Any] = {}
        if event in MATCHERS:
            group["matcher"] = MATCHERS[event]
        group["hooks"] = [
            {
                "type": "command",
                "command": command(event, palace),
                "timeout": TIMEOUTS[event],
            }
        ]
        hooks[event] = [*groups, group]
    if hooks:
        data["hooks"] = hooks
    after = _dump(data, before)
    if before is not None and json.loads(after or "{}") == json.loads(before or "{}"):
        after = before  # nothing to add: leave the bytes alone
    return Change(path, before, after)


def plan_uninstall(path: Path) -> Change:
    before, data = _read(path)
    if before is None:
        return Change(path, None, None)
    hooks = _hooks_of(data, path)
    removed = False
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept_groups = []
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list) or not any(_is_ours(h) for h in inner):
                kept_groups.append(group)
                continue
            removed = True
            rest = [h for h in inner if not _is_ours(h)]
            if rest:
                kept_groups.append({**group, "hooks": rest})
        if kept_groups:
            hooks[event] = kept_groups
        else:
            del hooks[event]
    if not removed:
        return Change(path, before, before)
    if hooks:
        data["hooks"] = hooks
    else:
        data.pop("hooks", None)
    return Change(path, before, _dump(data, before) if data else None)
