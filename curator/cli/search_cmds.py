"""search, ask, pack, dupes, reindex: queries over the derived LanceDB index.

`curator.search` (and so lancedb, ~1 s to import) is imported inside the handlers only, so other
commands never pay for it. Every query command syncs the index first (incremental: fast when
nothing changed; a missing, corrupt or outdated index is rebuilt, never a crash).
`search --queries FILE` and `ask --queries FILE` read JSONL ({"query": ..., optional filters})
and write one JSON line per query, so thousands of queries run in one process.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator.cli.common import err, open_palace, out, print_json, progress_line
from curator.cli.filter_flags import add_filter_flags, add_sensitive_flag, filter_kwargs
from curator.errors import CuratorError
from curator.model.text import one_line
from curator.search.filters import MAX_LIMIT
from curator.search.request import SearchRequest

if TYPE_CHECKING:
    from curator.search.searcher import Searcher


def _limit_arg(text: str) -> int:
    """--limit: a whole number within 1..MAX_LIMIT (asking for no results is a slip), refused
    by argparse before any query."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= value <= MAX_LIMIT:
        raise argparse.ArgumentTypeError(f"must be within 1..{MAX_LIMIT}, got {value}")
    return value


def _loud(handler: Any) -> Any:
    """Index errors (unreadable mid-query, refused emptying) become one clear line, exit 2."""

    def run(args: argparse.Namespace) -> int:
        from curator.search.state import SearchIndexError

        try:
            return int(handler(args))
        except SearchIndexError as exc:
            raise CuratorError(f"search index: {exc}") from None

    run.__name__ = handler.__name__
    run.__doc__ = handler.__doc__
    return run


def register(sub: Any) -> None:
    p = sub.add_parser("search", help="hybrid full-text + vector search of notes")
    p.add_argument("query", nargs="?", help="what to look for")
    add_filter_flags(p)
    p.add_argument("--limit", "-n", type=_limit_arg, default=10, help="number of results (10)")
    p.add_argument("--queries", metavar="FILE", help="JSONL of queries ('-' for stdin)")
    p.set_defaults(handler=_loud(cmd_search))

    p = sub.add_parser("ask", help="answer a question with sources in order of authority")
    p.add_argument("question", nargs="?", help="the question")
    p.add_argument("--limit", "-n", type=_limit_arg, default=8, help="number of sources (8)")
    p.add_argument("--queries", metavar="FILE", help="JSONL of questions ('-' for stdin)")
    add_sensitive_flag(p)
    p.set_defaults(handler=_loud(cmd_ask))

    p = sub.add_parser("pack", help="a markdown memory pack for an agent's context file")
    p.add_argument("goal", help="what the agent is about to do")
    p.add_argument("--budget", type=int, help="token budget ([agents] pack_budget, 2000)")
    p.add_argument("--floor", type=float, help="confidence floor ([agents] pack_floor, 0.7)")
    p.add_argument("--into", metavar="FILE", help="write it into FILE's managed section")
    p.add_argument("--force", action="store_true", help="with --into: overwrite hand edits")
    add_sensitive_flag(p)
    p.set_defaults(handler=_loud(cmd_pack))

    p = sub.add_parser("dupes", help="ranked near-duplicate candidates (never merged)")
    p.add_argument("note", nargs="?", help="path, slug or name of a note or draft")
    p.add_argument("--all", action="store_true", help="the likeliest pairs in the whole palace")
    p.add_argument("--limit", "-n", type=_limit_arg, default=5, help="number of candidates (5)")
    add_sensitive_flag(p)
    p.set_defaults(handler=_loud(cmd_dupes))

    p = sub.add_parser("reindex", help="rebuild the search index from scratch")
    p.set_defaults(handler=_loud(cmd_reindex))


# -- shared --------------------------------------------------------------------------------
def _searcher(args: argparse.Namespace) -> Searcher:
    from curator.session import Session

    session = Session(open_palace(args))
    searcher = session.searcher(progress=_embedded)  # the first build takes a while
    for folder in searcher.recovered:
        err(f"curator: warning: search index unreadable; moved aside to {folder} and rebuilt")
    return searcher


def _cold_searcher(args: argparse.Namespace) -> Searcher | None:
    """One query in a fresh process: answered from the index without loading the palace
    when the index is in step with the files (`curator.search.cold`), else None."""
    from curator.model.palace import find_palace
    from curator.search.cold import cold_searcher

    return cold_searcher(find_palace(getattr(args, "palace", None)))


def _embedded(done: int, total: int) -> None:
    """The running count of an index build, on stderr (one line, rewritten on a terminal)."""
    progress_line(f"curator: indexing: {done}/{total} notes embedded", last=done >= total)


