"""init, list, show, check, index: reading the palace and keeping INDEX.md current."""

from __future__ import annotations

import argparse
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

from curator.cli.common import (
    SlowProgress,
    Subcommands,
    add_apply_options,
    err,
    open_palace,
    out,
    print_json,
)
from curator.cli.filter_flags import add_filter_flags, filter_from_args
from curator.config import TAXONOMIES
from curator.model import palace_rules
from curator.model.finding import Finding
from curator.model.index_md import index_is_current
from curator.model.links import RawLink
from curator.model.note import Note
from curator.model.palace import Palace
from curator.model.schema import not_current, unreadable
from curator.model.text import one_line
from curator.search.filters import Filter, note_row


def register(sub: Subcommands) -> None:
    p = sub.add_parser("init", help="create a new palace (palace.toml, notes/, inbox, INDEX.md)")
    p.add_argument("path", nargs="?", default=".", help="folder for the palace (default: here)")
    p.add_argument("--taxonomy", default="palace", choices=sorted(TAXONOMIES), help="type preset")
    p.add_argument("--name", help="palace name (default: the folder name)")
    p.add_argument(
        "--adopt",
        action="store_true",
        help="make an existing memory folder (Claude Code, Obsidian, basic-memory, markdown) a "
        "palace in place: palace.toml and .gitignore only, no note moved or rewritten",
    )
    p.add_argument("--layout", help="with --adopt: the layout (default: detected)")
    p.add_argument("--dry-run", action="store_true", help="with --adopt: show the plan only")
    p.add_argument("--yes", "-y", action="store_true", help="with --adopt: do not ask")
    p.set_defaults(handler=cmd_init)

    p = sub.add_parser("list", help="list notes with their flags")
    add_filter_flags(p)  # the same flags as `search`, from the one Filter
    p.add_argument("--due", action="store_true", help="only notes due for review or expired")
    p.add_argument(
        "--all", action="store_true", help="also the layout's templates (files, not notes)"
    )
    p.set_defaults(handler=cmd_list)

    p = sub.add_parser("show", help="show one note: header, body, links, backlinks, chain")
    p.add_argument("note", help="path, slug or name of a note or draft")
    p.set_defaults(handler=cmd_show)

    p = sub.add_parser("check", help="lint the palace; exit 1 on errors (fits a pre-commit hook)")
    p.add_argument("--quiet", "-q", action="store_true", help="print errors only")
    p.set_defaults(handler=cmd_check)

    p = sub.add_parser("index", help="regenerate INDEX.md (one commit)")
    p.add_argument("--check", action="store_true", help="exit 1 when INDEX.md is out of date")
    p.add_argument(
        "--served",
        action="store_true",
        help="print the index as agents may see it (hidden notes left out); writes nothing",
    )
    add_apply_options(p)
    p.set_defaults(handler=cmd_index)


# -- init --------------------------------------------------------------------------------
def cmd_init(args: argparse.Namespace) -> int:
    from curator.writer.init import init_palace

    if args.adopt:
        from curator.cli.interop_cmds import adopt

        return adopt(args)
    result = init_palace(Path(args.path), taxonomy=args.taxonomy, name=args.name)
    if result.unread:  # never report success over files the palace will not read
        err(
            f"curator: warning: {len(result.unread)} markdown file(s) outside notes/ will not "
            f"be read (first: {result.unread[0]}); for memory kept where it is, use "
            "'curator init --adopt'"
        )
    ok = not result.unread
    if args.json:
        print_json(
            {"ok": ok, "root": str(result.root), "taxonomy": args.taxonomy,
             "commit": result.commit, "unread": len(result.unread)}
        )  # fmt: skip
        return 0 if ok else 1
    out(f"Created palace {result.root} ({args.taxonomy} taxonomy)")
    if result.commit:
        out(f"Committed {result.commit[:10]}")
    return 0 if ok else 1


# -- list --------------------------------------------------------------------------------
def note_summary(palace: Palace, note: Note, today: date) -> dict[str, Any]:
    return {
        "path": note.rel,
        "slug": note.slug,
        "name": note.name,
        "description": note.description,
        "type": note.type,
        "status": note.status,
        "scope": note.scope,
        "confidence": palace.known_confidence(note),
        "flags": palace.flags(note, today),
        "stale": note.stale,
        "created": note.created,
        "reviewed": note.reviewed,
        "ok": note.ok,
    }


def _selected(palace: Palace, args: argparse.Namespace, today: date) -> tuple[list[Note], int]:
    """The notes `list` shows, and how many the visibility gate hid (every filter value is
    checked by `Filter.of`, as for search and the MCP tools)."""
    flt = filter_from_args(args, palace)
    chosen, hidden = [], 0
    for note in palace.all():
        row = note_row(palace, note)
        row["stale"] = note.kind == "note" and not_current(note, today) is not None
        if unreadable(note):  # listed as unreadable (check names it too); nothing read from it
            row["sensitive"] = False
        if not flt.ok(row):
            hidden += not flt.visible(row) and _passes_but_for_visibility(flt, row)
            continue
        if args.due and not ({"due", "expired"} & set(palace.flags(note, today))):
            continue
        chosen.append(note)
    return chosen, hidden


def _passes_but_for_visibility(flt: Filter, row: dict[str, object]) -> bool:
    """Would the row pass but for its visibility?"""
    return replace(flt, include_sensitive=True).ok(row)


