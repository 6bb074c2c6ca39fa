"""audit: check notes' `verify` headers against the world; mark failing notes stale (one commit)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from curator.cli.common import (
    Subcommands,
    add_apply_options,
    confirmed,
    err,
    open_palace,
    out,
    print_json,
)
from curator.model.text import one_line

EPILOG = """\
Each note with a `verify` header is checked: its `paths` must exist under its scope's root
(palace.toml [scopes.NAME] root; by default the repository around the palace) and its
`command` must exit 0 (and print `expect`, if given). Commands run only when the palace's
[audit] allow list names the program, never through a shell, contained (time, CPU, memory,
no file writes, no network, clean environment). Inbox drafts are never audited.

A failing note gets `stale: {reason, since}`; a stale note that passes again has it cleared.
All changes are one commit; a run that changes nothing makes no commit. The full report is
kept in .curator/audit/ (see --last).

exit status:
  0  the audit ran and every checked note passed
  1  some notes failed (now stale) or have a malformed/escaping verify header
  2  nothing was checked, the auditor itself failed, the commit failed, or bad input
"""


def register(sub: Subcommands) -> None:
    p = sub.add_parser(
        "audit",
        help="check notes' verify paths and commands; mark failing notes stale (one commit)",
        description="Check notes' verify paths and commands against the project.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("notes", nargs="*", metavar="NOTE", help="only these notes (path, slug, name)")
    p.add_argument(
        "--changed-since", metavar="REV", help="only notes changed since this git revision"
    )
    p.add_argument(
        "--jobs",
        "-j",
        type=_jobs,
        metavar="N",
        help="parallel checks (default: palace.toml [audit] jobs, 4)",
    )
    p.add_argument("--last", action="store_true", help="show the latest saved report; run nothing")
    add_apply_options(p)
    p.set_defaults(handler=cmd_audit)


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 1 <= value <= 64:
        raise argparse.ArgumentTypeError("--jobs must be from 1 to 64")
    return value


class _ProgressLine:
    """`audit 37/120 notes/x.md` rewritten in place on a terminal's stderr."""

    def __init__(self) -> None:
        self.width = 0

    def __call__(self, done: int, total: int, rel: str) -> None:
        line = one_line(f"audit {done}/{total} {rel}", 100)
        pad = max(0, self.width - len(line))
        sys.stderr.write("\r" + line + " " * pad)
        sys.stderr.flush()
        self.width = len(line)

    def finish(self) -> None:
        if self.width:
            sys.stderr.write("\r" + " " * self.width + "\r")
            sys.stderr.flush()


def cmd_audit(args: argparse.Namespace) -> int:
    from curator.audit.report import load_latest
    from curator.audit.run import audit_and_commit, commit_audit

    palace = open_palace(args)
    if args.last:
        if args.notes or args.changed_since or args.dry_run:
            err("curator: error: --last shows the saved report; it takes no notes or options")
            return 2
        report = load_latest(palace.root)
        if report is None:
            err("curator: no audit report yet: run 'curator audit'")
            return 2
        _show(report, args.json, last=True)
        return 0
    progress = _ProgressLine() if sys.stderr.isatty() and not args.json else None
    try:
        report, plan = audit_and_commit(
            palace,
            args.notes or None,
            changed_since=args.changed_since,
            jobs=args.jobs,
            progress=progress,
            dry_run=True,
        )
    finally:
        if progress is not None:
            progress.finish()
    if args.dry_run:
        if plan is not None and not args.json:
            out(plan.diff())
    elif plan is not None and (refused := confirmed(args, plan)) is not None:
        _show(report, args.json)
        return refused
    else:
        report.dry_run = False
        from curator.session import Session

        commit_audit(palace, report, plan, (Session(palace).after_commit,))
    _show(report, args.json)
    return report.exit_code()


def _show(report: Any, as_json: bool, *, last: bool = False) -> None:
    if as_json:
        data = report.to_json()
        data["exit_code"] = report.exit_code()
        print_json(data)
        return
    if last:
        out(f"audit {report.run_id} ({report.started}, {report.selection})")
    for res in report.results:
        if res.status == "pass":
            continue
        label = {"fail": "FAIL", "error": "ERROR", "skipped": "SKIPPED",
                 "auditor-error": "AUDITOR"}[res.status]  # fmt: skip
        how = f" [{res.command.contained}]" if res.command is not None else ""
        out(f"{label:<8} {res.path}: {one_line(res.reason, 300)}{how}")
    for change in report.changes:
        if change.kind == "stale":
            out(f"stale    {change.path}: {one_line(change.reason, 200)}")
        else:
            out(f"cleared  {change.path}")
    out(report.summary())
    if report.dry_run:
        out("dry run: nothing written")
    elif report.commit:
        out(f"committed {report.commit[:10]}")
    elif report.commit_error:
        err(f"curator: the audit's changes were not committed: {report.commit_error}")
    elif not report.checked_nothing:
        out("no changes: nothing to commit")