def _read_queries(path: str) -> list[tuple[int, Any]]:
    """(line number, parsed JSON or an error string) for each non-blank line."""
    try:
        if path == "-":
            lines = sys.stdin.read().splitlines()
        else:
            with open(path, encoding="utf-8") as fh:
                lines = fh.read().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise CuratorError(f"cannot read queries: {exc}", path=path) from None
    items: list[tuple[int, Any]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            items.append((number, json.loads(line)))
        except json.JSONDecodeError as exc:
            items.append((number, f"line {number}: not JSON: {exc.msg}"))
        except RecursionError:
            items.append((number, f"line {number}: JSON nested too deeply"))
    return items


def _jsonl(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, default=str) + "\n")


def _request(item: Any, keys: dict[str, str] | None) -> tuple[str, dict[str, Any]] | str:
    """(query, its keys) of one JSONL line, or why it cannot run. `keys` maps the keys a line
    may hold to the query's (None: a search, whose keys `SearchRequest` checks itself). The
    values' types are checked by the query: a wrong one fails its line."""
    if isinstance(item, str):
        return item  # the reader's "not JSON" message
    if not isinstance(item, dict):
        return "not an object"
    query = item.get("query", item.get("question"))
    if not isinstance(query, str):
        return "missing string 'query'"
    if keys is None:
        return query, {k: v for k, v in item.items() if k not in ("query", "question", "id")}
    unknown = sorted(k for k in item if k not in keys and k not in ("query", "question", "id"))
    if unknown:
        return f"unknown keys {unknown}"
    given = [k for k in item if k in keys]
    kwargs = {keys[k]: item[k] for k in given}
    if len(kwargs) < len(given):  # "type" and "types" both given: neither may be dropped
        return "give type or types, not both"
    return query, kwargs


def _batch(args: argparse.Namespace, run: Any, keys: dict[str, str] | None) -> int:
    searcher = _searcher(args)
    failed = 0
    for number, item in _read_queries(args.queries):
        line = {"line": number, "id": item.get("id") if isinstance(item, dict) else None}
        request = _request(item, keys)
        if isinstance(request, str):
            failed += 1
            _jsonl({**line, "error": request})
            continue
        query, kwargs = request
        if args.include_sensitive and isinstance(kwargs.get("include_sensitive", False), bool):
            kwargs["include_sensitive"] = True  # a wrong type still fails on its own line
        try:
            result = run(searcher, query, kwargs)
        except (CuratorError, ValueError, TypeError) as exc:
            failed += 1
            _jsonl({**line, "query": query, "error": str(exc)})
            continue
        _jsonl({**line, "query": query, **result})
    if failed:
        err(f"curator: {failed} queries failed (see their 'error' lines)")
    return 2 if failed else 0


# -- search --------------------------------------------------------------------------------
def cmd_search(args: argparse.Namespace) -> int:
    if args.queries:
        if args.query:
            raise CuratorError("give a QUERY or --queries FILE, not both")

        def run(s: Searcher, query: str, given: dict[str, Any]) -> dict[str, Any]:
            request = SearchRequest.from_mapping(s.palace, query, given, limit=args.limit)
            return {"results": [h.to_json() for h in s.run(request)]}

        return _batch(args, run, None)
    if not args.query:
        raise CuratorError("give a QUERY (or --queries FILE)")
    searcher = _cold_searcher(args) or _searcher(args)
    request = SearchRequest.of(searcher.palace, args.query, limit=args.limit, **filter_kwargs(args))
    hits = searcher.run(request)
    if args.json:
        print_json({"query": args.query, "results": [h.to_json() for h in hits]})
        return 0
    for h in hits:
        flags = [f for f, on in (("draft", h.kind == "draft"), ("stale", h.stale)) if on]
        if h.status not in ("active", "draft", ""):
            flags.append(h.status + (f" -> {h.successor}" if h.successor else ""))
        tail = f"  [{', '.join(flags)}]" if flags else ""
        out(f"{h.score:.3f}  {h.type or '?':<10} {one_line(h.name, 70)}  {h.path}{tail}")
        if h.snippet:
            out(f"       {h.snippet}")
    if not hits:
        err("no matches")
    return 0


