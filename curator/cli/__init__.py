"""The `curator` command line: parse arguments, call the core, print text or --json.

Each area registers its subcommands from its own module; heavy imports (lancedb, textual)
happen inside the handlers so that commands which do not need them never pay for them.
"""

from __future__ import annotations

import sys

from curator import __version__

TYPE_CHECKING = False  # typing.TYPE_CHECKING without loading typing: a hook run imports this
if TYPE_CHECKING:  # argparse is loaded with the parser: a hook run builds none
    import argparse
    from collections.abc import Sequence

#: the area modules, each registering its subcommands, in the order of `curator --help`;
#: imported when the parser is built (a hook run needs none of them, see `main`)
_AREAS = (
    "palace_cmds",
    "capture_cmd",
    "actions_cmds",
    "search_cmds",
    "audit_cmds",
    "app_cmds",
    "interop_cmds",
    "task_cmds",
    "agent_cmds",
    "sync_cmds",
)


def build_parser() -> argparse.ArgumentParser:
    import importlib

    from curator.cli.common import JSON_HELP, PALACE_HELP, Parser, Subcommands

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
        importlib.import_module(f"curator.cli.{area}").register(sub)
    return parser


def hook_run(argv: Sequence[str]) -> tuple[str, str, str | None] | None:
    """(tool, event, palace) when the command line is a plain hook run, `curator [--palace P]
    hook claude-code|generic EVENT [--palace P]` (one --palace at most); None for anything
    else, which the whole parser reads."""
    args, palace = list(argv), None
    for at in (0, 3):  # before `hook`, or after the event
        if len(args) <= at or not args[at].startswith("--palace"):
            continue
        if palace is not None:
            return None
        if args[at].startswith("--palace="):
            palace = args.pop(at).split("=", 1)[1]
        elif args[at] == "--palace" and len(args) > at + 1:
            palace = args.pop(at + 1)
            del args[at]
        else:
            return None
    if len(args) != 3 or args[0] != "hook" or args[1] not in ("claude-code", "generic"):
        return None
    if args[2].startswith("-") or palace == "":
        return None
    return args[1], args[2], palace


def main(argv: Sequence[str] | None = None) -> int:
    entry = argv is None  # the process's own command line (`curator`, `python -m curator`)
    argv = list(sys.argv[1:] if argv is None else argv)
    hook = hook_run(argv)
    if hook is not None:  # on every prompt: without building the parser of every command
        from curator.agents.hookrun import main as run_hook

        code = run_hook(*hook)  # its output flushed, its log appended
        if entry:
            from curator.runtime import quick_exit

            quick_exit(code)
        return code
    from curator.cli.common import Parser, run_handler
    from curator.runtime import tune_process

    tune_process()
    parser = build_parser()
    Parser.wants_json = "--json" in argv
    args = parser.parse_args(argv)
    if args.command is None:
        from curator.cli import app_cmds

        args.command = "app"
        args.handler = getattr(args, "handler", None) or app_cmds.open_app
    return run_handler(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
