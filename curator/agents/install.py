"""`curator hook install|uninstall claude-code`: curator's hooks added to Claude Code's
settings.json as text, touching no other byte.

Install inserts one matcher group per event (SessionStart, UserPromptSubmit, Stop) into the
JSON text: after the last item of the array (or object) it joins, in that item's own
indentation and line ends, so no line of the user's is reflowed. Curator's entries are known
by the exact command line install writes (`PYTHON -S .../curator/agents/__main__.py [--palace
P] claude-code EVENT`, under that EVENT's key; or `PYTHON -m curator.agents ...`, as it wrote
before); a command of the user's, whatever it is called, is never
touched and never taken for curator's. Uninstall takes curator's entries out again: of the
texts the removal could leave, it keeps the one from which install would have made the file
as it is, so install then uninstall gives back the same bytes (a file curator created goes
away). When the file was edited since, only curator's entries go. Both show a unified diff
before anything is written, and write through a symbolic link, never over it.
"""

from __future__ import annotations

import difflib
import json
import re
import shlex
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from curator.agents.hooks import EVENTS
from curator.agents.service import AgentRefusal

__all__ = ["Change", "command", "is_ours", "plan_install", "plan_uninstall", "settings_path"]

MATCHERS = {"SessionStart": "startup|resume|clear|compact|fork"}  # every session source
TIMEOUTS = {"SessionStart": 10, "UserPromptSubmit": 6, "Stop": 5}  # seconds, above our budgets
_WS = " \t\r\n"
ENTRY = Path(__file__).resolve().with_name("__main__.py")  # the hook entry, run by its path


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
        from curator.fsutil import remove_user_file, write_user_file

        if self.after is None:
            remove_user_file(self.path)
        else:
            write_user_file(self.path, self.after.encode("utf-8"))


def settings_path(user: bool, project: Path) -> Path:
    return (Path.home() if user else project) / ".claude" / "settings.json"


def command(event: str, palace: str | None) -> str:
    """This interpreter running the light hook entry (`curator/agents/__main__.py`) by its path
    without the site step (`-S`): a prompt's process must not load the whole command line, nor
    wait on site-packages' start-up files, to ask the warm server (it takes the site step
    itself when it answers alone)."""
    base = f"{shlex.quote(sys.executable)} -S {shlex.quote(str(ENTRY))}"
    if palace:
        base += f" --palace {shlex.quote(str(Path(palace).resolve()))}"
    return f"{base} claude-code {event}"


def is_ours(entry: Any, event: str) -> bool:
    """Whether a hook entry under `event` is one install wrote: a command entry whose command
    line is exactly `command(event, ...)` for some interpreter, installation and palace, or
    what install wrote before (`PYTHON -m curator.agents ...`, replaced on install)."""
    if not isinstance(entry, dict) or entry.get("type") != "command":
        return False
    cmd = entry.get("command")
    if not isinstance(cmd, str):
        return False
    try:
        argv = shlex.split(cmd)
    except ValueError:
        return False
    entry_point = argv[1:3] == ["-m", "curator.agents"] or (
        len(argv) > 2 and argv[1] == "-S" and Path(argv[2]).parts[-3:] == ENTRY.parts[-3:]
    )
    if len(argv) not in (5, 7) or not entry_point:
        return False
    if len(argv) == 7 and argv[3] != "--palace":
        return False
    return argv[-2:] == ["claude-code", event] and shlex.join(argv) == cmd


def _group(event: str, cmd: str) -> dict[str, Any]:
    group: dict[str, Any] = {}
    if event in MATCHERS:
        group["matcher"] = MATCHERS[event]
    group["hooks"] = [{"type": "command", "command": cmd, "timeout": TIMEOUTS[event]}]
    return group


# -- the JSON text: where each item is -------------------------------------------------------
@dataclass(frozen=True)
class _Item:
    start: int  # the key (object) or the value (array)
    end: int  # just after the value
    key: str | None
    value: int  # where the value starts


