"""`curator` (no command) and `curator demo`: open the app. Textual is imported only here,
inside the handlers."""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from curator.cli.common import Subcommands, out
from curator.errors import CuratorError
from curator.model.palace import find_palace

DEMO_AUTHOR = ("curator demo", "demo@localhost")


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
    """Copy the sample palace into a fresh git repository and commit it."""
    root = target if target is not None else Path(tempfile.mkdtemp(prefix="curator-demo-"))
    if target is not None and target.exists() and any(target.iterdir()):
        raise CuratorError(f"{target} is not empty; give an empty or new folder")
    shutil.copytree(
        sample_source(),
        root,
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns(".curator", "__pycache__", "__init__.py"),
    )
    _refresh_index(root)
    name, email = DEMO_AUTHOR
    from curator.writer.git import GitError, run_git

    for cmd in (
        ["init", "-q", "-b", "main"],
        ["config", "user.name", name],
        ["config", "user.email", email],
        ["config", "commit.gpgsign", "false"],
        ["add", "-A"],
        ["commit", "-q", "--no-verify", "-m", "curator demo: sample palace"],
    ):
        try:
            run_git(root, cmd)
        except GitError as exc:
            raise CuratorError(f"could not set up the demo palace: {exc}") from None
    return root


def _refresh_index(root: Path) -> None:
    """INDEX.md's flags (due, expired) depend on the date: render it for today in the copy."""
    from curator.model.index_md import read_index, render_index
    from curator.model.palace import INDEX_NAME, Palace

    palace = Palace.open(root, cache=False)
    (root / INDEX_NAME).write_text(render_index(palace, read_index(palace)), encoding="utf-8")


def cmd_demo(args: argparse.Namespace) -> int:
    root = make_demo(Path(args.path) if args.path else None)
    try:
        _run(root)
    finally:
        out(f"The demo palace is in {root}")
    return 0
