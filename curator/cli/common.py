"""What every subcommand shares: the common options, finding the palace, printing, JSON,
confirmation, errors and exit codes (the table is `curator.errors.EXIT_CODES`)."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

from curator.errors import EXIT_OK, CuratorError, exit_code
from curator.model.palace import Palace, find_palace
from curator.model.text import clean
from curator.search.hooks import INDEX_STATE

if TYPE_CHECKING:
    from curator.session import Session
    from curator.writer.plan import Plan

Handler = Callable[[argparse.Namespace], int]


class Parser(argparse.ArgumentParser):
    """An argument error is one line on stderr (exit 2), and also a JSON object on stdout when
    the command line asks for --json: a reader parsing stdout gets JSON whatever went wrong."""

    wants_json = False

    def error(self, message: str) -> NoReturn:
        if Parser.wants_json:
            sys.stdout.write(json.dumps({"error": f"{self.prog}: {message}", "exit_code": 2}))
            sys.stdout.write("\n")
        super().error(message)


def open_palace(
    args: argparse.Namespace, *, cache: bool = True, progress: Callable[[int], None] | None = None
) -> Palace:
    from curator.runtime import collector_paused, freeze_loaded

    root = find_palace(getattr(args, "palace", None))
    with collector_paused():  # a load makes no cyclic garbage: see curator.runtime
        palace = Palace.open(root, cache=cache, progress=progress)
        # the command holds its palace to its end: the collector need not scan it. Frozen
        # before the collector is on again, whose first collection would scan all of it
        freeze_loaded()
    return palace


def planned(
    args: argparse.Namespace, make: Callable[[Palace | None], Plan], *, load: bool = True
) -> tuple[Palace | None, Plan]:
    """(the loaded palace or None, the plan `make` makes): first from the palace as the
    search index holds it, when the index is in step with the files (no note loaded:
    `curator.search.cold.indexed_palace`); from the loaded palace when there is no such
    index or the plan needs what only every note answers (NeedsPalace). `load`: the
    fallback loads the palace (else `make(None)` loads it itself)."""
    from curator.runtime import collector_paused

    # planning makes no cyclic garbage worth a full collection while it runs (as a load:
    # see curator.runtime), and what it leaves (the index's palace, or one `make` loaded for
    # itself) is young: one young collection when the collector is on again frees it
    with collector_paused():
        palace, plan = _planned(args, make, load)
    return palace, plan


def _planned(
    args: argparse.Namespace, make: Callable[[Palace | None], Plan], load: bool
) -> tuple[Palace | None, Plan]:
    from curator.model.index_md import rendered_before
    from curator.model.palace import NeedsPalace

    root = find_palace(getattr(args, "palace", None))
    # the index's palace renders INDEX.md by splicing the render remembered of it: without
    # one (or an index), the plan is the loaded palace's, and LanceDB is not imported first
    if (root / INDEX_STATE).is_file() and rendered_before(root):
        from concurrent.futures import ThreadPoolExecutor

        from curator.writer.committed import notes_proof

        # git's status of the notes (its own stat of each file: ~0.3 s at 100k notes) runs
        # while LanceDB and the index's modules are imported, which it does not wait on
        with ThreadPoolExecutor(max_workers=1) as pool:
            proof = pool.submit(notes_proof, root)
            from curator.search.cold import indexed_palace

            _imports_frozen()
            found = indexed_palace(root, snapshot=True, committed=proof.result())
        if found is not None:
            try:
                return None, make(found[0])
            except NeedsPalace:
                del found  # let go of the rows before the palace is loaded
    palace = open_palace(args) if load else None
    return palace, make(palace)


def _imports_frozen() -> None:
    """LanceDB imported, then every object alive (what the command's imports made) frozen
    (`gc.freeze`): the collection when the collector is on again after planning scans only
    what planning made (the index's palace, whose cycles it frees), not LanceDB's ~0.1 s
    of objects; they live to the command's end anyway. The follow imports LanceDB in any
    case. Switched off with the freeze (`curator.runtime`)."""
    from curator.runtime import tuned

    if tuned("freeze"):
        import gc

        import lancedb  # noqa: F401

        gc.freeze()


def progress_line(line: str, *, last: bool = False) -> None:
    """One progress line on stderr: rewritten in place on a terminal, else one line each
    (a log keeps them). The index build's count and slow commands' counts both use it."""
    if sys.stderr.isatty():
        sys.stderr.write(f"\r{line}" + ("\n" if last else ""))
        sys.stderr.flush()
    else:
        err(line)


# seconds a command runs before it shows progress (CURATOR_PROGRESS_AFTER overrides it)
PROGRESS_AFTER = 1.0


class SlowProgress:
    """`curator: <what>: N files read` on stderr once the work has taken a second, as the
    index build shows its count; then at most ten times a second on a terminal, once a second
    otherwise. `done()` ends the line. Quiet work (a small palace) prints nothing."""

    def __init__(self, what: str) -> None:
        import time

        self.what = what
        self.clock = time.monotonic
        try:
            after = float(os.environ.get("CURATOR_PROGRESS_AFTER", PROGRESS_AFTER))
        except ValueError:
            after = PROGRESS_AFTER
        self.next = self.clock() + after
        self.every = 0.1 if sys.stderr.isatty() else 1.0
        self.count = 0
        self.shown = False

    def __call__(self, count: int) -> None:
        self.count = count
        now = self.clock()
        if now >= self.next:
            self.next = now + self.every
            self.shown = True
            progress_line(f"curator: {self.what}: {count} files read")

    def done(self) -> None:
        if self.shown:
            progress_line(f"curator: {self.what}: {self.count} files read", last=True)


PALACE_HELP = (
    "the palace folder (default: $CURATOR_PALACE, else the nearest palace.toml above the "
    "working directory)"
)
JSON_HELP = "print machine-readable JSON"


def add_common(parser: argparse.ArgumentParser, *, prints: bool = True) -> None:
    """--palace (and --json for a command that prints) on a subcommand's parser.

    The top-level parser has the same options with real defaults; here they default to
    "not given" (SUPPRESS), so `curator --palace P check` and `curator check --palace P` both
    work and neither position overrides the other with a default.
    """
    given = parser._option_string_actions  # idempotent: a module may call it on any parser
    if "--palace" not in given:
        parser.add_argument("--palace", metavar="PATH", default=argparse.SUPPRESS, help=PALACE_HELP)
    if prints and "--json" not in given:
        parser.add_argument(
            "--json", action="store_true", default=argparse.SUPPRESS, help=JSON_HELP
        )


class Subcommands:
    """The `add_parser` of argparse's subparsers, giving every command the common options.

    A command module calls `sub.add_parser(name, ...)` as usual; pass `prints=False` for a
    command that prints nothing (the app). A module with nested subcommands calls
    `add_common()` on each leaf parser it creates.
    """

    def __init__(self, sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
        self._sub = sub

    def add_parser(
        self, name: str, *, prints: bool = True, **kwargs: Any
    ) -> argparse.ArgumentParser:
        if kwargs.get("help") and not kwargs.get("description"):
            help_text = str(kwargs["help"])  # `curator CMD --help` says what CMD does
            kwargs["description"] = help_text[:1].upper() + help_text[1:] + "."
        parser = self._sub.add_parser(name, **kwargs)
        add_common(parser, prints=prints)
        return parser


# json.dump escapes C0 controls (ESC included) but passes C1 controls (U+0080-U+009F, e.g.
# the 8-bit CSI U+009B) and bidi overrides through; escape those too (only strings hold them).
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def print_json(value: Any) -> None:
    text = json.dumps(value, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write(_JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n")


def out(text: str = "") -> None:
    """Print untrusted text to stdout with escape sequences and control characters removed."""
    sys.stdout.write(clean(text) + "\n")


def err(text: str) -> None:
    sys.stderr.write(clean(text) + "\n")


def run_handler(args: argparse.Namespace) -> int:
    """Run a command; every way it can end maps to one exit code (curator.errors.EXIT_CODES).
    What the command left for afterwards (`args.afterwards`: the search index following its
    commit) runs once the command's own frames, and the palace they held, are gone."""
    try:
        code = int(args.handler(args))
        for then in getattr(args, "afterwards", ()):
            then()
        return code
    except CuratorError as exc:
        err(f"curator: error: {exc}")
        if getattr(args, "json", False):  # a --json reader parses stdout, whatever happened
            print_json({"error": str(exc), "exit_code": exit_code(exc)})
        return exit_code(exc)
    except BrokenPipeError:  # the reader went away (`curator list | head`): not an error
        _silence_stdout()
        return EXIT_OK
    except KeyboardInterrupt as exc:
        err("curator: interrupted")
        return exit_code(exc)
    except Exception as exc:  # a bug: one line, not a traceback (CURATOR_DEBUG=1 shows it)
        if os.environ.get("CURATOR_DEBUG"):
            raise
        err(f"curator: internal error: {type(exc).__name__}: {exc}")
        return exit_code(exc)


def _follow(session: Session) -> None:
    """The index following a command's commit; a failure is a warning (the commit stands)."""
    try:
        session.follow_index()
    except Exception as exc:
        err(
            f"curator: warning: the search index did not follow the commit ({exc}); "
            "the next search brings it in line"
        )


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the flush at exit does not raise BrokenPipeError again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def add_apply_options(parser: argparse.ArgumentParser) -> None:
    """--dry-run and --yes: the options of every command that commits, meaning the same."""
    parser.add_argument(
        "--dry-run", action="store_true", help="show the plan and its diff; change nothing"
    )
    parser.add_argument(
        "--yes", "-y", action="store_true",
        help="apply without asking (required when stdin is not a terminal)",
    )  # fmt: skip


def confirmed(args: argparse.Namespace, plan: Any) -> int | None:
    """None when the plan may be applied: --yes, or the person said yes on a terminal.
    Otherwise the exit code: 2 refused (no terminal, no --yes), 1 declined."""
    if getattr(args, "yes", False):
        return None
    if not sys.stdin.isatty():
        err(
            "curator: refusing to apply without confirmation:"
            " pass --yes, or --dry-run to see the plan"
        )
        return 2
    out(plan_text(plan))
    out()
    out(plan.diff())
    answer = input("Apply this change? [y/N] ").strip().lower()
    if answer not in ("y", "yes"):
        out("Nothing changed.")
        return 1
    return None


def plan_text(plan: Any) -> str:
    lines = [plan.subject, ""]
    for change in plan.changes:
        kind = type(change).__name__
        if kind == "Move":
            lines.append(f"  rename {change.src} -> {change.dst}")
        elif kind == "Delete":
            lines.append(f"  delete {change.path}")
        else:
            lines.append(f"  write  {change.path}")
    return "\n".join(lines)


def apply_or_show(
    args: argparse.Namespace, palace: Palace | None, plan: Any, *, confirm: bool = True
) -> int:
    """--dry-run prints the plan; otherwise confirm (TTY) or require --yes, then commit
    (`palace`: the one the plan was made from, if the command holds it)."""
    if getattr(args, "dry_run", False):
        if getattr(args, "json", False):
            print_json(
                {
                    "dry_run": True,
                    "action": plan.action,
                    "subject": plan.subject,
                    "paths": list(plan.paths()),
                    "message": plan.message,
                    "diff": plan.diff(),
                }
            )
        else:
            out(plan_text(plan))
            out()
            out(plan.diff())
        return 0
    if confirm and (refused := confirmed(args, plan)) is not None:
        return refused
    from curator.session import Session

    session = Session(palace, root=plan.root, follow_later=True)
    applied = session.commit(plan)
    # the index follows once this command has let go of its palace (see `run_handler`)
    args.afterwards = [*getattr(args, "afterwards", ()), lambda: _follow(session)]
    if applied.recovered is not None:
        err(f"curator: {applied.recovered}")
    for warning in applied.warnings:  # a derived view (the search index) did not follow
        err(f"curator: warning: {warning}")
    if getattr(args, "json", False):
        print_json(
            {
                "action": plan.action,
                "commit": applied.sha,
                "subject": plan.subject,
                "paths": list(applied.paths),
                "notes": list(plan.notes),
            }
        )
    else:
        out(f"{plan.subject}\ncommitted {applied.sha[:10]}")
    return 0
