"""A reviewer clears a generated inbox in the real app, in tmux at 80×24, with keys only.

    python benchmarks/bench_tmux_review.py [--drafts 50] [--notes N] [--hog 2] [--keep]
    python benchmarks/bench_tmux_review.py --palace P --notes N   (run.py's form: JSON rows)
    python benchmarks/bench_tmux_review.py --fleet 2000 [--notes 1000] [--undo 10]
    python benchmarks/bench_tmux_review.py --demo

Builds a scratch palace (a copy of the sample palace, or gen_palace's N notes), writes the
inbox of gen_review_inbox.py, builds the search index, then runs `curator` in a private tmux
server. Each draft gets its role's action: promote (the type chosen in the form where the
draft's is unknown), reject one by one, reject in bulk (space and shift+down, or `*` for all
from one session), bulk promote with one type, merge into the duplicate candidate (the
repeated text cut in the editor), supersede the candidate. Every step waits for the screen to
show what a reviewer would wait for (capture-pane, with a timeout that prints the screen),
never for a fixed time. Curator's keys come from the app's own binding tables by id (and the
plan dialog is recognised by its keys in the footer, the one row notifications never cover);
Tab, Enter, Down and ctrl+x (cut a line) are Textual's own widget keys.

Then it checks every file and commit: inbox empty, each promoted draft a note with a header
that checks, the rejected ones in .curator/rejected/, one commit per action with curator's
trailers, INDEX.md current, `curator check` adding no error to the palace's own, a clean
working tree, and no planted escape sequence reached the terminal (pane title, clipboard,
screen). Prints keystrokes, wall time, actions, commits, the app's peak memory, the slowest
waits, and how often notifications covered a dialog's buttons or the inbox's empty state.

`--fleet N`: instead, N drafts in known near-duplicate groups (bench_fleet's inbox) in a
palace of `--notes` notes, cleared group by group from the grouped list (`G`) and the last
`--undo` groups undone through History (tmux_fleet.py); issue 36's figures: under 400
keystrokes, no wrong decision, one commit a group, every undo exact.

`--demo`: instead, the demo inbox shipped in sample_palace/inbox/ (in a scratch copy), each
draft given its right decision (tmux_demo.py's table: promote, reject with a reason, merge the
near-duplicate into its note); prints every decision, keystrokes, commits, wrong decisions,
wall time, and whether `git status` is clean and the inbox empty.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchutil import cpu_hog
from gen_review_inbox import BULK_TYPE, NEW_TYPE, DraftSpec
from tmux_review_lib import (
    Tmux,
    app_keys,
    candidate_first,
    git,
    make_palace,
    terminal_problems,
    verify,
)


@dataclass
class Reviewer:
    """Walks the inbox top to bottom as the app lists it, one role's keys per draft."""

    term: Tmux
    keys: dict[str, str]
    remaining: list[DraftSpec]
    root: Path
    type_index: dict[str, int]
    actions: list[tuple[str, list[DraftSpec]]] = field(default_factory=list)
    buttons_covered: int = 0  # plans whose Apply button toasts hid when it was pressed
    bench_seconds: float = 0.0  # spent in this process working out keys, not in the app

    def key(self, binding_id: str, repeat: int = 1) -> None:
        self.term.keys(self.keys[binding_id], repeat=repeat)

    def mark(self, count: int) -> None:
        """Space `count` times in one burst, typed while the inbox may still be reloading
        after the last commit (the keys wait for the list the commit leaves)."""
        if count > 0:
            self.key("inbox.mark", repeat=count)
            self.term.wait(f"{count} marked")

    def count_shown(self) -> str:
        return f"Inbox ({len(self.remaining)})"

    def confirm(self, action: str, done: list[DraftSpec], reason: str = "") -> None:
        """Answer the reason prompt (if any), check the plan names the drafts, apply it, and
        wait for the inbox to show them gone."""
        if reason:
            self.term.wait("why?")
            self.term.type(reason)
            self.term.keys("Enter")
        # the plan is shown: its keys in the footer, the draft in its files, no "Planning…"
        shown = self.term.wait(self.keys["footer.plan.confirm"], done[0].tag, gone=("Planning…",))
        if "Apply (y)" not in shown:  # notifications stacked over the dialog's buttons
            self.buttons_covered += 1
        self.key("plan.confirm")
        self.remaining = [d for d in self.remaining if d not in done]
        self.actions.append((action, done))
        self.term.wait(self.count_shown(), gone=("Apply (y)",), timeout=90)

    def candidate(self, draft: DraftSpec) -> None:
        """Wait until the duplicate finder lists the expected note first."""
        candidate_first(self.term, draft.target_name[:24])

    def run(self) -> None:
        while self.remaining:
            draft = self.remaining[0]
            getattr(self, f"do_{draft.role}")(draft)

    # -- one method a role -----------------------------------------------------------------
    def do_promote(
        self, draft: DraftSpec, *, retype: bool = False, supersede: bool = False
    ) -> None:
        if supersede:
            self.candidate(draft)
            self.key("inbox.supersede")
            self.term.wait(f"Promote inbox/{draft.tag}", "superseding:")
        else:
            self.key("inbox.promote")
            self.term.wait(f"Promote inbox/{draft.tag}")
        if retype:  # name, description, then the type: open it, type to search, choose
            self.term.keys("Tab", "Tab", "Enter")
            self.term.wait("choose a type", f"{NEW_TYPE} —")
            self.term.type(NEW_TYPE[:3])
            self.term.keys("Enter")
            self.term.wait(f"{NEW_TYPE} —", gone=("is not a type", "choose a type", "Dismiss"))
        self.key("promote.submit")
        self.confirm("promote", [draft])

    do_pair_a = do_markup = do_promote

    def do_retype(self, draft: DraftSpec) -> None:
        self.do_promote(draft, retype=True)

    def do_supersede(self, draft: DraftSpec) -> None:
        self.do_promote(draft, supersede=True)

    def do_reject(self, draft: DraftSpec) -> None:
        self.key("inbox.reject")
        self.confirm("reject", [draft], reason="stale")

    do_escapes = do_malformed = do_reject

    def do_noise(self, draft: DraftSpec) -> None:
        """`*` marks every draft of the session; one reject for all."""
        noise = [d for d in self.remaining if d.role == "noise"]
        self.key("inbox.mark_like")
        self.term.wait(f"{len(noise)} marked")
        self.key("inbox.reject")
        self.confirm("reject", noise, reason="agent loop noise")

    def _mark_run(self, role: str) -> list[DraftSpec]:
        run = []
        for d in self.remaining:
            if d.role != role:
                break
            run.append(d)
        return run

    def do_batch(self, draft: DraftSpec) -> None:
        """Space marks and moves down; shift+down marks the last two."""
        run = self._mark_run("batch")
        self.mark(len(run) - 2)
        self.key("inbox.mark_down")
        self.term.wait(f"{len(run)} marked")
        self.key("inbox.reject")
        self.confirm("reject", run, reason="duplicates")
        self.key("table.scroll_top")  # the cursor stayed on the last marked row

    def do_bulkpromote(self, draft: DraftSpec) -> None:
        run = self._mark_run("bulkpromote")
        self.mark(len(run))
        self.key("inbox.promote")
        self.term.wait(f"Promote {len(run)} drafts as type")
        # the list starts on "each its own type", then the types in order
        self.term.keys("Down", repeat=self.type_index[BULK_TYPE] + 1)
        self.term.keys("Enter")
        self.confirm("promote", run)
        self.key("table.scroll_top")  # the cursor is on the draft after the marked ones

    def do_merge(self, draft: DraftSpec) -> None:
        """m opens the merged text; the note's own copy of what the draft repeats is cut a
        line at a time (ctrl+x), keeping the draft's copy and what it adds."""
        self.candidate(draft)
        name, cut = self.lines_to_cut(draft)
        self.key("inbox.merge")
        self.term.wait(f"Merge into {name[:24]}", self.keys["footer.edit.save"])
        self.term.keys("C-x", repeat=cut)
        self.key("edit.save")
        self.confirm("merge", [draft])

    do_pair_b = do_merge

    def lines_to_cut(self, draft: DraftSpec) -> tuple[str, int]:
        """The name of the note merged into, and the lines before the draft's part of the
        merged text (the note's body and the heading), read from the palace on disk."""
        start = time.monotonic()
        from curator.model.note import strip_banner
        from curator.model.palace import Palace
        from curator.ui import services

        palace = Palace.open(self.root)
        note = palace.find(draft.target_name if draft.role == "pair_b" else draft.target)
        lines = strip_banner(services.merged_body(palace, draft.rel, note.rel)).splitlines()
        heading = next(i for i, line in enumerate(lines) if line.startswith("## Merged from"))
        self.bench_seconds += time.monotonic() - start
        return note.name, heading + 2  # the heading and the blank line after it


