"""The README is tested: every command it names exists, and every code block that runs, runs.

Shell blocks run with bash in a scratch copy of the sample palace (`/path/to/palace` is that
copy; `curator` is this environment's). A crontab line runs its command. A block preceded by
`<!-- not run: WHY -->` is skipped with its reason: say why in the README itself.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from palacehelpers import SAMPLE, RunCli, git_init_commit

from curator.cli import build_parser

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text()
BLOCK = re.compile(r"(<!-- not run: (?P<why>[^>]*) -->\n)?```(?P<lang>\w*)\n(?P<body>.*?)```", re.S)
CRON = re.compile(r"^([\d*/,-]+\s+){5}(?P<command>curator .*)$")

pytestmark = pytest.mark.slow


def _blocks(lang: str) -> list[tuple[int, str, str | None]]:
    """(line number, text, reason not run) of each fenced block in that language."""
    return [
        (README.count("\n", 0, m.start("body")) + 1, m["body"], m["why"])
        for m in BLOCK.finditer(README)
        if m["lang"] == lang
    ]


def _commands() -> set[tuple[str, ...]]:
    """Each `curator CMD [SUB]` the README names, in code spans or blocks."""
    parser = build_parser()
    top = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    code = [m["body"] for m in BLOCK.finditer(README)] + re.findall(r"`([^`\n]+)`", README)
    found = set()
    for match in re.finditer(r"\bcurator ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?", "\n".join(code)):
        cmd, sub = match.groups()
        if cmd not in top:
            found.add((cmd,))  # unknown: the --help below fails and names it
            continue
        subs = getattr(top[cmd], "_subparsers", None)
        if sub and subs is not None and sub in subs._group_actions[0].choices:
            found.add((cmd, sub))
        else:
            found.add((cmd,))
    return found


def test_every_command_the_readme_names_exists(run_cli: RunCli) -> None:
    commands = _commands()
    assert ("task", "new") in commands and ("search",) in commands  # the scan finds them
    for argv in sorted(commands):
        code, out, _ = run_cli(*argv, "--help")
        assert code == 0 and out.startswith("usage:"), f"README names `curator {' '.join(argv)}`"


def test_every_command_has_help_text() -> None:
    parser = build_parser()
    choices = parser._subparsers._group_actions[0]  # type: ignore[union-attr]
    helped = {action.dest for action in choices._choices_actions}
    assert set(choices.choices) == helped, sorted(set(choices.choices) - helped)
    described = {name for name, sub in choices.choices.items() if sub.description}
    assert described == set(choices.choices), sorted(set(choices.choices) - described)


def _palace(tmp_path: Path) -> Path:
    root = tmp_path / "palace"
    shutil.copytree(SAMPLE, root, symlinks=True, ignore=shutil.ignore_patterns(".curator"))
    git_init_commit(root)
    return root


def _shell_script(body: str) -> str:
    lines = []
    for line in body.splitlines():
        cron = CRON.match(line)
        if cron:
            line = cron["command"].replace("\\%", "%")
        lines.append(line)
    return "\n".join(lines) + "\n"


SH_BLOCKS = [b for b in _blocks("sh") if "python3 -m venv" not in b[1]]  # the two set-ups: CI


@pytest.mark.parametrize(("line", "body", "why"), SH_BLOCKS, ids=[f"line{b[0]}" for b in SH_BLOCKS])
def test_shell_block_runs(tmp_path: Path, line: int, body: str, why: str | None) -> None:
    if why:
        pytest.skip(f"README line {line}: {why}")
    root = _palace(tmp_path)
    (root / "checkpoint.md").write_text(
        "".join(
            f"## {h}\n\n{h} text.\n\n"
            for h in (
                "Objective",
                "Environment",
                "Where the work stands",
                "Next action",
                "Checks that remain",
                "Sources",
                "Risks",
            )
        )
    )
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "CURATOR_PALACE": str(root),
        "CURATOR_AGENT": "agent-1",
    }
    script = _shell_script(body).replace("/path/to/palace", str(root))
    if script.startswith("#!/bin/sh"):
        path = tmp_path / "hook"
        path.write_text(script)
        argv = ["sh", str(path)]
    else:
        argv = ["bash", "-e", "-c", script]
    proc = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=300)
    # 1 is "ran and found problems" (the sample palace has a stale note for the audit to find)
    assert proc.returncode in (0, 1), f"README line {line}:\n{script}\n{proc.stdout}\n{proc.stderr}"


@pytest.mark.parametrize(("line", "body", "why"), _blocks("python"))
def test_python_block_runs(tmp_path: Path, line: int, body: str, why: str | None) -> None:
    if why:
        pytest.skip(f"README line {line}: {why}")
    root = _palace(tmp_path)
    script = body.replace('"path/to/palace"', repr(str(root)))
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, f"README line {line}:\n{script}\n{proc.stderr}"


def test_toml_blocks_are_valid_palace_settings(tmp_path: Path) -> None:
    from curator.config import load_config

    blocks = _blocks("toml")
    assert blocks
    for line, body, _ in blocks:
        path = tmp_path / f"palace{line}"
        path.mkdir()
        (path / "palace.toml").write_text(body)
        load_config(path)  # raises ConfigError naming the line
