"""The `curator` command line: parse arguments, call the core, print text or --json.

Each area registers its subcommands from its own module; heavy imports (lancedb, textual)
happen inside the handlers so that commands which do not need them never pay for them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from curator import __version__
from curator.cli import palace_cmds
from curator.cli.common import JSON_HELP, PALACE_HELP, Subcommands, run_handler

_AREAS = [palace_cmds]


def _optional_areas() -> list[object]:
    """Command modules of the other wings, registered when present."""
    import importlib

    found: list[object] = []
    for name in (
        "capture_cmd",
        "actions_cmds",
        "search_cmds",
        "audit_cmds",
        "app_cmds",
        "interop_cmds",
        "task_cmds",
        "agent_cmds",
        "sync_cmds",
    ):
        try:
            found.append(importlib.import_module(f"curator.cli.{name}"))
        except ModuleNotFoundError as exc:
            if exc.name != f"curator.cli.{name}":
                raise
    return found


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="curator",
        description="Curate and review an AI agent's long-term memory palace. "
        "With no command, opens the app on the palace.",
    )
    parser.add_argument("--version", action="version", version=f"curator {__version__}")
    parser.add_argument("--palace", metavar="PATH", help=PALACE_HELP)
    parser.add_argument("--json", action="store_true", help=JSON_HELP)
    sub = Subcommands(parser.add_subparsers(dest="command", metavar="COMMAND"))
    for area in [*_AREAS, *_optional_areas()]:
        area.register(sub)  # type: ignore[attr-defined]
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from curator.runtime import tune_process
    from curator.search import register_hooks  # cheap: the index sync the writer runs

    tune_process()
    register_hooks()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args.command = "app"
        handler = getattr(args, "handler", None) or _app_handler(parser)
        if handler is None:
            parser.print_help()
            return 2
        args.handler = handler
    return run_handler(args)


def _app_handler(parser: argparse.ArgumentParser) -> object | None:
    try:
        from curator.cli import app_cmds
    except ModuleNotFoundError:
        return None
    return app_cmds.open_app


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