# -- the session ----------------------------------------------------------------------------------
@dataclass
class Result:
    drafts: int
    keystrokes: int
    startup_s: float
    review_s: float
    actions: list
    commits: int
    screens: int
    problems: list[str]
    slowest: list[tuple[float, str]]  # the longest waits for the screen, and what for
    buttons_covered: int  # plans whose Apply button was under notifications
    empty_state: bool  # "Inbox zero" readable within 10 s of the last action
    app_peak_mb: float | None

    def summary(self) -> str:
        kinds: dict[str, int] = {}
        for action, done in self.actions:
            kind = f"{action}×{len(done)}" if len(done) > 1 else action
            kinds[kind] = kinds.get(kind, 0) + 1
        made = ", ".join(f"{k}: {v}" for k, v in sorted(kinds.items()))
        return (
            f"{self.drafts} drafts cleared with {self.keystrokes} keystrokes in "
            f"{self.review_s:.1f} s wall time of review (+{self.startup_s:.1f} s to the first "
            f"inbox); app peak memory {self.app_peak_mb or 0:.0f} MB; "
            f"{len(self.actions)} actions ({made}); {self.commits} commits; "
            f"{self.screens} screens read; {len(self.problems)} problems; "
            f"{self.buttons_covered} plan dialogs had their buttons under notifications; "
            f"empty state {'shown' if self.empty_state else 'hidden under stale notifications'}\n"
            "slowest waits: " + ", ".join(f"{what!r} {sec:.1f} s" for sec, what in self.slowest)
        )


