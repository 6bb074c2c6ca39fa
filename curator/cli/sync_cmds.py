"""`curator sync`: share the palace with a team over a git remote (`curator.writer.sync`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from curator.cli.common import Subcommands, add_apply_options, err, out, print_json
from curator.errors import WriterError
from curator.model.text import clean

if TYPE_CHECKING:
    from curator.writer.gitpy import Transfer
    from curator.writer.sync import Resolution


def register(sub: Subcommands) -> None:
    p = sub.add_parser(
        "sync",
        help="pull the team's actions from the git remote, replay this clone's, push",
        description="Fetch the remote's branch, replay this clone's unpushed actions onto it "
        "(INDEX.md rendered again, never merged; each action's checks run again), then push "
        "without force. A real conflict stops the sync with nothing changed.",
    )
    p.add_argument("--remote", metavar="NAME", help="the git remote (default: [team] remote)")
    add_apply_options(p)  # --dry-run: what would come in and go out; --yes: do not ask
    p.add_argument(
        "--check",
        action="store_true",
        help="exit 1 when this clone is behind or ahead of the remote (for scripts and hooks)",
    )
    p.add_argument(
        "--keep-mine", action="append", default=[], metavar="PATH", help="settle a conflict on "
        "PATH with this clone's text"
    )  # fmt: skip
    p.add_argument(
        "--keep-theirs", action="append", default=[], metavar="PATH", help="settle a conflict on "
        "PATH with the remote's text (this clone's action on it is given up)"
    )  # fmt: skip
    p.add_argument(
        "--merged", action="append", default=[], metavar="PATH=FILE", help="settle a conflict "
        "on PATH with the text in FILE"
    )  # fmt: skip
    p.set_defaults(handler=cmd_sync)


def _resolutions(args: argparse.Namespace) -> dict[str, Resolution]:
    from curator.writer.syncmerge import merge_problems

    found: dict[str, Resolution] = {}
    for path in args.keep_mine:
        found[path] = "mine"
    for path in args.keep_theirs:
        found[path] = "theirs"
    for pair in args.merged:
        path, sep, file = pair.partition("=")
        if not sep or not path or not file:
            raise WriterError(f"--merged {pair!r}: give PATH=FILE")
        try:
            data = Path(file).read_bytes()
        except OSError as exc:
            raise WriterError(f"cannot read {file}: {exc.strerror}") from None
        problems = merge_problems(path, data)
        if problems:
            raise WriterError(f"--merged {path}={file}: " + "; ".join(problems))
        found[path] = data
    return found


def _plan_json(plan: object, *, made: bool = False) -> dict[str, object]:
    from curator.writer.sync import SyncPlan

    assert isinstance(plan, SyncPlan)

    def commits(items: tuple[object, ...], ids: bool = True) -> list[dict[str, str | None]]:
        return [
            {"commit": c.sha if ids else None, "subject": c.subject, "author": c.author}  # type: ignore[attr-defined]
            for c in items
        ]

    return {
        "remote": plan.remote,
        "branch": plan.branch,
        "up_to_date": plan.up_to_date,
        "incoming": commits(plan.incoming),
        # a commit to be replayed has no id until the sync makes it
        "outgoing": commits(plan.outgoing, ids=made or not plan.incoming),
        "dropped": commits(plan.dropped),
        "conflicts": [
            {"path": c.path, "kind": c.kind, "sentence": c.sentence(), "diff": c.diff()}
            for c in plan.conflicts
        ],
    }


def _show_conflicts(plan: object) -> None:
    """Both sides of each conflict the plan's lines named, as a diff."""
    for conflict in plan.conflicts:  # type: ignore[attr-defined]
        diff = conflict.diff().splitlines()
        if diff:
            out(f"Both sides of {conflict.path} (-: the remote's, +: this clone's):")
        for line in diff:
            out(f"    {line}")


class _TransferLine:
    """git's progress of a fetch or push on one stderr line, rewritten in place (a terminal
    only: a script's stderr gets no progress), cleared when the next output comes."""

    def __init__(self) -> None:
        self.shown = False

    def __call__(self, transfer: Transfer) -> None:
        sys.stderr.write(f"\r\x1b[K{clean(transfer.line())}")
        sys.stderr.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self.shown = False


def _progress() -> _TransferLine | None:
    return _TransferLine() if sys.stderr.isatty() else None


def _done(progress: _TransferLine | None) -> None:
    if progress is not None:
        progress.clear()


def cmd_sync(args: argparse.Namespace) -> int:
    progress = _progress()
    try:
        return _sync(args, progress)
    finally:
        _done(progress)  # an error's line must not follow the progress on its line


def _sync(args: argparse.Namespace, progress: _TransferLine | None) -> int:
    from curator.model.palace import find_palace
    from curator.session import Session
    from curator.writer.sync import SyncConflictError, plan_sync

    root = find_palace(args.palace)
    resolutions = _resolutions(args)
    if args.check or args.dry_run:
        plan = plan_sync(
            root, args.remote, resolutions, replay=not args.check, on_transfer=progress
        )
        _done(progress)
        if args.json:
            print_json(_plan_json(plan))
        else:
            for line in plan.lines():
                out(line)
            _show_conflicts(plan)
        return 1 if args.check and not plan.up_to_date else 0
    if not args.yes:  # the plan first, as for every action; then the sync fetches again
        if not sys.stdin.isatty():
            err("curator: refusing to sync without confirmation: pass --yes, or --dry-run")
            return 2
        plan = plan_sync(root, args.remote, resolutions, on_transfer=progress)
        _done(progress)
        for line in plan.lines():
            out(line)
        _show_conflicts(plan)
        if plan.conflicts or plan.up_to_date:
            return 1 if plan.conflicts else 0
        if input("Sync? [y/N] ").strip().lower() not in ("y", "yes"):
            out("Nothing changed.")
            return 1
    try:
        result = Session.open(root).sync(args.remote, resolutions, on_transfer=progress)
        _done(progress)
    except SyncConflictError as exc:
        _done(progress)
        if args.json:
            print_json({"synced": False, **_plan_json(exc.plan)})
        else:
            for line in exc.plan.lines():
                out(line)
            _show_conflicts(exc.plan)
            err(f"curator: {exc}")
        return 1
    if args.json:
        print_json(
            {
                "synced": True,
                "pushed": result.pushed,
                "attempts": result.attempts,
                "changed": list(result.changed),
                "warnings": list(result.warnings),
                "inbox": None
                if result.inbox is None
                else {
                    "received": list(result.inbox.received),
                    "taken": list(result.inbox.taken),
                    "kept_local": list(result.inbox.kept_local),
                    "shared": result.inbox.shared,
                },
                **_plan_json(result.plan, made=True),
            }
        )
        return 0
    for line in result.plan.lines(made=True):
        out(line)
    for line in result.inbox.lines() if result.inbox is not None else []:
        out(line)
    if result.attempts > 1:
        out(f"The remote moved during the sync; replayed again ({result.attempts} tries).")
    for warning in result.warnings:
        err(f"warning: {warning}")
    if not result.plan.up_to_date:  # (the plan's one line already says so)
        out(result.summary())
    return 0
