"""The filter flags `list` and `search` share, and the `Filter` they describe.

Nothing heavy is imported (`curator.search.filters` is plain Python), so `list` never pays for
LanceDB.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from curator.search.filters import Filter


def _confidence_arg(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be within 0..1, got {text}")
    return value


def add_filter_flags(parser: argparse.ArgumentParser) -> None:
    """The filter flags `list` and `search` share (same spelling, same repeatability)."""
    parser.add_argument("--type", dest="types", action="append", help="only this type (repeatable)")
    parser.add_argument("--scope", action="append", help="only this scope (repeatable)")
    parser.add_argument(
        "--status", action="append", help="only this status: active, superseded... (repeatable)"
    )
    stale = parser.add_mutually_exclusive_group()
    stale.add_argument(
        "--stale", dest="stale", action="store_true", default=None, help="only stale notes"
    )
    stale.add_argument("--not-stale", dest="stale", action="store_false", help="no stale notes")
    parser.add_argument(
        "--min-confidence", type=_confidence_arg, metavar="X", help="confidence at least X (0..1)"
    )
    parser.add_argument(
        "--tag", dest="tags", action="append", help="only notes with this tag (repeatable: any)"
    )
    for field in ("created", "reviewed"):
        for side, word in (("after", "on or after"), ("before", "on or before")):
            parser.add_argument(
                f"--{field}-{side}", metavar="YYYY-MM-DD", help=f"{field} {word} this day"
            )
    parser.add_argument("--drafts", action="store_true", help="include inbox drafts")
    add_sensitive_flag(parser)


def add_sensitive_flag(parser: argparse.ArgumentParser) -> None:
    """--include-sensitive, for the commands that take no other filter (ask, pack, dupes)."""
    parser.add_argument(
        "--include-sensitive",
        action="store_true",
        help="also show sensitive notes and notes in sensitive scopes",
    )


def filter_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The flags of `add_filter_flags` as keyword arguments of `Filter.of` (and a
    `SearchRequest`)."""
    return {
        "types": args.types,
        "scope": args.scope,
        "status": args.status,
        "stale": args.stale,
        "min_confidence": args.min_confidence,
        "drafts": args.drafts,
        "include_sensitive": args.include_sensitive,
        "tags": args.tags,
        "created_after": args.created_after,
        "created_before": args.created_before,
        "reviewed_after": args.reviewed_after,
        "reviewed_before": args.reviewed_before,
    }


def filter_from_args(args: argparse.Namespace, palace: Any) -> Filter:
    """The Filter the flags of `add_filter_flags` describe, bound to `palace`."""
    return Filter.of(palace, **filter_kwargs(args))
