"""mcp, hook: curator in an agent's loop (see `curator.agents`).

`curator mcp` serves the palace over MCP on stdio; `--print-config CLIENT` prints the snippet
that registers it. `curator hook claude-code|generic EVENT` runs a hook (always exit 0),
`curator hook log` shows the last runs, `curator hook install|uninstall claude-code` merges the
hooks into Claude Code's settings.json and takes them out again, showing the diff first.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from curator.cli.common import add_common, err, out, print_json
from curator.errors import CuratorError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "mcp",
        help="serve the palace to agents over MCP (stdio)",
        description="Serve the palace over MCP on stdio: tools search, ask, pack, read_note, "
        "list_inbox, capture and report_stale; resources INDEX.md and each note. Agents write "
        "only drafts, which are not rules until a person promotes them.",
    )
    p.add_argument(
        "--include-sensitive",
        action="store_true",
        help="also serve sensitive notes and notes in sensitive scopes",
    )
    p.add_argument(
        "--print-config",
        metavar="CLIENT",
        choices=("claude-code", "claude-desktop", "cursor"),
        help="print the JSON that registers this server with claude-code, claude-desktop or "
        "cursor, and exit",
    )
    p.set_defaults(handler=cmd_mcp)

    p = sub.add_parser("hook", help="hooks for agent tools (Claude Code and generic)")
    hook = p.add_subparsers(dest="hook_command", metavar="WHAT", required=True)
    for tool, text in (
        ("claude-code", "run a Claude Code hook: event JSON on stdin, hook JSON on stdout"),
        ("generic", "run a hook for a tool that pastes stdout into context: plain markdown"),
    ):
        h = hook.add_parser(tool, help=text, description=f"{text}. Always exits 0.")
        h.add_argument("event", help="SessionStart, UserPromptSubmit or Stop")
        add_common(h)
        h.set_defaults(handler=cmd_hook, tool=tool)

    h = hook.add_parser(
        "serve",
        help="keep the index warm for hooks (started by the hooks themselves; exits when idle)",
    )
    add_common(h)
    h.set_defaults(handler=cmd_hook_serve)

    h = hook.add_parser("log", help="the last hook runs (event, duration, items, outcome)")
    h.add_argument("--limit", "-n", type=int, default=20, help="how many runs (default 20)")
    add_common(h)
    h.set_defaults(handler=cmd_hook_log)

    for action, text in (
        ("install", "merge curator's hooks into Claude Code's settings.json"),
        ("uninstall", "remove exactly the hooks install added"),
    ):
        h = hook.add_parser(action, help=text, description=f"{text}; shows the diff first.")
        h.add_argument("tool", choices=("claude-code",), help="the agent tool")
        where = h.add_mutually_exclusive_group()
        where.add_argument(
            "--project",
            action="store_true",
            help="this project's .claude/settings.json (the default)",
        )
        where.add_argument("--user", action="store_true", help="~/.claude/settings.json")
        h.add_argument("--dry-run", action="store_true", help="show the diff; change nothing")
        h.add_argument("--yes", "-y", action="store_true", help="write without asking")
        add_common(h)
        h.set_defaults(handler=cmd_install, action=action)


# -- mcp -------------------------------------------------------------------------------------------
def cmd_mcp(args: argparse.Namespace) -> int:
    from curator.agents import mcp
    from curator.model.palace import find_palace

    explicit = getattr(args, "palace", None)
    if args.print_config:
        root = find_palace(explicit)
        print_json(mcp.client_config(args.print_config, root))
        return 0
    return mcp.serve(find_palace(explicit), include_sensitive=args.include_sensitive)


# -- hook ------------------------------------------------------------------------------------------
def cmd_hook(args: argparse.Namespace) -> int:
    from curator.agents import hookrun

    return hookrun.main(args.tool, args.event, getattr(args, "palace", None))


def cmd_hook_serve(args: argparse.Namespace) -> int:
    from curator.agents import warm_server
    from curator.model.palace import find_palace

    return warm_server.serve(find_palace(getattr(args, "palace", None)))


def cmd_hook_log(args: argparse.Namespace) -> int:
    from curator.agents import hooklog
    from curator.model.palace import find_palace

    records = hooklog.read(find_palace(getattr(args, "palace", None)), args.limit)
    if getattr(args, "json", False):
        print_json({"runs": records})
        return 0
    if not records:
        err("no hook runs logged yet")
        return 0
    for r in records:
        detail = f"  {r.get('detail')}" if r.get("detail") else ""
        via = f"{r.get('via', '')}/{r['ranked']}" if r.get("ranked") else r.get("via", "")
        out(
            f"{r.get('at', '?')}  {r.get('tool', '?'):<11} {r.get('event', '?'):<16} "
            f"{r.get('outcome', '?'):<7} {r.get('items', 0):>3} items {r.get('ms', 0):>7} ms "
            f"{via:<13}{detail}"
        )
    failed = sum(1 for r in records if r.get("outcome") in ("error", "timeout"))
    if failed:
        err(f"{failed} of the last {len(records)} runs failed or timed out")
    return 0


def _hook_palace(args: argparse.Namespace) -> Path:
    """The palace the hooks will serve, recorded in their command: without one, every hook
    would fail on every prompt, so install refuses."""
    from curator.errors import PalaceNotFound
    from curator.model.discovery import find_palace

    try:
        return find_palace(getattr(args, "palace", None), Path.cwd())
    except PalaceNotFound as exc:
        raise CuratorError(f"{exc.message} The hooks need one: pass --palace PATH.") from None


def cmd_install(args: argparse.Namespace) -> int:
    import sys

    from curator.agents import install
    from curator.agents.hooks import EVENTS

    path = install.settings_path(args.user, Path.cwd())
    if args.action == "install":
        change = install.plan_install(path, str(_hook_palace(args)), EVENTS)
    else:
        change = install.plan_uninstall(path)
    as_json = getattr(args, "json", False)
    if not change.changed:
        message = "already installed" if args.action == "install" else "nothing of curator's"
        if as_json:
            print_json({"path": str(path), "changed": False})
        else:
            out(f"{path}: {message}; nothing changed")
        return 0
    diff = change.diff()
    if as_json:
        print_json({"path": str(path), "changed": True, "diff": diff, "dry_run": args.dry_run})
    else:
        out(diff.rstrip("\n"))
    if args.dry_run:
        return 0
    if not args.yes:
        if not sys.stdin.isatty():
            raise CuratorError("refusing to write without confirmation: pass --yes (or --dry-run)")
        if input(f"Write {path}? [y/N] ").strip().lower() not in ("y", "yes"):
            out("Nothing changed.")
            return 1
    try:
        change.apply()
    except OSError as exc:
        raise CuratorError(f"cannot write: {exc.strerror}", path=str(path)) from None
    if not as_json:
        out(f"{'Installed' if args.action == 'install' else 'Removed'} curator hooks: {path}")
    return 0