# -- ask -----------------------------------------------------------------------------------
def cmd_ask(args: argparse.Namespace) -> int:
    if args.queries:
        if args.question:
            raise CuratorError("give a QUESTION or --queries FILE, not both")

        def run(s: Searcher, query: str, kwargs: dict[str, Any]) -> dict[str, Any]:
            kwargs.setdefault("limit", args.limit)
            answer = s.ask(query, **kwargs)
            return {"sources": [x.to_json() for x in answer.sources]}

        return _batch(args, run, {"limit": "limit", "include_sensitive": "include_sensitive"})
    if not args.question:
        raise CuratorError("give a QUESTION (or --queries FILE)")
    answer = _searcher(args).ask(
        args.question, limit=args.limit, include_sensitive=args.include_sensitive
    )
    if args.json:
        print_json(answer.to_json())
        return 0
    if not answer.sources:
        err("no sources found")
        return 0
    for i, s in enumerate(answer.sources, 1):
        label = f"  [{s.label}]" if s.label else ""
        out(f"{i}. {s.type or '?'}: {one_line(s.name, 70)}  {s.path}{label}")
        if s.superseded_from:
            out(f"   (replaces superseded {', '.join(s.superseded_from)})")
        if s.snippet:
            out(f"   {s.snippet}")
    return 0


# -- pack ----------------------------------------------------------------------------------
def cmd_pack(args: argparse.Namespace) -> int:
    searcher = _searcher(args)
    text = searcher.pack(
        args.goal,
        budget=args.budget,
        floor=args.floor,
        include_sensitive=args.include_sensitive,
    )
    if args.into:
        return _pack_into(args, searcher.palace.root, text)
    if args.json:
        from curator.search.pack import pack_defaults

        budget, floor = pack_defaults(searcher.palace, args.budget, args.floor)
        print_json({"goal": args.goal, "budget": budget, "floor": floor, "pack": text})
        return 0
    out(text.rstrip("\n"))
    return 0


def _pack_into(args: argparse.Namespace, root: Path, pack: str) -> int:
    """`curator pack GOAL --into FILE`: write the pack, say what was written and what was cut."""
    from curator.agents.context import write_pack
    from curator.agents.settings import load_settings

    if getattr(args, "include_sensitive", False):
        raise CuratorError(
            "refusing to write sensitive notes into a context file (it is loaded by every "
            "agent and often committed); drop --include-sensitive"
        )
    cap = load_settings(root).max_lines
    result = write_pack(Path(args.into), pack, cap=cap, force=getattr(args, "force", False))
    if getattr(args, "json", False):
        print_json(
            {
                "path": str(result.path),
                "kept": result.kept,
                "cut": result.cut,
                "lines": result.lines,
                "cap": result.cap,
            }
        )
    else:
        out(f"Wrote {result.kept} notes into {result.path} ({result.lines} of {cap} lines)")
    if result.cut:
        err(
            f"curator: cut the {result.cut} lowest-scored notes to keep {result.path} under "
            f"its cap of {cap} lines ([agents] max_lines in palace.toml)"
        )
    return 0


# -- dupes ---------------------------------------------------------------------------------
def cmd_dupes(args: argparse.Namespace) -> int:
    if bool(args.note) == bool(args.all):
        raise CuratorError("give a NOTE or DRAFT, or --all")
    searcher = _searcher(args)
    found = searcher.dupes(
        args.note, all=args.all, limit=args.limit, include_sensitive=args.include_sensitive
    )
    if args.json:
        print_json({"note": args.note, "candidates": [c.to_json() for c in found]})
        return 0
    from curator.search.values import Candidate

    for c in found:
        if isinstance(c, Candidate):
            out(
                f"{c.score:.3f}  (vector {c.vector_sim:.2f}, text {c.fuzz:.2f})  "
                f"{one_line(c.name, 60)}  {c.path}"
            )
        else:
            out(f"{c.score:.3f}  (vector {c.vector_sim:.2f}, text {c.fuzz:.2f})  {c.a}  <->  {c.b}")
    if not found:
        err("no candidates")
    else:
        err("candidates only: nothing is merged automatically")
    return 0


# -- reindex -------------------------------------------------------------------------------
def cmd_reindex(args: argparse.Namespace) -> int:
    from curator.model.palace import find_palace
    from curator.search.catchup import rebuild_index

    # from the files a batch at a time: the palace is never loaded beside the embedder
    store, stats = rebuild_index(find_palace(getattr(args, "palace", None)), _embedded)
    for folder in store.recovered:
        err(f"curator: warning: the search index was unreadable; moved aside to {folder}")
    if args.json:
        print_json(
            {
                "docs": stats.added,
                "seconds": round(stats.seconds, 3),
                "embedder": store.embedder.name,
                "dim": store.embedder.dim,
            }
        )
        return 0
    out(
        f"Rebuilt the search index: {stats.added} docs with {store.embedder.name}/"
        f"{store.embedder.dim} in {stats.seconds:.1f} s"
    )
    return 0
