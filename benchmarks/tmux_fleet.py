"""The fleet's inbox (issue 36) cleared in the real app, in tmux at 80x24, with keys only.

`bench_tmux_review.py --fleet 2000` runs it: bench_fleet's palace (`--notes` notes, 2,000
drafts in known near-duplicate groups), `curator` in a private tmux server, and a reviewer
that reads the screen as a person would: `G` lists the groups, the highlighted row (the one
row in the list drawn on the cursor's background) names its best draft and the note it goes
into; the reviewer looks that name up among the known groups, checks the row's draft count
and Into against them, and presses the known decision's key (`p`, `m`, `f`) and `y`. After the
last group it undoes the last `--undo` groups through History (`5`, Home and Down to the
group's commit, `u`, `y`) and compares every file with the palace as it was before them.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_fleet import Group, _outcome_right, commits, figures, tree
from tmux_review_lib import Tmux, app_keys

DECISION_KEYS = {"keep": "inbox.promote", "merge": "inbox.merge", "fold": "inbox.fold"}
_BACKGROUND = re.compile(r"\x1b\[[0-9;]*?48;5;(\d+)[0-9;]*m|\x1b\[48;2;(\d+;\d+;\d+)m")
_SGR = re.compile(r"\x1b\[[0-9;:]*m")


def cursor_row(styled: str) -> str | None:
    """The text of the list row drawn on the cursor's background: of the rows between the
    list's header and its bottom border, the one whose background no other row has."""
    lines = styled.splitlines()
    head = next((i for i, line in enumerate(lines) if "Best draft" in _SGR.sub("", line)), None)
    if head is None:
        return None
    rows = []
    for line in lines[head + 1 :]:
        if _SGR.sub("", line).startswith("╰"):
            break
        rows.append(line)
    backgrounds = [{a or b for a, b in _BACKGROUND.findall(line)} for line in rows]
    for at, found in enumerate(backgrounds):
        others = set().union(*(b for i, b in enumerate(backgrounds) if i != at))
        if found - others:
            return _SGR.sub("", rows[at])
    return None


def parse_row(text: str) -> tuple[int, str, str]:
    """(drafts, Into, best draft) of a group row as shown ("…" where a cell was cut)."""
    text = re.sub(r"[▁▂▃▄▅▆▇█]+", " ", text)  # the list's scrollbar, drawn over the row
    cells = [c.strip() for c in re.split(r"\s{2,}", text.strip("│ \n")) if c.strip()]
    count, into, best = cells[0], cells[1], " ".join(cells[2:])
    return int(count), into, best


def _prefix(shown: str) -> str:
    return shown.rstrip("…").rstrip()


def known_group(best: str, groups: list[Group]) -> Group | None:
    """The known group one of whose drafts the row names (its shown prefix)."""
    want = _prefix(best)
    found = [g for g in groups if any(n.startswith(want) for n in g.names)]
    return found[0] if len(found) == 1 else None


def fleet_review(root: Path, groups: list[Group], undo: int) -> dict[str, Any]:
    """Clear the inbox at `root` in tmux; keystrokes, wrong decisions, commits, undo."""
    keys = app_keys()
    xdg = Path(tempfile.mkdtemp(prefix="curator-fleet-xdg-"))
    cache = os.environ.get("CURATOR_CACHE_HOME", str(xdg / "cache"))
    term = Tmux(f"curator-fleet-{os.getpid()}")
    command = (
        f"cd '{root}' && env -u VISUAL -u EDITOR -u CURATOR_PALACE XDG_CONFIG_HOME='{xdg}' "
        f"CURATOR_CACHE_HOME='{cache}' {term.app()}; "
        f"echo curator-exited-$?; sleep 300"
    )
    drafts = sum(len(g.drafts) for g in groups)
    left = list(groups)
    undo = min(undo or len(groups), len(groups))
    wrong, decided, waits = 0, 0, []
    before: dict[str, bytes] = {}
    start_commits = commits(root)
    try:
        term.start(command)
        term.wait(f"Inbox ({drafts})", timeout=300)
        start = time.monotonic()
        term.keys(keys["inbox.groups"])
        term.wait(f"{len(groups)} groups of {drafts}", gone=("grouping",), timeout=300)
        review_keys = term.keystrokes
        while left:
            styled = term.tmux("capture-pane", "-p", "-e", "-t", "review")
            row = cursor_row(styled)
            if row is None:
                raise AssertionError("no highlighted group; the screen:\n" + term.screen())
            count, into, best = parse_row(row)
            known = known_group(best, left)
            if known is None:
                raise AssertionError(f"{best!r} is no known group's; the row: {row!r}")
            into_name = known.names[1] if known.into else "new note"
            if count != len(known.drafts) or not into_name.startswith(_prefix(into)):
                wrong += 1
            if decided == len(groups) - undo:
                before = tree(root)
            made = commits(root)
            term.keys(keys[DECISION_KEYS[known.decision]])
            term.wait(keys["footer.plan.confirm"], gone=("Planning…",), timeout=120)
            asked = time.monotonic()
            term.keys(keys["plan.confirm"])
            left.remove(known)
            decided += 1
            while commits(root) != made + 1:
                time.sleep(0.05)
            remaining = sum(len(g.drafts) for g in left)
            plural = "s" if len(left) != 1 else ""
            shown = f"{len(left)} group{plural} of {remaining}" if left else "Inbox zero"
            term.wait(shown, gone=("grouping", "Apply (y)"), timeout=300)
            waits.append(time.monotonic() - asked)
        review_keys = term.keystrokes - review_keys + 1  # and the G
        review_s = time.monotonic() - start
        made = commits(root) - start_commits
        wrong += sum(not _outcome_right(root, g) for g in groups)
        # undo the last `undo` groups, newest first: each undo adds its own row on top, so
        # the next group's commit is two rows further down
        term.keys(keys["screen.history"])
        term.wait("History", timeout=60)
        for i in range(undo):
            count = commits(root)
            term.keys(keys["table.scroll_top"])
            if i:
                term.keys("Down", repeat=2 * i)
            term.keys(keys["history.undo"])
            term.wait(keys["footer.plan.confirm"], gone=("Planning…",), timeout=120)
            term.keys(keys["plan.confirm"])
            while commits(root) != count + 1:
                time.sleep(0.05)
            time.sleep(0.2)  # the list gains the undo's row
        after = tree(root)
        term.keys(keys["app.quit"])
        term.wait("curator-exited-0", timeout=60)
    finally:
        term.close()
    return {
        **figures(review_keys, wrong, decided, made, undo, before, after),
        "review_s": review_s,
        "slowest_wait_s": max(waits, default=0.0),
    }


__all__ = ["cursor_row", "fleet_review", "known_group", "parse_row"]
