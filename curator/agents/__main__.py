"""`python -m curator.agents [--palace PATH] claude-code|generic EVENT`: the hook as agent tools
run it on every prompt. The same as `curator hook claude-code EVENT`, without loading the whole
command line (every command module) first; like every hook path, it always exits 0."""

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
    from curator.agents.hooks import main as hook

    return hook(args[0], args[1], palace)


if __name__ == "__main__":
    sys.exit(main())