@dataclass(frozen=True)
class _Box:
    open: int  # index of "{" or "["
    close: int  # index of "}" or "]"
    items: tuple[_Item, ...]

    def last(self, key: str) -> tuple[int, _Item] | None:
        """The member json.loads keeps for `key` (the last one)."""
        found = [(i, it) for i, it in enumerate(self.items) if it.key == key]
        return found[-1] if found else None


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _box(text: str, at: int) -> _Box:
    """The object or array starting at `at` of a text json.loads accepted."""
    decoder = json.JSONDecoder()
    closer = "}" if text[at] == "{" else "]"
    i = _skip(text, at + 1)
    items: list[_Item] = []
    if text[i] == closer:
        return _Box(at, i, ())
    while True:
        start, key = i, None
        if closer == "}":
            key, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
            i = _skip(text, _skip(text, i) + 1)  # past the ":"
        value = i
        _, i = decoder.raw_decode(text, i)
        items.append(_Item(start, i, key, value))
        i = _skip(text, i)
        if text[i] == ",":
            i = _skip(text, i + 1)
            continue
        return _Box(at, i, tuple(items))


def _line_indent(text: str, at: int) -> str:
    start = text.rfind("\n", 0, at) + 1
    return re.match(r"[ \t]*", text[start:]).group(0)  # type: ignore[union-attr]


def _unit(text: str) -> int | str:
    """The indent step of a JSON text, defaulting to Claude Code's own (2 spaces)."""
    match = re.search(r"\n([ \t]+)\S", text)
    if not match:
        return 2
    ws = match.group(1)
    return len(ws) if set(ws) == {" "} else ws


def _render(key: str | None, value: Any, indent: str, text: str, multiline: bool) -> str:
    nl = "\r\n" if "\r\n" in text else "\n"
    if multiline:
        body = json.dumps(value, indent=_unit(text), ensure_ascii=False)
        body = body.replace("\n", nl + indent)
    else:
        body = json.dumps(value, ensure_ascii=False)
    return body if key is None else json.dumps(key, ensure_ascii=False) + ": " + body


def _add(text: str, box: _Box, key: str | None, value: Any) -> str:
    """`text` with one item added at the end of `box`: after the last item, in its spacing; in
    an empty box right after the bracket (so the two shapes never look alike)."""
    if box.items:
        last = box.items[-1]
        k = last.start
        while text[k - 1] in _WS:
            k -= 1
        ws = text[k : last.start] or " "
        indent = ws.rsplit("\n", 1)[-1]
        item = _render(key, value, indent, text, "\n" in ws)
        return text[: last.end] + "," + ws + item + text[last.end :]
    item = _render(key, value, _line_indent(text, box.open), text, True)
    return text[: box.open + 1] + item + text[box.open + 1 :]


def _parse(text: str, path: Path) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise AgentRefusal(f"{path} is not valid JSON ({exc}); fix it first") from None
    if not isinstance(data, dict):
        raise AgentRefusal(f"{path} does not hold a JSON object; fix it first")
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise AgentRefusal(f"{path}: 'hooks' is not an object; fix it first")
    for event in EVENTS:
        if not isinstance(hooks.get(event, []), list):
            raise AgentRefusal(f"{path}: hooks.{event} is not a list; fix it first")
    return data


def _add_one(text: str, event: str, cmd: str) -> str:
    """`text` with curator's group for `event` added (hooks and the event list made if need
    be)."""
    top = _box(text, _skip(text, 0))
    hooks = top.last("hooks")
    if hooks is None:
        return _add(text, top, "hooks", {event: [_group(event, cmd)]})
    box = _box(text, hooks[1].value)
    member = box.last(event)
    if member is None:
        return _add(text, box, event, [_group(event, cmd)])
    return _add(text, _box(text, member[1].value), None, _group(event, cmd))


def _new_file(commands: dict[str, str]) -> str:
    hooks = {event: [_group(event, cmd)] for event, cmd in commands.items()}
    return json.dumps({"hooks": hooks}, indent=2, ensure_ascii=False) + "\n"


