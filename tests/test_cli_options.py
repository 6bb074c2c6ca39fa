"""The CLI's shared options: one parent parser gives every command --palace and --json, in
either position; every command has help; --yes means one thing and only where a command
commits."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import pytest
from palacehelpers import RunCli

from curator.cli import build_parser

#: commands that print nothing of their own (they open the app)
SILENT = {"app", "demo"}


def leaf_commands(
    parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser, str]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                nested = any(isinstance(a, argparse._SubParsersAction) for a in sub._actions)
                if nested:
                    yield from leaf_commands(sub, (*prefix, name))
                else:
                    yield (*prefix, name), sub, helps.get(name, "")


COMMANDS = sorted(leaf_commands(build_parser()), key=lambda c: c[0])


def required_args(sub: argparse.ArgumentParser) -> list[str]:
    """Dummy values for a command's required positionals and options."""
    out: list[str] = []
    for action in sub._actions:
        if action.option_strings:
            if action.required:
                out += [action.option_strings[0], "x"]
        elif action.nargs not in ("?", "*", argparse.REMAINDER) and not isinstance(
            action, argparse._SubParsersAction
        ):
            out += [(action.choices and next(iter(action.choices))) or "x"]
    return out


def test_there_are_commands() -> None:
    names = {c[0][0] for c in COMMANDS}
    assert {"check", "list", "search", "promote", "audit", "index", "undo"} <= names


@pytest.mark.parametrize(
    ("path", "sub", "help_text"),
    COMMANDS,
    ids=lambda c: "-".join(c) if isinstance(c, tuple) else "",
)
def test_every_command_has_help(
    path: tuple[str, ...], sub: argparse.ArgumentParser, help_text: str
) -> None:
    assert help_text.strip(), f"curator {' '.join(path)} has no help text"


@pytest.mark.parametrize(
    ("path", "sub", "help_text"),
    COMMANDS,
    ids=lambda c: "-".join(c) if isinstance(c, tuple) else "",
)
def test_palace_and_json_before_or_after_the_command(
    path: tuple[str, ...], sub: argparse.ArgumentParser, help_text: str
) -> None:
    parser = build_parser()
    rest = required_args(sub)
    json = [] if path[0] in SILENT else ["--json"]
    before = parser.parse_args(["--palace", "P", *json, *path, *rest])
    after = parser.parse_args([*path, *rest, "--palace", "P", *json])
    none = parser.parse_args([*path, *rest])
    assert before.palace == after.palace == "P"
    assert none.palace is None
    if json:
        assert before.json is after.json is True
        assert none.json is False


@pytest.mark.parametrize(
    ("path", "sub", "help_text"),
    COMMANDS,
    ids=lambda c: "-".join(c) if isinstance(c, tuple) else "",
)
def test_yes_goes_with_dry_run(
    path: tuple[str, ...], sub: argparse.ArgumentParser, help_text: str
) -> None:
    """A command that commits shows its plan with --dry-run and skips asking with --yes;
    a command that does not commit takes neither."""
    options = {o for a in sub._actions for o in a.option_strings}
    assert ("--yes" in options) == ("--dry-run" in options) or path[0] == "import", path


def test_init_prints_json(tmp_path: Path, run_cli: RunCli) -> None:
    import json

    code, out, _ = run_cli("init", str(tmp_path / "p"), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["ok"] is True and data["commit"] and data["root"].endswith("p")
