"""`curator import mem0|openmemory|jsonl FILE` and `curator export --format jsonl|mem0`.

Import writes drafts (never notes) and prints a summary with counts; export prints or writes
a snapshot. Exit codes: 0 done; 1 some records could not be imported (each named); 2 refused.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from curator.cli.common import SlowProgress, add_common, err, out, print_json
from curator.errors import CuratorError
from curator.model.text import with_article


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "import",
        help="import memories from mem0, OpenMemory or JSONL as inbox drafts",
        description="Each record becomes a draft in the inbox (never a note) with its creation "
        "date and its source (store, id, app). Archived and deleted records are skipped; "
        "records already imported (same store and id) are skipped.",
    )
    stores = p.add_subparsers(dest="store", metavar="STORE", required=True)
    helps = {
        "mem0": "a mem0 export: get_all() JSON ({'results': [...]} or a list) or JSONL",
        "openmemory": "an OpenMemory backup zip (memories.jsonl.gz or memories.json)",
        "jsonl": "one JSON object a line: text, and optional name, type, created, source",
    }
    for store, text in helps.items():
        q = stores.add_parser(store, help=text, description=text)
        q.add_argument("file", metavar="FILE", help="the export file")
        q.add_argument(
            "--type",
            dest="default_type",
            help="the type for records that name none the palace knows (asked on a terminal)",
        )
        q.add_argument("--dry-run", action="store_true", help="show what would be imported")
        add_common(q)
        q.set_defaults(handler=cmd_import)

    p = sub.add_parser(
        "export",
        help="write every note and draft with its header and body (a snapshot)",
        description="A snapshot of the palace: one record per note and draft. Sensitive "
        "notes are left out unless --include-sensitive is given.",
    )
    p.add_argument("--format", choices=("jsonl", "mem0"), default="jsonl")
    p.add_argument("--out", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    p.add_argument(
        "--include-sensitive", action="store_true", help="include sensitive notes and scopes"
    )
    p.set_defaults(handler=cmd_export)


def _ask_type(root: Path, count: int) -> str | None:
    from curator.config import load_config

    types = list(load_config(root).types)
    if not sys.stdin.isatty():
        return None
    answer = input(
        f"{count} record(s) name no type this palace knows. Type for them "
        f"({'/'.join(types)}; empty to stop): "
    ).strip()
    return answer or None


def cmd_import(args: argparse.Namespace) -> int:
    from curator.config import load_config
    from curator.interop.importer import run_import, untyped_count
    from curator.interop.records import READERS
    from curator.model.palace import find_palace

    root = find_palace(getattr(args, "palace", None))
    path = Path(args.file)
    if not path.is_file():
        raise CuratorError("no such file", path=str(path))
    items = list(READERS[args.store](path))
    default_type = args.default_type
    if default_type is None:
        missing = untyped_count(items, load_config(root))
        if missing and not args.json:
            default_type = _ask_type(root, missing)
    summary = run_import(root, args.store, items, default_type=default_type, dry_run=args.dry_run)
    if args.json:
        print_json(summary.to_json())
    else:
        verb = "would import" if summary.dry_run else "imported"
        for line in summary.imported:
            out(f"  {line}")
        for problem in summary.failed:
            err(f"{path}:{problem.line}: {problem.message}")
        for warning in summary.warnings:
            err(f"curator: warning: {warning}")
        skipped = ", ".join(f"{n} {state}" for state, n in sorted(summary.skipped.items()))
        out(
            f"{args.store}: {verb} {len(summary.imported)} draft(s); "
            f"{summary.already} already imported; skipped {skipped or 'none'}; "
            f"{summary.flagged} flagged for secrets; {len(summary.failed)} failed"
        )
    return 1 if summary.failed else 0


def cmd_export(args: argparse.Namespace) -> int:
    from curator.cli.common import open_palace
    from curator.fsutil import write_user_file
    from curator.interop.export import export_palace

    palace = open_palace(args)
    snapshot = export_palace(palace, include_sensitive=args.include_sensitive)
    text = snapshot.text(args.format)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)  # a dated snapshot's folder
        write_user_file(Path(args.out), text.encode("utf-8"))  # through a link the user made
    else:
        sys.stdout.write(text)
    if snapshot.left_out:
        err(f"curator: {snapshot.left_out} sensitive note(s) left out (--include-sensitive)")
    if snapshot.unreadable:
        err(f"curator: {snapshot.unreadable} file(s) did not parse; run 'curator check'")
    if args.out:
        err(f"curator: {len(snapshot.records)} record(s) written to {args.out}")
    return 0


def adopt(args: argparse.Namespace) -> int:
    """`curator init --adopt PATH`: show the plan, ask (or --yes), then write and commit."""
    from curator.model.layouts.adopt import plan_adopt
    from curator.writer.init import adopt_palace

    progress = SlowProgress("adopting")
    plan = plan_adopt(Path(args.path), layout=args.layout, name=args.name, progress=progress)
    progress.done()
    ok = not plan.unread and plan.note_count > 0
    if args.dry_run or not args.json:
        for line in plan.summary():
            out(line)
    if plan.note_count == 0:
        err(f"curator: {plan.layout} layout finds no notes under {plan.notes!r}; nothing adopted")
        return 2
    if args.dry_run:
        return 0 if ok else 1
    if not args.yes:
        if not sys.stdin.isatty():
            err("curator: refusing to adopt without confirmation: pass --yes, or --dry-run")
            return 2
        if input("Adopt this folder? [y/N] ").strip().lower() not in ("y", "yes"):
            out("Nothing changed.")
            return 1
    progress = SlowProgress("adopting")
    result = adopt_palace(Path(args.path), layout=args.layout, name=args.name, progress=progress)
    progress.done()
    if args.json:
        print_json(
            {
                "ok": ok,
                "root": str(plan.root),
                "layout": plan.layout,
                "notes": plan.notes,
                "inbox": plan.inbox,
                "read": plan.note_count,
                "unread": len(plan.unread),
                "commit": result.commit,
                "new_repository": result.new_repository,
                "untracked": len(result.untracked),
            }
        )
    else:
        made = " (new git repository)" if result.new_repository else ""
        adopted = f"Adopted {plan.root} as {with_article(plan.layout)} palace{made}"
        out(f"{adopted}; committed {result.commit[:10]}")
        if plan.unread:
            err(f"curator: warning: {len(plan.unread)} markdown file(s) will not be read")
    if result.untracked:
        err(
            f"curator: warning: {len(result.untracked)} note(s) are not in git yet (first: "
            f"{result.untracked[0]}): commit them so every change curator makes has a before"
        )
    return 0 if ok else 1
