"""`python -m curator.agents [--palace PATH] claude-code|generic EVENT`: the hook as agent tools
run it at every point of their loop. The same as `curator hook claude-code EVENT`, without
loading the whole command line (every command module) first; like every hook path, it always
exits 0.

The hooks `curator hook install` writes run this file by its path without the site step
(`python -S .../curator/agents/__main__.py`): a prompt's process then starts as a bare
interpreter and imports only what asking the warm server needs; when it must answer alone, it
takes the site step itself (`hookrun`)."""

from __future__ import annotations

import sys

USAGE = "usage: python -m curator.agents [--palace PATH] claude-code|generic EVENT\n"


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    palace = None
    if len(args) >= 2 and args[0] == "--palace":
        palace, args = args[1], args[2:]
    if len(args) != 2 or args[0] not in ("claude-code", "generic"):
        sys.stderr.write(USAGE)
        return 0
    from curator.agents.hookrun import main as hook

    return hook(args[0], args[1], palace)


if __name__ == "__main__":
    if not __package__:  # run by its path: `curator` is found where it is installed
        import os

        del sys.path[0]  # this file's folder: its modules are no top-level ones
        # after the standard library, where the site step puts site-packages (a package there
        # named like a standard module must not shadow it)
        sys.path.append(
            os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        )
    code = main()  # its output written and flushed, its log appended (os.write)
    from curator.runtime import quick_exit

    quick_exit(code)
    sys.exit(code)
