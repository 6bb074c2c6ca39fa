"""`curator hook install|uninstall claude-code`: merged into settings.json beside the user's own
hooks and settings, the diff shown first, and uninstall giving back the very same bytes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
    refuses without one) unless `palace` is False."""
    env = os.environ.copy()
    if palace:
        beside = project.parent / f"{project.name}-palace"
        (beside / "notes").mkdir(parents=True, exist_ok=True)
        env["CURATOR_PALACE"] = str(beside)
    return subprocess.run(
        [sys.executable, "-m", "curator", "hook", *args],
        cwd=project,
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )


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
    cmd = "curator hook claude-code Stop"
    group = {"hooks": [{"type": "command", "command": cmd}, {"type": "command", "command": "x"}]}
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


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
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
    removed = install.plan_uninstall(path)
    if other:
        assert removed.after == original
    else:
        assert removed.after is None  # the file held nothing else: it goes away


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