def _read(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise AgentRefusal(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise AgentRefusal(f"{path} is not UTF-8 text; fix it first") from None


def _ours_in(data: dict[str, Any], event: str) -> str | None:
    """The command of curator's last entry under `event`, None when there is none."""
    group = _our_group(data, event)
    if group is None:
        return None
    return str([e for e in group["hooks"] if is_ours(e, event)][-1]["command"])


def _our_group(data: dict[str, Any], event: str) -> Any:
    """The matcher group holding curator's last entry under `event`, None when there is none."""
    found = None
    for group in data.get("hooks", {}).get(event, []):
        entries = group.get("hooks") if isinstance(group, dict) else None
        if isinstance(entries, list) and any(is_ours(entry, event) for entry in entries):
            found = group
    return found


def plan_install(path: Path, palace: str | None, events: tuple[str, ...]) -> Change:
    before = _read(path)
    if before is None or not before.strip():
        commands = {event: command(event, palace) for event in events}
        return Change(path, before, _new_file(commands))
    text = before
    for event in events:
        wanted = command(event, palace)
        if _our_group(_parse(text, path), event) == _group(event, wanted):
            continue
        # installed for another palace, or with an older matcher: curator's entry is replaced
        while (cmd := _ours_in(_parse(text, path), event)) is not None:
            text = _remove_one(text, event, cmd)
        text = _add_one(text, event, wanted)
    return Change(path, before, text)


# -- uninstall -------------------------------------------------------------------------------
def _without(text: str, box: _Box, index: int) -> Iterator[str]:
    """The texts `text` could have been before item `index` of `box` was added."""
    item = box.items[index]
    if index:
        yield text[: box.items[index - 1].end] + text[item.end :]
    if index + 1 < len(box.items):
        yield text[: item.start] + text[box.items[index + 1].start :]
    if len(box.items) == 1:
        yield text[: box.open + 1] + text[item.end :]


def _candidates(text: str, event: str) -> Iterator[tuple[str, bool]]:
    """(text without curator's last entry under `event`, whether only the entry went): the
    entry, then its group, the event's list and the hooks object."""
    top = _box(text, _skip(text, 0))
    hooks_at = top.last("hooks")
    assert hooks_at is not None
    hooks = _box(text, hooks_at[1].value)
    member = hooks.last(event)
    assert member is not None
    groups = _box(text, member[1].value)
    data = json.loads(text)["hooks"][event]
    g = max(i for i, grp in enumerate(data) if _ours_in({"hooks": {event: [grp]}}, event))
    entries = _box(text, _box(text, groups.items[g].value).last("hooks")[1].value)  # type: ignore[index]
    e = max(i for i, entry in enumerate(data[g]["hooks"]) if is_ours(entry, event))
    if len(entries.items) > 1:  # a person put their own hook into curator's group
        yield from ((t, True) for t in _without(text, entries, e))
        return
    yield from ((t, True) for t in _without(text, groups, g))
    if len(groups.items) == 1:
        yield from ((t, False) for t in _without(text, hooks, member[0]))
        if len(hooks.items) == 1:
            yield from ((t, False) for t in _without(text, top, hooks_at[0]))


def _remove_one(text: str, event: str, cmd: str) -> str:
    """`text` without curator's last entry under `event`: the text install would have turned
    into this one, else (the file was edited since) the text with only that entry gone."""
    fallback = None
    for candidate, entry_only in _candidates(text, event):
        try:
            if _add_one(candidate, event, cmd) == text:
                return candidate
        except (ValueError, IndexError):
            continue
        if entry_only and fallback is None:
            fallback = candidate
    assert fallback is not None
    return fallback


def plan_uninstall(path: Path) -> Change:
    before = _read(path)
    if before is None or not before.strip():
        return Change(path, before, before)
    data = _parse(before, path)
    commands = {e: c for e in EVENTS if (c := _ours_in(data, e)) is not None}
    if not commands:
        return Change(path, before, before)
    if before == _new_file(commands):
        return Change(path, before, None)  # the file curator created: it goes away
    text = before
    for event in reversed(EVENTS):
        while (cmd := _ours_in(_parse(text, path), event)) is not None:
            text = _remove_one(text, event, cmd)
    return Change(path, before, text)