def cmd_list(args: argparse.Namespace) -> int:
    palace = open_palace(args)
    today = date.today()
    notes, hidden = _selected(palace, args, today)
    problems = _load_errors(palace)
    templates = palace_rules.templates(palace) if args.all else []
    if args.json:
        # the room each note is in, as the app's Rooms shows it (None: Unfiled or superseded)
        rooms = {n.rel: room.spec.room for room in palace.rooms() for n in room.notes}
        data = {
            "notes": [{**note_summary(palace, n, today), "room": rooms.get(n.rel)} for n in notes],
            "problems": [f.to_json() for f in problems],
            "hidden_sensitive": hidden,
        }
        if args.all:
            data["templates"] = templates
        print_json(data)
        return 0
    for note in notes:
        flags = ",".join(palace.flags(note, today))
        known = palace.known_confidence(note)
        conf = f"{known:.2f}" if known is not None else "  ? "
        name = one_line(note.name, 60) if note.ok else "(unreadable header)"
        out(
            f"{note.type or '?':<10} {conf} {name:<60} {note.rel}"
            + (f"  [{flags}]" if flags else "")
        )
    for rel in templates:
        out(f"{'template':<10} {'':4} {'':<60} {rel}")
    for finding in problems:
        err(finding.format())
    if not args.json:
        summary = f"{len(notes)} notes" + (f", {len(problems)} unreadable" if problems else "")
        if templates:
            summary += f", {len(templates)} templates"
        if hidden:
            summary += f", {hidden} sensitive not shown (--include-sensitive)"
        err(summary)
    return 0


def _load_errors(palace: Palace) -> list[Finding]:
    """Files that could not be read: errors for notes, warnings for drafts (as in check)."""
    found = list(palace.problems)
    for note in palace.all():
        for finding in note.problems:
            if finding.severity == "error":
                found.append(
                    replace(finding, severity="warning") if note.kind == "draft" else finding
                )
    return found


# -- show --------------------------------------------------------------------------------
def cmd_show(args: argparse.Namespace) -> int:
    palace = open_palace(args)
    note = palace.find(args.note)
    today = date.today()
    links = [
        {
            "target": link.raw.target,
            "resolved": link.target,
            "line": link.raw.line,
            "problem": _link_problem(palace, note, link.raw) if link.target is None else None,
        }
        for link in palace.outgoing(note)
    ]
    backlinks = [{"source": link.source, "line": link.raw.line} for link in palace.backlinks(note)]
    chain = [n.rel for n in palace.chain(note)] if note.kind == "note" else []
    if args.json:
        data = note_summary(palace, note, today)
        data.update(
            header=note.header,
            body=note.body,
            links=links,
            backlinks=backlinks,
            chain=chain,
            problems=[f.to_json() for f in note.problems],
        )
        print_json(data)
        return 0
    out(f"{note.rel}")
    for finding in note.problems:
        out(f"  ! {finding.format()}")
    flags = palace.flags(note, today)
    if flags:
        out(f"  flags: {', '.join(flags)}")
    out(note.text.rstrip())
    out()
    if links:
        out("Links:")
        for link in links:
            target = link["resolved"] or f"BROKEN: {link['target']}"
            why = f": {link['problem']}" if link["problem"] else ""
            out(f"  -> {one_line(str(target) + why, 200)}  (line {link['line']})")
    if backlinks:
        out("Backlinks:")
        for back in backlinks:
            out(f"  <- {back['source']}  (line {back['line']})")
    if len(chain) > 1:
        out("Supersede chain (oldest first):")
        for rel in chain:
            out(f"  {'*' if rel == note.rel else ' '} {rel}")
    return 0


def _link_problem(palace: Palace, note: Note, raw: RawLink) -> str | None:
    """What another tool's layout says about a link that reaches nothing (an Obsidian alias
    names the notes it would match)."""
    return palace_rules.link_problem(palace, note.rel, raw) if palace.foreign_layout else None


# -- check -------------------------------------------------------------------------------
def cmd_check(args: argparse.Namespace) -> int:
    from curator.health import palace_findings

    progress = SlowProgress("checking")
    palace = open_palace(args, progress=progress)
    progress.done()
    findings = palace_findings(palace)
    errors = [f for f in findings if f.severity == "error"]
    warnings = [f for f in findings if f.severity == "warning"]
    if args.json:
        print_json(
            {
                "ok": not errors,
                "errors": len(errors),
                "warnings": len(warnings),
                "notes": len(palace.notes),
                "drafts": len(palace.drafts),
                "findings": [f.to_json() for f in findings],
            }
        )
    else:
        for finding in errors if args.quiet else findings:
            out(finding.format())
        out(
            f"{len(palace.notes)} notes, {len(palace.drafts)} drafts: "
            f"{len(errors)} errors, {len(warnings)} warnings"
        )
    return 1 if errors else 0


# -- index -------------------------------------------------------------------------------
def cmd_index(args: argparse.Namespace) -> int:
    if args.served:  # what the agents' INDEX.md resource answers, for agents without MCP
        from curator.agents.service import Memory

        text = Memory(open_palace(args).root).index_md()
        if args.json:
            print_json({"index": text})
        else:
            out(text.rstrip("\n"))
        return 0
    palace = open_palace(args)
    current = index_is_current(palace)
    if args.check:
        if args.json:
            print_json({"current": current})
        else:
            out(
                "INDEX.md is up to date"
                if current
                else "INDEX.md is out of date: run 'curator index'"
            )
        return 0 if current else 1
    if current:
        if args.json:
            print_json({"changed": False})
        else:
            out("INDEX.md is up to date")
        return 0
    from curator.cli.common import apply_or_show
    from curator.writer.actions.index import plan_index

    plan = plan_index(palace)
    return apply_or_show(args, palace, plan)
