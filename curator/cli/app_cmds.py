"""`curator` (no command) and `curator demo`: open the app. Textual is imported only here,
inside the handlers."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from curator.cli.common import Subcommands, out
from curator.model.palace import find_palace

DEMO_AUTHOR = ("curator demo", "demo@localhost")
DEMO_MESSAGE = "curator demo: sample palace"


def register(sub: Subcommands) -> None:
    p = sub.add_parser(
        "app", prints=False, help="open the app on the palace (the same as no command)"
    )
    p.set_defaults(handler=open_app)
    p = sub.add_parser(
        "demo",
        prints=False,
        help="open the app on a scratch copy of the sample palace (a temporary git repo)",
    )
    p.add_argument("--path", help="make the scratch palace here instead of a temporary folder")
    p.set_defaults(handler=cmd_demo)


def open_app(args: argparse.Namespace) -> int:
    root = find_palace(getattr(args, "palace", None))
    _run(root)
    return 0


def _run(root: Path) -> None:
    from curator.ui.app import CuratorApp

    CuratorApp(root).run()


def sample_source() -> Path:
    """The sample palace, shipped as curator.sample_palace (the repo's sample_palace/)."""
    from curator.shipped import shipped_folder

    return shipped_folder("sample_palace")


def make_demo(target: Path | None = None) -> Path:
    """The sample palace copied into a fresh git repository and committed."""
    from curator.writer.init import init_copy

    root = target if target is not None else Path(tempfile.mkdtemp(prefix="curator-demo-"))
    return init_copy(sample_source(), root, author=DEMO_AUTHOR, message=DEMO_MESSAGE)


def cmd_demo(args: argparse.Namespace) -> int:
    root = make_demo(Path(args.path) if args.path else None)
    try:
        _run(root)
    finally:
        out(f"The demo palace is in {root}")
    return 0
