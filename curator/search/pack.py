"""`pack`: a markdown memory pack for an agent about to work on a goal.

Reviewed, active notes at or above a confidence floor, best first, cut to a token budget
(≈ characters / 4). Notes that may not be served as a current hint (stale, expired:
`schema.not_current`) are left out and named on one warning line. Deterministic:
same palace and goal, same bytes.
"""

from __future__ import annotations

import math
from typing import Any

from curator.model.served import Served
from curator.model.text import clean, one_line
from curator.search.filters import Filter, SearchError, not_current_row, served_body
from curator.search.ranking import Ranker, Rows, Scored, relevant
from curator.search.text import make_snippet

SUMMARY_TOKENS = 60  # room kept for the summary and warning lines
MATCH_TOP = 5  # `matched`: one of this many best candidates must share a word with the goal


def pack_defaults(palace: Any, budget: int | None, floor: float | None) -> tuple[int, float]:
    """(budget, floor) as asked, else the palace's `[agents]` settings."""
    agents = palace.config.agents
    return (
        agents.pack_budget if budget is None else budget,
        agents.pack_floor if floor is None else floor,
    )


def pack(
    searcher: Ranker,
    goal: str,
    *,
    budget: int | None = None,
    floor: float | None = None,
    include_sensitive: bool = False,
    candidates: int = 30,
    matched: bool = False,
) -> str:
    """The memory pack for `goal` (see the module docstring). Budget and floor default to
    palace.toml's `[agents] pack_budget` and `pack_floor`: the one place they are set.

    With `matched`, nothing ("") unless one of the best candidates shares a word with the goal
    (a prompt hook: a vector neighbour alone is no reason to put memory in front of the agent
    on every prompt), judged on the candidates of the pack's own one query."""
    budget, floor = pack_defaults(searcher.palace, budget, floor)
    if budget <= 0:
        raise SearchError(f"budget must be a positive number of tokens, got {budget}")
    if not 0 <= floor <= 1:
        raise SearchError(f"floor must be within 0..1, got {floor}")
    flt = Filter.of(
        searcher.palace,
        status="active",
        min_confidence=floor,
        include_sensitive=include_sensitive,
    )
    scored, rows = searcher.fused(goal, flt, candidates, fuzzy=False)
    if matched and not _shares_a_word(searcher, goal, scored, rows, include_sensitive):
        return ""
    header = [f"# Memory pack: {one_line(goal, 120)}", ""]
    entries: list[str] = []
    stale: list[str] = []
    used = tokens("\n".join(header)) + SUMMARY_TOKENS
    for path, _score in relevant(scored)[:candidates]:
        row = rows[path]
        why = not_current_row(searcher.palace, row)
        if why is not None:  # never served as a current hint: named, and left out
            shown = Served.of(searcher.palace, include_sensitive).text(one_line(why, 80))
            stale.append(f"{path} ({shown})")
            continue
        head, desc = _head(row), one_line(str(row.get("description") or ""))
        if used + tokens(_entry(head, desc, None)) > budget:
            continue  # not even its shortest entry fits: its body is never read
        body = served_body(searcher.palace, row, include_sensitive)
        for entry in _entries(head, desc, body):
            if used + tokens(entry) <= budget:
                entries.append(entry)
                used += tokens(entry)
                break
    lines = list(header)
    lines.append(
        f"_{len(entries)} notes from memory, confidence ≥ {floor:g}, ~{used} of {budget} "
        "tokens. Each is a hint, not truth: check it against the repository before acting._"
    )
    lines.append("")
    if stale:
        lines.append(f"> ⚠ left out as stale or expired (re-verify before use): {', '.join(stale)}")
        lines.append("")
    lines.extend(entries)
    return "\n".join(lines).rstrip() + "\n"


def _shares_a_word(
    searcher: Ranker, goal: str, scored: Scored, rows: Rows, include_sensitive: bool
) -> bool:
    """Whether one of the MATCH_TOP best candidates holds a word of the goal where search's
    snippet finds it (its served body or its description)."""
    for path, _score in scored[:MATCH_TOP]:
        row = rows[path]
        body = served_body(searcher.palace, row, include_sensitive)
        if make_snippet(body, str(row.get("description") or ""), goal)[1]:
            return True
    return False


def tokens(text: str) -> int:
    """A deterministic token estimate: one token per four characters, rounded up."""
    return math.ceil(len(text) / 4)


def _head(row: dict[str, Any]) -> str:
    """An entry's first two lines: the note's name, then where it comes from and when."""
    name = one_line(str(row.get("name") or ""))
    date = str(row.get("reviewed") or row.get("created") or "")[:10]
    when = f" (reviewed {date})" if row.get("reviewed") else (f" (created {date})" if date else "")
    return f"## {name}\n> hint, not truth — source: {row['path']}{when}\n"


def _entry(head: str, desc: str, body: str | None) -> str:
    """The entry with the (cleaned) body, or the short one (None): the description alone, or
    with none the head alone, which no entry of the note is shorter than."""
    if body is None:
        return f"{head}\n{desc}\n" if desc else f"{head}\n\n"
    return f"{head}\n{desc}\n\n{body}\n" if desc else f"{head}\n{body}\n"


def _entries(head: str, desc: str, body: str) -> list[str]:
    """The full entry for a note, then a shorter one (description only) if the full one is big."""
    full = _entry(head, desc, _clean_body(body))
    short = _entry(head, desc, None) if desc else ""
    return [full, short] if short and short != full else [full]


def _clean_body(body: str) -> str:
    """Terminal escapes stripped, trailing spaces dropped, runs of blank lines collapsed."""
    out: list[str] = []
    for ln in (ln.rstrip() for ln in clean(body).strip().splitlines()):
        if ln or (out and out[-1]):
            out.append(ln)
    return "\n".join(out).strip()


__all__ = ["pack", "tokens"]
