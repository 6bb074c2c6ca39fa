"""The `curator` command line: parse arguments, call the core, print text or --json.

Each area registers its subcommands from its own module; heavy imports (lancedb, textual)
happen inside the handlers so that commands which do not need them never pay for them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import NoReturn

from curator import __version__
from curator.cli import (
    actions_cmds,
    agent_cmds,
    app_cmds,
    audit_cmds,
    capture_cmd,
    interop_cmds,
    palace_cmds,
    search_cmds,
    sync_cmds,
    task_cmds,
)
from curator.cli.common import JSON_HELP, PALACE_HELP, Subcommands, run_handler

_AREAS = [
    palace_cmds,
    capture_cmd,
    actions_cmds,
    search_cmds,
    audit_cmds,
    app_cmds,
    interop_cmds,
    task_cmds,
    agent_cmds,
    sync_cmds,
]


class Parser(argparse.ArgumentParser):
    """An argument error is one line on stderr (exit 2), and also a JSON object on stdout when
    the command line asks for --json: a reader parsing stdout gets JSON whatever went wrong."""

    wants_json = False

    def error(self, message: str) -> NoReturn:
        if Parser.wants_json:
            sys.stdout.write(json.dumps({"error": f"{self.prog}: {message}", "exit_code": 2}))
            sys.stdout.write("\n")
        super().error(message)


def build_parser() -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = Parser(
        prog="curator",
        description="Curate and review an AI agent's long-term memory palace. "
        "With no command, opens the app on the palace.",
    )
    parser.add_argument("--version", action="version", version=f"curator {__version__}")
    parser.add_argument("--palace", metavar="PATH", help=PALACE_HELP)
    parser.add_argument("--json", action="store_true", help=JSON_HELP)
    sub = Subcommands(parser.add_subparsers(dest="command", metavar="COMMAND"))
    for area in _AREAS:
        area.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from curator.runtime import tune_process

    tune_process()
    parser = build_parser()
    Parser.wants_json = "--json" in (sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    if args.command is None:
        args.command = "app"
        args.handler = getattr(args, "handler", None) or app_cmds.open_app
    return run_handler(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