def review(root: Path, specs: list[DraftSpec], base: str) -> Result:
    """Run the app in tmux over the inbox at `root` and check what it left."""
    from curator.model.palace import Palace

    types = list(Palace.open(root).config.types)
    xdg = Path(tempfile.mkdtemp(prefix="curator-review-xdg-"))
    term = Tmux(f"curator-review-{os.getpid()}")
    command = (
        f"cd '{root}' && env -u VISUAL -u EDITOR -u CURATOR_PALACE XDG_CONFIG_HOME='{xdg}' "
        f"{term.app()}; echo curator-exited-$?; sleep 300"
    )
    keys = app_keys()
    reviewer = Reviewer(term, keys, list(specs), root, {t: i for i, t in enumerate(types)})
    try:
        start = time.monotonic()
        term.start(command)
        term.wait(f"Inbox ({len(specs)})", timeout=180)
        ready = time.monotonic()
        reviewer.run()
        term.wait("Inbox (0)")
        done = time.monotonic()
        try:  # the empty state's text (expired notifications stayed painted over it)
            term.wait("Inbox zero", timeout=10)
            empty_state = True
        except AssertionError:
            empty_state = False
        peak = term.app_peak_mb()
        term.keys(keys["app.quit"])
        term.wait("curator-exited-0")
        leaks = terminal_problems(term)
    finally:
        term.close()
        shutil.rmtree(xdg, ignore_errors=True)
    problems = verify(root, specs, base, reviewer.actions)
    problems += leaks
    commits = int(git(root, "rev-list", "--count", f"{base}..HEAD").stdout)
    return Result(
        len(specs),
        term.keystrokes,
        ready - start,
        done - ready - reviewer.bench_seconds,
        reviewer.actions,
        commits,
        term.screens,
        problems,
        sorted(term.waited, reverse=True)[:4],
        reviewer.buttons_covered,
        empty_state,
        peak,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drafts", type=int, default=50)
    parser.add_argument("--notes", type=int, default=0, help="a generated palace (0: sample)")
    parser.add_argument("--palace", type=Path, help="review in this palace (run.py's copy)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the scratch palace")
    parser.add_argument(
        "--hog", type=int, default=0, help="busy loops beside the app while it reviews (load)"
    )
    parser.add_argument("--fleet", type=int, default=0, help="drafts in near-duplicate groups")
    parser.add_argument("--undo", type=int, default=10, help="--fleet: groups undone (0: all)")
    parser.add_argument(
        "--demo", action="store_true", help="clear sample_palace's own inbox (tmux_demo.py)"
    )
    args = parser.parse_args(argv)
    if shutil.which("tmux") is None:
        print("tmux is not installed", file=sys.stderr)
        return 2
    if args.demo:
        return demo(args.keep)
    if args.fleet:
        return fleet(args.fleet, args.notes or 1000, args.undo, args.seed, args.keep)
    scratch = Path(tempfile.mkdtemp(prefix="curator-review-"))
    root = args.palace or scratch / "palace"
    try:
        specs, base = make_palace(root, args.drafts, args.notes, args.seed, args.palace)
        with cpu_hog(args.hog) if args.hog else contextlib.nullcontext():
            result = review(root, specs, base)
    finally:
        if args.keep:
            print(f"scratch palace kept in {root}", file=sys.stderr)
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    print(result.summary())
    for problem in result.problems:
        print("PROBLEM:", problem)
    if args.palace:  # run.py reads rows
        from benchutil import emit, row

        note = (
            f"{result.keystrokes} keys, {len(result.actions)} actions, 80x24 tmux, "
            f"app peak {result.app_peak_mb or 0:.0f} MB"
        )
        emit([row("tmux", f"clear {result.drafts}-draft inbox", [result.review_s], note=note)])
    return 1 if result.problems else 0


def demo(keep: bool) -> int:
    """The demo inbox (sample_palace/inbox/) cleared in tmux, each draft its right decision."""
    from tmux_demo import demo_review

    scratch = Path(tempfile.mkdtemp(prefix="curator-demo-review-"))
    os.environ.setdefault("CURATOR_CACHE_HOME", str(scratch / "cache"))
    try:
        root = scratch / "palace"
        _, base = make_palace(root, 0)  # a copy of sample_palace/ with its own inbox
        out = demo_review(root, base)
    finally:
        if keep:
            print(f"scratch palace kept in {scratch}", file=sys.stderr)
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    made: dict[str, int] = {}
    for _, decision in out["decisions"]:
        made[decision.action] = made.get(decision.action, 0) + 1
    for stem, decision in out["decisions"]:
        why = decision.reason or (f"into {decision.into}" if decision.into else "")
        print(f"  {decision.action:8} {stem}" + (f"  ({why})" if why else ""))
    print(
        f"tmux 80x24, demo palace: {out['drafts']} drafts cleared with {out['keys']} keystrokes, "
        f"{len(out['decisions'])} decisions ("
        + ", ".join(f"{k}: {v}" for k, v in sorted(made.items()))
        + f"), {out['commits']} commits, {len(out['wrong'])} wrong decisions, "
        f"{out['review_s']:.1f} s wall time; git status "
        f"{'clean' if out['clean'] else 'NOT clean: ' + out['status']}; inbox "
        f"{'empty' if not out['inbox_left'] else 'still holds ' + str(out['inbox_left'])}"
    )
    for wrong in out["wrong"]:
        print("WRONG:", wrong)
    ok = not out["wrong"] and out["clean"] and not out["inbox_left"]
    return 0 if ok and out["commits"] == out["drafts"] else 1


def fleet(drafts: int, notes: int, undo: int, seed: int, keep: bool) -> int:
    """The fleet's inbox cleared in tmux (tmux_fleet.py), with issue 36's figures."""
    from bench_fleet import make_palace as fleet_palace
    from tmux_fleet import fleet_review

    scratch = Path(tempfile.mkdtemp(prefix="curator-fleet-review-"))
    os.environ.setdefault("CURATOR_CACHE_HOME", str(scratch / "cache"))
    try:
        root, groups = fleet_palace(scratch, notes, drafts, seed)
        out = fleet_review(root, groups, undo)
    finally:
        if keep:
            print(f"scratch palace kept in {scratch}", file=sys.stderr)
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    one_each = out["commits"] == out["groups"]
    print(
        f"tmux 80x24, {notes} notes: {drafts} drafts in {out['groups']} groups cleared with "
        f"{out['keys']} keystrokes (target < 400), {out['wrong']} wrong decisions, "
        f"{out['commits']} commits ({'one a group' if one_each else 'NOT one a group'}), "
        f"{out['review_s']:.0f} s (slowest group {out['slowest_wait_s']:.1f} s); undo of the "
        f"last {out['undone']} groups through History: "
        f"{'every file back byte for byte' if out['undo_exact'] else 'NOT exact'} "
        f"{out['undo_differs'] or ''}"
    )
    ok = out["keys"] < 400 and not out["wrong"] and one_each and out["undo_exact"]
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
