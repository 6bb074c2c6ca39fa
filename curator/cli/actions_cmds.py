"""Curation actions: promote, reject, edit, supersede, merge, retire, review, undo, history.

Each is planned by `curator.writer.actions` (pure, shown by --dry-run) and applied as one git
commit by `curator.writer.session.commit` — the same functions the app calls.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING

from curator.cli.common import (
    Subcommands,
    add_apply_options,
    apply_or_show,
    err,
    open_palace,
    out,
    planned,
    print_json,
)
from curator.errors import CuratorError
from curator.model.palace import Palace, ensure_state_dir, find_palace

if TYPE_CHECKING:
    from curator.writer.plan import Plan


def register(sub: Subcommands) -> None:
    p = sub.add_parser("promote", help="move a draft into the palace with a checked header")
    p.add_argument("draft", help="path, slug or name of a draft in the inbox")
    p.add_argument("--type", help="the note's type")
    p.add_argument("--name", help="the note's name (one line, unique)")
    p.add_argument("--description", help="one-line description")
    p.add_argument("--confidence", type=float, help="0-1, within the type's range")
    p.add_argument("--scope", help="a scope from palace.toml")
    p.add_argument("--supersedes", metavar="NOTE", help="the promoted note replaces this note")
    p.add_argument(
        "--allow-secret", action="store_true", help="promote even if a secret was flagged"
    )
    p.add_argument("--reason", default="", help="why (goes into the commit message)")
    add_apply_options(p)
    p.set_defaults(handler=cmd_promote)

    p = sub.add_parser("reject", help="move a draft to .curator/rejected/ (kept, restorable)")
    p.add_argument("draft")
    p.add_argument("--reason", required=True, help="why the draft is rejected")
    add_apply_options(p)
    p.set_defaults(handler=cmd_reject)

    p = sub.add_parser("edit", help="edit a note in $EDITOR; validated on save, then committed")
    p.add_argument("note")
    p.add_argument(
        "--from", dest="from_file", metavar="FILE", help="take the new text from FILE ('-': stdin)"
    )
    p.add_argument("--reason", default="", help="why (goes into the commit message)")
    add_apply_options(p)
    p.set_defaults(handler=cmd_edit)

    p = sub.add_parser("supersede", help="mark OLD superseded by NEW")
    p.add_argument("old")
    p.add_argument("--by", required=True, metavar="NEW", help="the note that replaces OLD")
    p.add_argument(
        "--relink", action="store_true", help="rewrite links to OLD so they point at NEW"
    )
    p.add_argument("--reason", default="")
    add_apply_options(p)
    p.set_defaults(handler=cmd_supersede)

    p = sub.add_parser(
        "merge", help="merge notes into one new note (sources are superseded, never deleted)"
    )
    p.add_argument("notes", nargs="+", help="two or more notes; or one draft with --into-note")
    p.add_argument("--into", metavar="NAME", help="name of the new merged note")
    p.add_argument(
        "--into-note", metavar="NOTE", help="fold a draft into this existing note instead"
    )
    p.add_argument("--description", help="description of the merged note")
    p.add_argument("--type", help="type of the merged note (when the sources differ)")
    p.add_argument("--reason", default="")
    add_apply_options(p)
    p.set_defaults(handler=cmd_merge)

    p = sub.add_parser("retire", help="soft-remove a note (superseded with no successor)")
    p.add_argument("note")
    p.add_argument("--reason", required=True)
    add_apply_options(p)
    p.set_defaults(handler=cmd_retire)

    p = sub.add_parser("review", help="mark a note reviewed today (it was read and still holds)")
    p.add_argument("note")
    p.add_argument("--reason", default="")
    add_apply_options(p)
    p.set_defaults(handler=cmd_review)

    p = sub.add_parser(
        "undo", help="revert one curator action (the last by default) with a new commit"
    )
    p.add_argument("commit", nargs="?", help="the action's commit (default: the last action)")
    add_apply_options(p)
    p.set_defaults(handler=cmd_undo)

    p = sub.add_parser("history", help="curator actions from git log, newest first")
    p.add_argument("--limit", type=int, default=None)
    p.add_argument(
        "--author", metavar="WHO", help="only this reviewer's actions (part of a name or e-mail)"
    )
    p.set_defaults(handler=cmd_history)

    p = sub.add_parser("recover", help="finish or roll back an action interrupted by a crash")
    p.set_defaults(handler=cmd_recover)


def cmd_promote(args: argparse.Namespace) -> int:
    from curator.writer.actions.promote import plan_promote

    def plan(palace: Palace | None) -> Plan:
        assert palace is not None
        return plan_promote(
            palace,
            args.draft,
            type=args.type,
            name=args.name,
            description=args.description,
            confidence=args.confidence,
            scope=args.scope,
            allow_secret=args.allow_secret,
            supersedes=args.supersedes,
            reason=args.reason,
        )

    return apply_or_show(args, *planned(args, plan))


def cmd_reject(args: argparse.Namespace) -> int:
    from curator.writer.actions.reject import plan_reject

    palace = open_palace(args)
    return apply_or_show(args, palace, plan_reject(palace, args.draft, args.reason))


def _edit_in_editor(palace_root: Path, rel: str, original: bytes) -> bytes:
    from curator.editor import editor_command, run_editor

    state = ensure_state_dir(palace_root) / "edits"
    state.mkdir(exist_ok=True)
    argv = editor_command("vi") or ["vi"]
    try:
        result = run_editor(argv, original, folder=state, prefix=Path(rel).stem + ".")
    except OSError as exc:
        raise CuratorError(f"could not start the editor {argv[0]!r}: {exc.strerror}") from None
    if result.returncode != 0:
        raise CuratorError(
            f"the editor exited with {result.returncode}; nothing changed ({result.path} kept)"
        )
    if result.data == original:
        result.path.unlink(missing_ok=True)
    return result.data


def cmd_edit(args: argparse.Namespace) -> int:
    import sys

    from curator.fsutil import note_bytes
    from curator.writer.actions.common import ActionError
    from curator.writer.actions.edit import plan_edit

    palace = open_palace(args)
    note = palace.find(args.note)
    original = note_bytes(note.text, note.bom)
    if args.from_file == "-":
        new = sys.stdin.buffer.read()
    elif args.from_file:
        new = Path(args.from_file).read_bytes()
    else:
        new = _edit_in_editor(palace.root, note.rel, original)
    if new == original:
        out(f"No change to {note.rel}.")
        return 0
    try:
        plan = plan_edit(palace, note.rel, new, reason=args.reason)
    except ActionError as exc:
        aside = (
            ensure_state_dir(palace.root)
            / "edits"
            / f"{note.slug}.{time.strftime('%Y%m%dT%H%M%S')}.md"
        )
        aside.parent.mkdir(exist_ok=True)
        aside.write_bytes(new)
        err(f"curator: error: {exc}")
        err(
            f"curator: your edited text is kept at {aside.relative_to(palace.root)};"
            f" {note.rel} is unchanged"
        )
        return 2
    return apply_or_show(args, palace, plan, confirm=False)  # the editor was the confirmation


def cmd_supersede(args: argparse.Namespace) -> int:
    from curator.writer.actions.common import inbound
    from curator.writer.actions.supersede import plan_supersede

    palace = open_palace(args)
    old = palace.find(args.old, kinds=("note",))
    links = inbound(palace, old)
    plan = plan_supersede(palace, args.old, args.by, relink=args.relink, reason=args.reason)
    if links and not args.json:
        verb = (
            "rewritten to the new note"
            if args.relink
            else "still point at the old note (use --relink to move them)"
        )
        err(f"{len(links)} links {verb}:")
        for link in links:
            err(f"  {link}")
    return apply_or_show(args, palace, plan)


def cmd_merge(args: argparse.Namespace) -> int:
    from curator.writer.actions.merge import plan_merge, plan_merge_draft

    palace = open_palace(args)
    if args.into_note:
        if len(args.notes) != 1:
            raise CuratorError("--into-note folds exactly one draft into a note")
        plan = plan_merge_draft(palace, args.notes[0], args.into_note, reason=args.reason)
    else:
        if not args.into:
            raise CuratorError(
                "name the merged note with --into NAME (or fold a draft with --into-note)"
            )
        plan = plan_merge(
            palace,
            args.notes,
            args.into,
            description=args.description,
            type=args.type,
            reason=args.reason,
        )
    return apply_or_show(args, palace, plan)


def cmd_retire(args: argparse.Namespace) -> int:
    from curator.writer.actions.retire import plan_retire

    palace = open_palace(args)
    return apply_or_show(args, palace, plan_retire(palace, args.note, args.reason))


def cmd_review(args: argparse.Namespace) -> int:
    from curator.writer.actions.review import plan_mark_reviewed

    palace = open_palace(args)
    return apply_or_show(args, palace, plan_mark_reviewed(palace, args.note, reason=args.reason))


def cmd_undo(args: argparse.Namespace) -> int:
    from curator.writer.actions.undo import undo  # the one undo, the app's too

    root = find_palace(args.palace)
    # undo loads the palace itself, after finding its commit, unless the search index holds
    # it: loading one here first made the command load it twice (the second time to be sure
    # it is newer than HEAD)
    _, plan = planned(args, lambda before: undo(root, args.commit, before=before), load=False)
    return apply_or_show(args, None, plan)


def cmd_history(args: argparse.Namespace) -> int:
    from curator.model.palace import find_palace
    from curator.writer.history import history

    entries = history(find_palace(args.palace), limit=args.limit, author=args.author)
    if args.json:
        print_json(
            [
                {
                    "commit": e.sha,
                    "action": e.action,
                    "notes": list(e.notes),
                    "reason": e.reason,
                    "author": e.author,
                    "date": e.date.isoformat(),
                    "subject": e.subject,
                    "undoable": e.undoable,
                }
                for e in entries
            ]
        )
        return 0
    if not entries:
        out("No curator actions yet.")
    for e in entries:
        out(f"{e.sha[:10]}  {e.when}  {e.action:<9} {e.subject}")
        reason = f"{e.reason.splitlines()[0]}  " if e.reason else ""
        out(f"            {reason}— {e.author}")
    return 0


def cmd_recover(args: argparse.Namespace) -> int:
    from curator.model.palace import find_palace
    from curator.writer.apply import recover

    report = recover(find_palace(args.palace))
    if args.json:
        print_json(
            {
                "recovered": None
                if report is None
                else {
                    "outcome": report.outcome,
                    "action": report.action,
                    "paths": list(report.paths),
                    "commit": report.sha,
                    "sentence": report.sentence,
                }
            }
        )
    else:
        out("Nothing to recover." if report is None else str(report))
    return 0
