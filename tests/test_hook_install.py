"""`curator hook install|uninstall claude-code`: merged into settings.json beside the user's own
hooks and settings, the diff shown first, and uninstall giving back the very same bytes."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from palacehelpers import run_main

from curator.agents import install
from curator.agents.hooks import EVENTS

EXISTING = {
    "permissions": {"allow": ["Bash(npm run lint)"], "deny": []},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./check-bash.sh"}]}
        ],
        "SessionStart": [
            {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done", "timeout": 3}]}],
    },
    "env": {"FOO": "bär"},
}


def cli(project: Path, *args: str, palace: bool = True) -> subprocess.CompletedProcess[str]:
    """`curator hook ARGS` in `project`, with a palace beside it in CURATOR_PALACE (install
    refuses without one) unless `palace` is False; in this process (`run_main`): the
    installed command's own process is test_the_installed_command_runs_as_a_hook's."""
    env = {}
    if palace:
        beside = project.parent / f"{project.name}-palace"
        (beside / "notes").mkdir(parents=True, exist_ok=True)
        env["CURATOR_PALACE"] = str(beside)
    return run_main(project, "hook", *args, env=env)


def test_install_refuses_without_a_palace(tmp_path: Path) -> None:
    proc = cli(tmp_path, "install", "claude-code", "--yes", palace=False)
    assert proc.returncode == 2 and "--palace" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / ".claude").exists()


def test_install_records_the_palace_and_a_new_one_updates_it(tmp_path: Path) -> None:
    first, second = tmp_path / "p1", tmp_path / "p2"
    for p in (first, second):
        (p / "notes").mkdir(parents=True)
    project = tmp_path / "project"
    project.mkdir()
    settings = project / ".claude" / "settings.json"
    assert cli(project, "install", "claude-code", "--yes", "--palace", str(first)).returncode == 0
    text = settings.read_text()
    assert text.count(str(first)) == 3 and "startup|resume|clear|compact|fork" in text
    proc = cli(project, "install", "claude-code", "--yes", "--palace", str(second))
    assert proc.returncode == 0 and "already installed" not in proc.stdout
    data = json.loads(settings.read_text())
    commands = [h["command"] for e in EVENTS for g in data["hooks"][e] for h in g["hooks"]]
    assert len(commands) == 3 and all(str(second) in c and str(first) not in c for c in commands)


@pytest.mark.parametrize("indent", [2, 4, "\t"])
def test_install_then_uninstall_round_trips_bytes(tmp_path: Path, indent: int | str) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    original = json.dumps(EXISTING, indent=indent, ensure_ascii=False) + "\n"
    path.write_text(original, encoding="utf-8")

    proc = cli(tmp_path, "install", "claude-code", "--project", "--yes")
    assert proc.returncode == 0, proc.stderr
    assert "+" in proc.stdout and "claude-code UserPromptSubmit" in proc.stdout  # the diff
    data = json.loads(path.read_text())
    assert data["permissions"] == EXISTING["permissions"] and data["env"] == EXISTING["env"]
    assert data["hooks"]["PreToolUse"] == EXISTING["hooks"]["PreToolUse"]
    assert data["hooks"]["SessionStart"][0] == EXISTING["hooks"]["SessionStart"][0]
    ours = data["hooks"]["SessionStart"][1]
    assert ours["matcher"] == "startup|resume|clear|compact|fork"
    assert ours["hooks"][0]["command"].endswith(" claude-code SessionStart")
    for event in EVENTS:
        assert any(h["command"].endswith(" claude-code " + event)
                   for g in data["hooks"][event] for h in g["hooks"])  # fmt: skip

    again = cli(tmp_path, "install", "claude-code", "--yes")
    assert again.returncode == 0 and "already installed" in again.stdout
    assert json.loads(path.read_text()) == data

    proc = cli(tmp_path, "uninstall", "claude-code", "--yes")
    assert proc.returncode == 0, proc.stderr
    assert path.read_text(encoding="utf-8") == original


def test_install_into_a_new_file_and_uninstall_removes_it(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    dry = cli(tmp_path, "install", "claude-code", "--dry-run")
    assert dry.returncode == 0 and "/dev/null" in dry.stdout and not path.exists()
    refused = cli(tmp_path, "install", "claude-code")  # no terminal, no --yes
    assert refused.returncode == 2 and "--yes" in refused.stderr and not path.exists()
    assert cli(tmp_path, "install", "claude-code", "--yes").returncode == 0
    assert set(json.loads(path.read_text())["hooks"]) == set(EVENTS)
    assert cli(tmp_path, "uninstall", "claude-code", "--yes").returncode == 0
    assert not path.exists()
    assert "nothing of curator's" in cli(tmp_path, "uninstall", "claude-code", "--yes").stdout


def test_user_settings_live_in_home(tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    assert cli(tmp_path, "install", "claude-code", "--user", "--yes").returncode == 0
    assert (home / ".claude" / "settings.json").is_file()
    assert not (tmp_path / ".claude").exists()
    assert cli(tmp_path, "uninstall", "claude-code", "--user", "--yes").returncode == 0


def test_install_names_an_explicit_palace(tmp_path: Path) -> None:
    change = install.plan_install(tmp_path / "settings.json", str(tmp_path / "my palace"), EVENTS)
    data = json.loads(change.after or "")
    command = data["hooks"]["Stop"][0]["hooks"][0]["command"]
    assert f"--palace '{tmp_path / 'my palace'}'" in command
    assert command.endswith(" claude-code Stop")


def test_uninstall_keeps_a_users_hook_in_the_same_group(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    cmd = install.command("Stop", None)
    ours = {"type": "command", "command": cmd, "timeout": 5}
    group = {"hooks": [ours, {"type": "command", "command": "x"}]}
    path.write_text(json.dumps({"hooks": {"Stop": [group]}}, indent=2) + "\n")
    change = install.plan_uninstall(path)
    assert json.loads(change.after or "") == {
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}
    }


def test_bad_settings_are_refused_not_rewritten(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    for text in ("{not json", "[1, 2]", '{"hooks": []}'):
        path.write_text(text)
        proc = cli(tmp_path, "install", "claude-code", "--yes")
        assert proc.returncode == 2 and "fix it first" in proc.stderr
        assert path.read_text() == text


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-9, 9) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=10,
)


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    other=st.dictionaries(st.text(min_size=1, max_size=8).filter(lambda k: k != "hooks"), _json,
                          max_size=4),
    indent=st.sampled_from([2, 4]),
)  # fmt: skip
def test_round_trip_property(tmp_path: Path, other: dict[str, object], indent: int) -> None:
    """Any settings object written in a JSON.stringify-like style survives install+uninstall."""
    path = tmp_path / "settings.json"
    original = json.dumps(other, indent=indent, ensure_ascii=False) + "\n"
    path.write_text(original, encoding="utf-8")
    added = install.plan_install(path, None, EVENTS)
    assert added.after is not None
    path.write_text(added.after, encoding="utf-8")
    assert install.plan_uninstall(path).after == original  # a file holding {} stays


def test_the_installed_command_runs_as_a_hook(tmp_path: Path, make_palace: Any) -> None:
    """The command install writes, run the way Claude Code runs it (through a shell)."""
    from agenthelpers import HASH_TOML

    root = make_palace({}, toml=HASH_TOML)
    change = install.plan_install(tmp_path / "settings.json", str(root), EVENTS)
    data = json.loads(change.after or "")
    command = data["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    proc = subprocess.run(
        command,
        shell=True,  # Claude Code runs hook commands through a shell; the path is quoted
        input=json.dumps({"cwd": str(tmp_path), "source": "startup"}),
        capture_output=True,
        text=True,
        env={**os.environ, "CURATOR_HOOK_WARM": "0"},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "SessionStart" and "INDEX.md" in out["additionalContext"]
    usage = subprocess.run(
        [sys.executable, "-m", "curator.agents", "nonsense"], capture_output=True, text=True
    )
    assert usage.returncode == 0 and "usage" in usage.stderr


# -- generated settings files: any formatting, any line ends, hooks of the user's own --------
LOOKALIKES = (
    "curator-sync --palace /p claude-code {event}",  # a script of the user's
    "curator hook claude-code {event}",  # the public CLI, written by hand
    "python3 -m curator.agents claude-code {event} --verbose",
    "python3 -m curator.agents claude-code Other",
    "/usr/bin/curator -m curator claude-code {event}",
)
_ws = st.sampled_from(["", " ", "  ", "\n", "\n  ", "\n    ", "\n\t", " \n  "])


def _hand_json(draw: st.DrawFn, value: object) -> str:
    """`value` as JSON with random whitespace between every token (hand formatting)."""
    if isinstance(value, dict):
        if not value:
            return "{" + draw(_ws) + "}"
        parts = [
            draw(_ws) + json.dumps(k, ensure_ascii=False) + draw(_ws) + ":" + draw(_ws)
            + _hand_json(draw, v) + draw(_ws)
            for k, v in value.items()
        ]  # fmt: skip
        return "{" + ",".join(parts) + "}"
    if isinstance(value, list):
        if not value:
            return "[" + draw(_ws) + "]"
        return "[" + ",".join(draw(_ws) + _hand_json(draw, v) + draw(_ws) for v in value) + "]"
    return json.dumps(value, ensure_ascii=draw(st.booleans()))


@st.composite
def _user_hook(draw: st.DrawFn, event: str) -> dict[str, object]:
    cmd = draw(st.sampled_from(LOOKALIKES).map(lambda c: c.format(event=event))
               | st.text(min_size=1, max_size=12))  # fmt: skip
    entry: dict[str, object] = {"type": "command", "command": cmd}
    if draw(st.booleans()):
        entry["timeout"] = draw(st.integers(1, 60))
    return entry


@st.composite
def settings_files(draw: st.DrawFn) -> str:
    data: dict[str, object] = draw(
        st.dictionaries(st.text(min_size=1, max_size=6).filter(lambda k: k != "hooks"), _json,
                        max_size=3)
    )  # fmt: skip
    if draw(st.booleans()):
        hooks: dict[str, object] = {}
        for event in draw(st.lists(st.sampled_from([*EVENTS, "PreToolUse"]), unique=True)):
            groups = draw(st.lists(st.lists(_user_hook(event), max_size=2), max_size=2))
            hooks[event] = [{"hooks": g} for g in groups]
        data["hooks"] = hooks
        if draw(st.booleans()):  # hooks anywhere among the keys
            data = dict(sorted(data.items(), key=lambda kv: draw(st.integers(0, 9))))
    style = draw(st.sampled_from(["indent2", "indent4", "tab", "compact", "hand"]))
    if style == "hand":
        text = _hand_json(draw, data)
    elif style == "compact":
        text = json.dumps(data, ensure_ascii=False)
    else:
        indent = {"indent2": 2, "indent4": 4, "tab": "\t"}[style]
        text = json.dumps(data, indent=indent, ensure_ascii=False)
    text = draw(_ws) + text + draw(st.sampled_from(["", "\n", "\n\n", "  \n"]))
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return text


def _without_ours(value: object) -> object:
    """The settings with curator's entries (and what install made for them) taken out."""
    assert isinstance(value, dict)
    hooks = value.get("hooks")
    if not isinstance(hooks, dict):
        return value
    kept: dict[str, object] = {}
    for event, groups in hooks.items():
        rest = []
        for group in groups:
            entries = [h for h in group["hooks"] if not install.is_ours(h, event)]
            if entries or not any(install.is_ours(h, event) for h in group["hooks"]):
                rest.append({**group, "hooks": entries})
        kept[event] = rest
    return {**value, "hooks": kept}


