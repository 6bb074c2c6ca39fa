"""The demo inbox (sample_palace/inbox/) cleared in the real app, in tmux at 80x24, with keys.

`bench_tmux_review.py --demo` runs it on a scratch copy of sample_palace/ (never the folder
itself). The demo drafts are ours, so the right decision for each is a table keyed by the
draft's file name: promote what is new and sound, reject with a reason what holds a live key,
a broken header or pasted terminal noise, and merge the near-duplicate of an existing note into
it. The reviewer reads the screen as a person would: the top row of the inbox names the draft
(cut to the column's width), it looks that name up, waits for what the decision needs (the
promote form, the reason prompt, the candidate first in the duplicate list, the merge editor,
the plan), presses the keys and waits for the inbox to count one draft fewer. Afterwards every
draft's outcome is checked on disk and in git: a decision the files do not show is wrong.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tmux_review_lib import BASELINE, Tmux, app_keys, candidate_first, check_errors, git


@dataclass(frozen=True)
class Decision:
    action: str  # promote, reject, merge
    reason: str = ""  # reject: the reason typed into the prompt
    into: str = ""  # merge: the note's file stem


DEMO_DECISIONS = {
    "2026-11-24-stripe-retries-webhooks-three-days": Decision("promote"),
    "2026-11-25-make-lint-runs-mypy-on-billing": Decision("promote"),
    "2026-11-26-rotate-stripe-restricted-key": Decision(
        "reject", reason="holds a live key; the rotation itself is no lesson"
    ),
    "2026-11-27-invoice-pdf-shows-customer-vat-id": Decision("promote"),
    "2026-11-27-render-autoscaling-notes": Decision(
        "reject", reason="header does not parse; recapture it"
    ),
    "2026-11-28-celery-visibility-timeout-vs-eta": Decision("promote"),
    "2026-11-28-pasted-terminal-output": Decision(
        "reject", reason="pasted terminal output, not a lesson"
    ),
    "2026-11-29-always-run-tests-before-finishing": Decision(
        "merge", into="run-make-test-before-saying-done"
    ),
}
_FOLDER = {"promote": "promoted", "reject": "rejected", "merge": "merged"}
_NAME = re.compile(r"^name:\s*(.*)$", re.M)


def draft_labels(inbox: Path) -> dict[str, str]:
    """File stem -> the header's name (unquoted), the text the inbox lists a draft by; a
    draft whose header does not parse is listed by its stem, which also matches."""
    out = {}
    for path in sorted(inbox.glob("*.md")):
        found = _NAME.search(path.read_text(encoding="utf-8"))
        out[path.stem] = found.group(1).strip().strip("\"'") if found else path.stem
    return out


def top_draft(screen: str) -> str | None:
    """The Draft cell of the inbox's first row ('…' where it was cut), or None before the
    list shows one."""
    lines = screen.splitlines()
    head = next((i for i, line in enumerate(lines) if re.search(r"Age\s+Source\s+Draft", line)), -1)
    if head < 0 or head + 1 >= len(lines) or lines[head + 1].lstrip().startswith("╰"):
        return None
    cells = [c for c in re.split(r"\s{2,}", lines[head + 1].strip("│ ")) if c.strip()]
    return cells[-1].strip() if len(cells) >= 3 else None


def which(shown: str, labels: dict[str, str]) -> str:
    """The stem of the one draft whose name (or stem) starts with what the row shows."""
    start = shown.rstrip("…").rstrip()
    found = [s for s, name in labels.items() if name.startswith(start) or s.startswith(start)]
    if len(found) != 1:
        raise AssertionError(f"the row {shown!r} names {len(found)} drafts: {found}")
    return found[0]


def wrong_decisions(root: Path, base: str, done: list[tuple[str, Decision]]) -> list[str]:
    """Each draft against its decision, in the files and the commits; [] when all is right."""
    from curator.model.palace import Palace

    out = []
    palace = Palace.open(root, cache=False)
    log = git(root, "log", "--reverse", "--format=%B%x01", f"{base}..HEAD").stdout
    bodies = [b for b in log.split("\x01") if b.strip()]
    if len(bodies) != len(done):
        out.append(f"{len(bodies)} commits for {len(done)} decisions")
    for body, (stem, decision) in zip(bodies, done, strict=False):
        got = re.findall(r"^Curator-Action: (\S+)$", body, re.M)
        if got != [decision.action] or f"inbox/{stem}.md" not in body:
            out.append(f"{stem}: the commit says {got}, want {decision.action}")
        if decision.reason and decision.reason not in body:
            out.append(f"{stem}: the commit does not give the reason {decision.reason!r}")
    for stem, decision in DEMO_DECISIONS.items():
        kept = root / ".curator" / _FOLDER[decision.action] / f"{stem}.md"
        if not kept.is_file():
            out.append(f"{stem}: not in .curator/{_FOLDER[decision.action]}/")
            continue
        draft = kept.read_text(encoding="utf-8")
        if decision.action == "merge":
            note = palace.find(decision.into)
            last = draft.rstrip().splitlines()[-1]
            if note.body.count(last) != 1:
                out.append(f"{note.rel}: the merged line {last[:40]!r} is not there once")
        if decision.action == "promote":
            name = draft_labels(kept.parent).get(stem, "")
            made = next((n for n in palace.notes if n.name == name), None)
            if made is None or made.status == "draft" or not made.rel.startswith("notes/"):
                out.append(f"{stem}: no promoted note named {name!r}")
    baseline = root / ".git" / BASELINE  # the palace's own errors (the broken demo draft's)
    before = set(baseline.read_text(encoding="utf-8").splitlines()) if baseline.exists() else set()
    out += [f"curator check: new error {e}" for e in sorted(check_errors(root) - before)]
    return out


def demo_review(root: Path, base: str) -> dict[str, Any]:
    """Clear the demo inbox at `root` in tmux; keystrokes, decisions, commits, wall time."""
    labels = draft_labels(root / "inbox")
    missing = sorted(set(labels) ^ set(DEMO_DECISIONS))
    if missing:
        raise SystemExit(f"the demo inbox and DEMO_DECISIONS differ: {missing}")
    keys = app_keys()
    xdg = Path(tempfile.mkdtemp(prefix="curator-demo-xdg-"))
    term = Tmux(f"curator-demo-{os.getpid()}")
    command = (
        f"cd '{root}' && env -u VISUAL -u EDITOR -u CURATOR_PALACE XDG_CONFIG_HOME='{xdg}' "
        f"{term.app()}; echo curator-exited-$?; sleep 300"
    )
    done: list[tuple[str, Decision]] = []
    try:
        term.start(command)
        term.wait(f"Inbox ({len(labels)})", timeout=180)
        start = time.monotonic()
        while len(done) < len(labels):
            left = len(labels) - len(done)
            shown = top_draft(term.wait(f"Inbox ({left})"))
            if shown is None:
                raise AssertionError("the inbox lists no draft:\n" + term.screen())
            stem = which(shown, labels)
            decision = DEMO_DECISIONS[stem]
            decide(term, keys, decision, root)
            # the plan: its keys in the footer, the draft's file in it, nothing still planning
            term.wait(keys["footer.plan.confirm"], f"inbox/{stem}", gone=("Planning…",))
            term.keys(keys["plan.confirm"])
            done.append((stem, decision))
            term.wait(f"Inbox ({left - 1})", gone=("Apply (y)",), timeout=90)
        term.wait("Inbox zero", timeout=30)
        review_s = time.monotonic() - start
        term.keys(keys["app.quit"])
        term.wait("curator-exited-0")
    finally:
        term.close()
        shutil.rmtree(xdg, ignore_errors=True)
    status = git(root, "status", "--porcelain").stdout.strip()
    return {
        "drafts": len(labels),
        "keys": term.keystrokes,
        "decisions": done,
        "commits": int(git(root, "rev-list", "--count", f"{base}..HEAD").stdout),
        "wrong": wrong_decisions(root, base, done),
        "review_s": review_s,
        "clean": not status,
        "status": status,
        "inbox_left": sorted(p.name for p in (root / "inbox").glob("*.md")),
    }


def decide(term: Tmux, keys: dict[str, str], decision: Decision, root: Path) -> None:
    """The keys of one decision, each step waiting for the screen it needs."""
    if decision.action == "promote":
        term.keys(keys["inbox.promote"])
        term.wait("Promote inbox/", keys["footer.promote.submit"])
        term.keys(keys["promote.submit"])
    elif decision.action == "reject":
        term.keys(keys["inbox.reject"])
        term.wait("why?")
        term.type(decision.reason)
        term.keys("Enter")
    else:  # merge: the note first among the candidates, then the merged text saved as shown
        from curator.model.palace import Palace

        candidate_first(term, Palace.open(root).find(decision.into).name[:24])
        term.keys(keys["inbox.merge"])
        term.wait("Merge into", keys["footer.edit.save"])
        term.keys(keys["edit.save"])
