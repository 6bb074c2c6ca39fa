"""`curator task ...`: task checkpoints, their owner, and the person's requests word for word.

Each command that acts for someone takes --as OWNER (default $CURATOR_AGENT, else user@host)
and --revision N, the revision that owner last read (default: the one they last read or wrote
through curator). A refusal exits 2 with a sentence that names who holds the task.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from curator.cli.common import add_common, err, out, print_json
from curator.model.palace import find_palace


def _service(args: argparse.Namespace) -> Any:
    from curator.tasks import TaskService

    return TaskService(find_palace(getattr(args, "palace", None)))


def _owner(args: argparse.Namespace) -> str:
    from curator.tasks import default_owner

    return str(args.owner or default_owner())


def _common(parser: argparse.ArgumentParser, *, acts: bool = True, revision: bool = True) -> None:
    add_common(parser)
    if acts:
        parser.add_argument(
            "--as",
            dest="owner",
            metavar="OWNER",
            help="who acts (default: $CURATOR_AGENT, else user@host)",
        )
    if revision:
        parser.add_argument(
            "--revision",
            type=int,
            metavar="N",
            help="the revision you last read (default: the last one you read or wrote)",
        )


def _report(args: argparse.Namespace, outcome: Any, verb: str) -> int:
    if args.json:
        print_json(outcome.as_dict())
        return 0
    h = outcome.header
    holder = f"held by {h.owner} until {h.expires_at}" if h.owner else "held by nobody"
    out(f"{verb} {outcome.path} (revision {h.revision}, {h.status}, {holder})")
    if outcome.committed.sha:
        out(f"committed {outcome.committed.sha[:10]}")
    if outcome.committed.warning:
        sys.stderr.write(f"curator: warning: {outcome.committed.warning}\n")
    return 0


def _new(args: argparse.Namespace) -> int:
    outcome = _service(args).new(args.slug, args.objective, _owner(args))
    return _report(args, outcome, "created")


def _stdin(what: str) -> bytes:
    if sys.stdin.isatty():
        sys.stderr.write(f"curator: reading {what} from stdin; end with Ctrl-D\n")
    return sys.stdin.buffer.read()


def _save(args: argparse.Namespace) -> int:
    data = _stdin("the checkpoint (the seven sections as markdown headings)")
    text = data.decode("utf-8", errors="replace")
    outcome = _service(args).save(
        args.slug,
        _owner(args),
        text,
        base=args.revision,
        status=args.status,
        unverified=args.unverified,
    )
    return _report(args, outcome, "saved")


def _claim(args: argparse.Namespace) -> int:
    svc = _service(args)
    outcome = svc.claim(args.slug, _owner(args), base=args.revision, take_over=args.take_over)
    return _report(args, outcome, "took over" if args.take_over else "claimed")


def _release(args: argparse.Namespace) -> int:
    outcome = _service(args).release(args.slug, _owner(args), base=args.revision, force=args.force)
    return _report(args, outcome, "released")


def _done(args: argparse.Namespace) -> int:
    status = "abandoned" if args.abandoned else "done"
    outcome = _service(args).set_status(
        args.slug, _owner(args), status, base=args.revision, force=args.force
    )
    return _report(args, outcome, f"marked {status}")


def _request(args: argparse.Namespace) -> int:
    words = _stdin("the person's request, word for word")
    request, committed = _service(args).request(args.slug, _owner(args), words)
    if args.json:
        print_json(
            {
                "task": args.slug,
                "request": request.number,
                "at": request.at,
                "by": request.by,
                "bytes": len(request.words),
                "commit": committed.sha,
                "warning": committed.warning,
            }
        )
    else:
        out(f"recorded request {request.number} of task {args.slug} ({len(words)} bytes)")
        if committed.warning:
            sys.stderr.write(f"curator: warning: {committed.warning}\n")
    return 0


def _show(args: argparse.Namespace) -> int:
    svc = _service(args)
    cp = svc.show(args.slug, owner=_owner(args), revision=args.revision)
    data = svc.store.read_bytes(args.slug, cp.header.revision)
    requests, warnings = svc.read_requests(args.slug)
    if args.json:
        print_json(
            {
                "task": args.slug,
                "path": svc.store.rel(args.slug, f"{cp.header.revision:04d}.md"),
                "header": cp.header.as_dict(),
                "sections": cp.sections,
                "requests": [
                    {"number": r.number, "at": r.at, "by": r.by, "text": r.text} for r in requests
                ],
                "warnings": [str(w) for w in warnings],
            }
        )
    else:
        out(data.decode("utf-8", "replace").rstrip("\n"))
    for warning in warnings:
        err(f"curator: warning: {warning}")
    return 0


def _list(args: argparse.Namespace) -> int:
    from curator.tasks.checkpoint import OPEN_STATUSES
    from curator.tasks.claims import age_text

    rows, broken = _service(args).rows()
    if not args.all:
        rows = [r for r in rows if r.header.status in OPEN_STATUSES]
    if args.json:
        print_json({"tasks": [r.as_dict() for r in rows], "broken": [str(e) for e in broken]})
        return 0
    for r in rows:
        h = r.header
        flag = " STALE" if r.stale else ""
        flag += " LAPSED" if r.lapsed else ""
        out(
            f"{h.task:<24} {h.status:<9} {h.owner or '-':<20} {age_text(r.age):>5}{flag}  "
            f"{h.next_action}"
        )
    for e in broken:
        out(f"broken: {e}")
    return 0


def _history(args: argparse.Namespace) -> int:
    svc = _service(args)
    if args.diff:
        a, b = args.diff
        text = svc.diff(args.slug, a, b)
        if args.json:
            print_json({"task": args.slug, "from": a, "to": b, "diff": text})
        else:
            out(text.rstrip("\n"))
        return 0
    headers = svc.history(args.slug)
    if args.json:
        print_json({"task": args.slug, "revisions": [h.as_dict() for h in headers]})
        return 0
    for h in headers:
        extra = f" (took over from {h.taken_over_from})" if h.taken_over_from else ""
        mark = " unverified" if h.unverified else ""
        out(
            f"{h.revision:04d}  {h.saved_at}  {h.event:<10} by {h.by or '-'}  "
            f"owner {h.owner or '-'}{extra}{mark}"
        )
    return 0


def register(sub: Any) -> None:
    task = sub.add_parser("task", help="task checkpoints: save, claim, release, requests")
    tsub = task.add_subparsers(dest="task_command", metavar="ACTION", required=True)

    p = tsub.add_parser("new", help="start a task (you hold it)")
    p.add_argument("slug")
    p.add_argument("--objective", required=True, help="what the task is for")
    _common(p, revision=False)
    p.set_defaults(handler=_new)

    p = tsub.add_parser("save", help="save a checkpoint (seven sections as markdown on stdin)")
    p.add_argument("slug")
    # the statuses a save may set are the tasks' own (checkpoint.OPEN_STATUSES), checked by
    # the save (built for every command, this parser imports nothing of curator.tasks)
    p.add_argument("--status", help="an open status: active or waiting (default: unchanged)")
    p.add_argument("--unverified", action="store_true", help="a hook wrote it, not the agent")
    _common(p)
    p.set_defaults(handler=_save)

    p = tsub.add_parser("show", help="print a revision (the newest by default)")
    p.add_argument("slug")
    _common(p)
    p.set_defaults(handler=_show)

    p = tsub.add_parser("list", help="every open task with owner, status, age, next action")
    p.add_argument("--all", action="store_true", help="done and abandoned tasks too")
    _common(p, acts=False, revision=False)
    p.set_defaults(handler=_list)

    p = tsub.add_parser("claim", help="take ownership of a task")
    p.add_argument("slug")
    p.add_argument("--take-over", action="store_true", help="take over a lapsed claim")
    _common(p)
    p.set_defaults(handler=_claim)

    p = tsub.add_parser("release", help="hand a task back")
    p.add_argument("slug")
    p.add_argument("--force", action="store_true", help="free someone else's stuck claim")
    _common(p)
    p.set_defaults(handler=_release)

    p = tsub.add_parser("done", help="mark a task done (or --abandoned)")
    p.add_argument("slug")
    p.add_argument("--abandoned", action="store_true")
    p.add_argument("--force", action="store_true", help="even though someone else holds it")
    _common(p)
    p.set_defaults(handler=_done)

    p = tsub.add_parser("request", help="record the person's request (stdin) word for word")
    p.add_argument("slug")
    _common(p, revision=False)
    p.set_defaults(handler=_request)

    p = tsub.add_parser("history", help="a task's revisions, or a diff between two")
    p.add_argument("slug")
    p.add_argument("--diff", nargs=2, type=int, metavar=("A", "B"))
    _common(p, acts=False, revision=False)
    p.set_defaults(handler=_history)