@settings(
    max_examples=100,  # each runs install and uninstall on a file: the slowest test at 300
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(original=settings_files(), palace=st.sampled_from([None, "/srv/my palace", "/p"]))
def test_generated_settings_round_trip_byte_for_byte(
    tmp_path: Path, original: str, palace: str | None
) -> None:
    """Install adds only curator's entries (every other value as it was, the user's lookalike
    commands left alone and not taken for curator's); uninstall gives back the very bytes."""
    path = tmp_path / "settings.json"
    path.write_bytes(original.encode("utf-8"))
    added = install.plan_install(path, palace, EVENTS)
    assert added.after is not None
    after = json.loads(added.after)
    for event in EVENTS:  # each event has curator's entry, whatever the user's look like
        assert (
            sum(install.is_ours(h, event) for g in after["hooks"][event] for h in g["hooks"]) == 1
        )
    base = json.loads(original)
    base.setdefault("hooks", {})
    for event in EVENTS:
        base["hooks"].setdefault(event, [])
    assert _without_ours(after) == _without_ours(base) or _without_ours(after) == base
    if "\r\n" in original:
        assert "\n" not in added.after.replace("\r\n", "")  # no bare line end added
    path.write_bytes(added.after.encode("utf-8"))
    assert install.plan_install(path, palace, EVENTS).after == added.after  # installed once
    removed = install.plan_uninstall(path)
    assert removed.after == original


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(original=settings_files(), key=st.text(min_size=1, max_size=5))
def test_edited_after_install_only_curators_entries_go(
    tmp_path: Path, original: str, key: str
) -> None:
    """A file changed between install and uninstall: uninstall takes out curator's entries and
    keeps the person's change."""
    path = tmp_path / "settings.json"
    path.write_bytes(original.encode("utf-8"))
    added = install.plan_install(path, None, EVENTS).after or ""
    edited = json.loads(added)
    edited["zz-" + key] = [1, "two"]
    path.write_text(json.dumps(edited, indent=2, ensure_ascii=False), encoding="utf-8")
    removed = json.loads(install.plan_uninstall(path).after or "")
    for event in EVENTS:
        assert not any(install.is_ours(h, event) for g in removed["hooks"].get(event, [])
                       for h in g["hooks"])  # fmt: skip
    assert removed["zz-" + key] == [1, "two"]
    assert _bare(removed) == _bare(_without_ours(edited))


def _bare(value: object) -> object:
    """Settings without empty hook lists (the edited file no longer says who made them)."""
    assert isinstance(value, dict)
    hooks = {e: g for e, g in value.get("hooks", {}).items() if g}
    return {k: v for k, v in value.items() if k != "hooks"} | ({"hooks": hooks} if hooks else {})


def test_a_users_lookalike_command_is_never_removed(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    users = {e: [{"hooks": [{"type": "command", "command": c.format(event=e)}]}
                 for c in LOOKALIKES] for e in EVENTS}  # fmt: skip
    original = json.dumps({"hooks": users}, indent=2) + "\n"
    path.write_text(original)
    assert "nothing of curator's" in cli(tmp_path, "uninstall", "claude-code", "--yes").stdout
    assert path.read_text() == original
    assert cli(tmp_path, "install", "claude-code", "--yes").returncode == 0
    data = json.loads(path.read_text())
    for event in EVENTS:  # curator's own hook is added beside every lookalike
        assert sum(install.is_ours(h, event) for g in data["hooks"][event] for h in g["hooks"]) == 1
    assert cli(tmp_path, "uninstall", "claude-code", "--yes").returncode == 0
    assert path.read_text() == original


@pytest.mark.parametrize("existing", [None, "{}", '{\r\n  "model": "x"\r\n}\r\n'])
def test_install_writes_through_a_symlink(tmp_path: Path, existing: str | None) -> None:
    """.claude/settings.json linking into a dotfiles repository: the link stays, the target
    gets the hooks, and uninstall gives the target back as it was."""
    dotfiles = tmp_path / "dotfiles" / "claude"
    dotfiles.mkdir(parents=True)
    target = dotfiles / "settings.json"
    if existing is not None:
        target.write_bytes(existing.encode())
    link = tmp_path / "project" / ".claude" / "settings.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(target)
    assert cli(link.parent.parent, "install", "claude-code", "--yes").returncode == 0
    assert link.is_symlink() and set(json.loads(target.read_text())["hooks"]) == set(EVENTS)
    assert cli(link.parent.parent, "uninstall", "claude-code", "--yes").returncode == 0
    assert link.is_symlink()
    if existing is None:
        assert not target.exists()
    else:
        assert target.read_bytes() == existing.encode()


def test_install_replaces_the_entries_an_older_install_wrote(tmp_path: Path) -> None:
    """Hooks installed as `PYTHON -m curator.agents ...` (before the entry ran by its path
    without the site step) are curator's: install replaces them, uninstall takes them out."""
    path = tmp_path / "settings.json"
    old = {e: f"{shlex.quote(sys.executable)} -m curator.agents claude-code {e}" for e in EVENTS}
    groups = {e: [{"hooks": [{"type": "command", "command": c}]}] for e, c in old.items()}
    path.write_text(json.dumps({"hooks": groups}, indent=2))
    change = install.plan_install(path, None, EVENTS)
    data = json.loads(change.after or "")
    for event in EVENTS:
        commands = [h["command"] for g in data["hooks"][event] for h in g["hooks"]]
        assert commands == [install.command(event, None)]
        assert shlex.split(commands[0])[1] == "-S"
    change.apply()
    removed = json.loads(install.plan_uninstall(path).after or "")
    assert all(removed["hooks"][e] == [] for e in EVENTS)
