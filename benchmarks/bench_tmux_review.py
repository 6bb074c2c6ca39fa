"""A reviewer clears a generated inbox in the real app, in tmux at 80×24, with keys only.

    python benchmarks/bench_tmux_review.py [--drafts 50] [--notes N] [--keep]
    python benchmarks/bench_tmux_review.py --palace P --notes N   (run.py's form: JSON rows)

Builds a scratch palace (a copy of the sample palace, or gen_palace's N notes), writes the
inbox of gen_review_inbox.py, builds the search index, then runs `curator` in a private tmux
server. Each draft gets its role's action: promote (the type chosen in the form where the
draft's is unknown), reject one by one, reject in bulk (space and shift+down, or `*` for all
from one session), bulk promote with one type, merge into the duplicate candidate (the
repeated text cut in the editor), supersede the candidate. Every step waits for the screen to
show what a reviewer would wait for (capture-pane, with a timeout that prints the screen),
never for a fixed time. Keys come from the app's own binding tables by id.

Then it checks every file and commit: inbox empty, each promoted draft a note with a header
that checks, the rejected ones in .curator/rejected/, one commit per action with curator's
trailers, INDEX.md current, `curator check` clean, and no planted escape sequence reached the
terminal (pane title, clipboard, screen). Prints keystrokes, wall time, actions and commits.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

from gen_review_inbox import (  # noqa: E402
    BULK_TYPE,
    CLIP_MARK,
    NEW_TYPE,
    TITLE_MARK,
    DraftSpec,
    write_inbox,
)

WIDTH, HEIGHT = 80, 24
PROMOTED = ("promote", "retype", "markup", "pair_a", "supersede", "bulkpromote")
MERGED = ("merge", "pair_b")
REJECTED = ("reject", "noise", "batch", "escapes", "malformed")
_TMUX_KEYS = {
    "space": "Space",
    "enter": "Enter",
    "escape": "Escape",
    "tab": "Tab",
    "asterisk": "*",
    "home": "Home",
    "end": "End",
    "up": "Up",
    "down": "Down",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
}
_MODS = {"ctrl": "C-", "shift": "S-", "alt": "M-"}


def tmux_key(key: str) -> str:
    """A Textual key name ('ctrl+s', 'shift+down', 'asterisk') as tmux send-keys names it."""
    *mods, base = key.split("+")
    return "".join(_MODS[m] for m in mods) + _TMUX_KEYS.get(base, base)


def app_keys() -> dict[str, str]:
    """Binding id (or 'table.<action>') -> tmux key, read from the app's binding tables."""
    from textual.binding import Binding

    from curator.ui.app import CuratorApp
    from curator.ui.screens.inbox import InboxScreen
    from curator.ui.widgets.dialogs import AskDialog, ChoiceDialog, EditDialog
    from curator.ui.widgets.plan_dialog import PlanDialog
    from curator.ui.widgets.promote_form import PromoteForm
    from curator.ui.widgets.table import Table

    out: dict[str, str] = {}
    tables = (CuratorApp, InboxScreen, PromoteForm, PlanDialog, AskDialog, ChoiceDialog, EditDialog)
    for cls in (*tables, Table):
        for binding in cls.BINDINGS:
            if isinstance(binding, Binding):
                name = binding.id or f"table.{binding.action}"
                out.setdefault(name, tmux_key(binding.key.split(",")[0].strip()))
    return out


class Tmux:
    """One app in a private tmux server (its own socket): keys in, screen text out."""

    def __init__(self, name: str) -> None:
        self.socket = name
        self.keystrokes = 0
        self.screens = 0
        self.escapes_seen: list[str] = []

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=True
        )
        return done.stdout

    def start(self, command: str) -> None:
        self.tmux("-f", "/dev/null", "new-session", "-d", "-s", "review", "-x", str(WIDTH),
                  "-y", str(HEIGHT), command)  # fmt: skip
        self.tmux("set-option", "-g", "set-clipboard", "on")  # an OSC 52 would land in a buffer

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)

    def keys(self, *keys: str, repeat: int = 1) -> None:
        for key in keys:
            self.tmux("send-keys", "-t", "review", "-N", str(repeat), key)
            self.keystrokes += repeat

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", "review", "-l", text)
        self.keystrokes += len(text)

    def screen(self) -> str:
        """The screen as text; the styled capture is checked for planted sequences."""
        styled = self.tmux("capture-pane", "-p", "-e", "-t", "review")
        self.screens += 1
        found = re.findall(r"\x1b\][^\x07\x1b]*|\x07|\x9b", styled)
        self.escapes_seen += [repr(f) for f in found]
        return re.sub(r"\x1b\[[0-9;:]*m", "", styled)

    def wait(self, *texts: str, gone: tuple[str, ...] = (), timeout: float = 30.0) -> str:
        """The screen once it shows every one of `texts` and none of `gone`."""
        end = time.monotonic() + timeout
        screen = ""
        toasts: dict[str, None] = {}  # what notifications said meanwhile (they time out)
        while time.monotonic() < end:
            screen = self.screen()
            if all(t in screen for t in texts) and not any(g in screen for g in gone):
                return screen
            toasts.update(dict.fromkeys(line.split("▌", 1)[1].strip() for line in
                                        screen.splitlines() if "▌" in line))  # fmt: skip
            time.sleep(0.03)
        said = " / ".join(t for t in toasts if t)
        raise AssertionError(
            f"waited {timeout:.0f} s for {texts!r} (and not {gone!r}); toasts meanwhile: "
            f"{said or 'none'}; the screen was:\n{screen}"
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
    waits: list[tuple[str, float]] = field(default_factory=list)  # confirm -> inbox updated
    bench_seconds: float = 0.0  # spent in this process working out keys, not in the app

    def key(self, binding_id: str, repeat: int = 1) -> None:
        self.term.keys(self.keys[binding_id], repeat=repeat)

    def count_shown(self) -> str:
        return f"Inbox ({len(self.remaining)})"

    def confirm(self, action: str, done: list[DraftSpec], reason: str = "") -> None:
        """Answer the reason prompt (if any), check the plan names the drafts, apply it, and
        wait for the inbox to show them gone."""
        if reason:
            self.term.wait("why?")
            self.term.type(reason)
            self.term.keys("Enter")
        self.term.wait("Apply (y)", done[0].tag, gone=("Planning…",))  # the plan is shown
        self.key("plan.confirm")
        self.remaining = [d for d in self.remaining if d not in done]
        self.actions.append((action, done))
        start = time.monotonic()
        self.term.wait(self.count_shown(), gone=("Apply (y)",), timeout=90)
        self.waits.append((f"{action} {done[0].tag}", time.monotonic() - start))

    def candidate(self, draft: DraftSpec) -> None:
        """Wait until the duplicate finder lists the expected note first."""
        want = draft.target_name[:24]
        end = time.monotonic() + 30
        while True:
            lines = self.term.screen().splitlines()
            at = next((i for i, line in enumerate(lines) if "Duplicate candidates" in line), -1)
            if at >= 0 and at + 1 < len(lines) and want in lines[at + 1]:
                return
            if time.monotonic() > end:
                raise AssertionError(f"{want!r} never came first; screen:\n" + "\n".join(lines))
            time.sleep(0.05)

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
            self.term.wait(f"Promote {draft.rel}", "superseding:")
        else:
            self.key("inbox.promote")
            self.term.wait(f"Promote {draft.rel}")
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
        if len(run) > 2:
            self.key("inbox.mark", repeat=len(run) - 2)
        self.key("inbox.mark_down")
        self.term.wait(f"{len(run)} marked")
        self.key("inbox.reject")
        self.confirm("reject", run, reason="duplicates")
        self.key("table.scroll_top")  # the cursor stayed on the last marked row

    def do_bulkpromote(self, draft: DraftSpec) -> None:
        run = self._mark_run("bulkpromote")
        self.key("inbox.mark", repeat=len(run))
        self.term.wait(f"{len(run)} marked")
        self.key("inbox.promote")
        self.term.wait(f"Promote {len(run)} drafts as type")
        if self.type_index[BULK_TYPE]:  # the list starts on the first type
            self.term.keys("Down", repeat=self.type_index[BULK_TYPE])
        self.term.keys("Enter")
        self.confirm("promote", run)
        self.key("table.scroll_top")  # the cursor is on the draft after the marked ones

    def do_merge(self, draft: DraftSpec) -> None:
        """m opens the merged text; the note's own copy of what the draft repeats is cut a
        line at a time (ctrl+x), keeping the draft's copy and what it adds."""
        self.candidate(draft)
        into, cut = self.lines_to_cut(draft)
        self.key("inbox.merge")
        self.term.wait(f"Edit {into[:40]}")
        self.term.keys("C-x", repeat=cut)
        self.key("edit.save")
        self.confirm("merge", [draft])

    do_pair_b = do_merge

    def lines_to_cut(self, draft: DraftSpec) -> tuple[str, int]:
        """The note merged into, and the lines before the draft's part of the merged text
        (the note's body and the heading), read from the palace on disk."""
        start = time.monotonic()
        from curator.model.palace import Palace
        from curator.ui import services
        from curator.ui.widgets.candidate_diff import without_banner

        palace = Palace.open(self.root)
        into = palace.find(draft.target_name if draft.role == "pair_b" else draft.target).rel
        lines = without_banner(services.merged_body(palace, draft.rel, into)).splitlines()
        heading = next(i for i, line in enumerate(lines) if line.startswith("## Merged from"))
        self.bench_seconds += time.monotonic() - start
        return into, heading + 2  # the heading and the blank line after it


# -- the scratch palace --------------------------------------------------------------------------
def _run(root: Path, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(list(argv), cwd=root, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit {done.returncode}\n{done.stderr[-1500:]}")
    return done


def curator(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return _run(root, sys.executable, "-m", "curator", *args, check=check)


def make_palace(
    root: Path, drafts: int, notes: int = 0, seed: int = 1, source: Path | None = None
) -> tuple[list[DraftSpec], str]:
    """A palace at `root` with the review inbox, INDEX.md current and the search index built;
    returns the drafts in list order and the commit the review starts from."""
    if source is not None:  # run.py's scratch copy, or any palace
        if root != source:
            shutil.copytree(source, root, ignore=shutil.ignore_patterns(".curator"))
    elif notes:
        from gen_palace import generate

        generate(root, notes=notes, drafts=0, seed=seed)
    else:
        ignore = shutil.ignore_patterns(".curator", "__pycache__", "__init__.py")
        shutil.copytree(REPO / "sample_palace", root, ignore=ignore)
    specs = write_inbox(root, drafts, seed)
    if not (root / ".git").exists():
        _run(root, "git", "init", "-q", "-b", "main")
    for key, value in (("user.name", "reviewer"), ("user.email", "reviewer@localhost"),
                       ("commit.gpgsign", "false"), ("gc.auto", "0")):  # fmt: skip
        _run(root, "git", "config", key, value)
    _run(root, "git", "add", "-A")
    _run(root, "git", "commit", "-q", "--no-verify", "--allow-empty", "-m", "bench: review inbox")
    curator(root, "index", "--yes")
    curator(root, "reindex")
    base = _run(root, "git", "rev-parse", "HEAD").stdout.strip()
    return specs, base


# -- checking what the session left ----------------------------------------------------------------
def verify(root: Path, specs: list[DraftSpec], base: str, actions: list) -> list[str]:
    """Every file and commit against the roles; [] when all is as the reviewer meant it."""
    from curator.model.palace import Palace

    problems: list[str] = []
    left = sorted(p.name for p in (root / "inbox").glob("*.md"))
    if left:
        problems.append(f"inbox/ still holds {left}")
    palace = Palace.open(root, cache=False)
    by_name = {n.name: n for n in palace.notes}
    for d in specs:
        kept = {"promoted": PROMOTED, "merged": MERGED, "rejected": REJECTED}
        folder = next(f for f, roles in kept.items() if d.role in roles)
        if not (root / ".curator" / folder / Path(d.rel).name).is_file():
            problems.append(f"{d.rel} ({d.role}) is not in .curator/{folder}/")
        if d.role in PROMOTED:
            problems += _promoted(d, by_name.get(d.name), palace)
        if d.role in MERGED:
            target = palace.find(d.target_name if d.role == "pair_b" else d.target)
            draft_text = (root / ".curator/merged" / Path(d.rel).name).read_text(encoding="utf-8")
            added = draft_text.rstrip().splitlines()[-1]
            if target.body.count(added) != 1:
                problems.append(f"{target.rel}: the merged line {added[:40]!r} is not there once")
            first = next(line for line in target.body.splitlines() if line.strip())
            if target.body.count(first) != 1:
                problems.append(f"{target.rel}: what repeats was not removed ({first[:30]!r}…)")
    problems += _commits(root, base, actions)
    for args, what in ((("index", "--check"), "INDEX.md is not current"),
                       (("check", "-q"), "curator check has errors")):  # fmt: skip
        done = curator(root, *args, check=False)
        if done.returncode != 0:
            problems.append(f"{what}: {done.stdout.strip()[-500:]}")
    status = _run(root, "git", "status", "--porcelain").stdout.strip()
    if status:
        problems.append(f"the working tree is not clean after the session:\n{status}")
    return problems


def _promoted(d: DraftSpec, note: object, palace: object) -> list[str]:
    from curator.model.note import Note

    if not isinstance(note, Note):
        return [f"{d.rel} ({d.role}): no note named {d.name!r}"]
    want = {"retype": NEW_TYPE, "bulkpromote": BULK_TYPE}.get(d.role, d.type)
    out = []
    if note.type != want or note.status == "draft" or not note.rel.startswith("notes/"):
        out.append(f"{note.rel}: type {note.type!r}, status {note.status!r} (want {want})")
    errors = [f.message for f in note.problems if getattr(f, "severity", "error") == "error"]
    if errors:
        out.append(f"{note.rel}: header problems {errors}")
    if "DRAFT" in note.body.split("\n", 2)[0]:
        out.append(f"{note.rel}: still carries the draft banner")
    if d.role == "supersede":
        old = palace.find(d.target)  # type: ignore[attr-defined]
        if old.status != "superseded" or Path(d.target).stem not in str(note.header):
            out.append(f"{note.rel} does not supersede {d.target} ({old.status})")
    return out


def _commits(root: Path, base: str, actions: list) -> list[str]:
    log = _run(root, "git", "log", "--reverse", "--format=%H%x00%B%x01", f"{base}..HEAD").stdout
    commits = [c.strip("\n").split("\x00", 1) for c in log.split("\x01") if c.strip()]
    problems = []
    if len(commits) != len(actions):
        problems.append(f"{len(commits)} commits for {len(actions)} actions")
    for (sha, body), (action, drafts) in zip(commits, actions, strict=False):
        got = re.findall(r"^Curator-Action: (\S+)$", body, re.M)
        if got != [action]:
            problems.append(f"{sha[:10]}: Curator-Action {got}, want {action}")
        missing = [d.rel for d in drafts if d.rel not in body]
        if missing:
            problems.append(f"{sha[:10]} ({action}) does not name {missing}")
    return problems


def terminal_problems(term: Tmux, title: str, buffers: str) -> list[str]:
    out = []
    if term.escapes_seen:
        out.append(f"escape sequences on the screen: {sorted(set(term.escapes_seen))[:5]}")
    if TITLE_MARK in title:
        out.append(f"a draft set the terminal title: {title!r}")
    if CLIP_MARK in buffers:
        out.append("a draft wrote to the clipboard (OSC 52)")
    return out


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

    def summary(self) -> str:
        kinds: dict[str, int] = {}
        for action, done in self.actions:
            kind = f"{action}×{len(done)}" if len(done) > 1 else action
            kinds[kind] = kinds.get(kind, 0) + 1
        made = ", ".join(f"{k}: {v}" for k, v in sorted(kinds.items()))
        return (
            f"{self.drafts} drafts cleared with {self.keystrokes} keystrokes in "
            f"{self.review_s:.1f} s of review (+{self.startup_s:.1f} s to the first inbox); "
            f"{len(self.actions)} actions ({made}); {self.commits} commits; "
            f"{self.screens} screens read; {len(self.problems)} problems"
        )


def review(root: Path, specs: list[DraftSpec], base: str) -> Result:
    """Run the app in tmux over the inbox at `root` and check what it left."""
    from curator.model.palace import Palace

    types = list(Palace.open(root).config.types)
    xdg = Path(tempfile.mkdtemp(prefix="curator-review-xdg-"))
    command = (
        f"cd '{root}' && env -u VISUAL -u EDITOR -u CURATOR_PALACE XDG_CONFIG_HOME='{xdg}' "
        f"'{sys.executable}' -m curator; echo curator-exited-$?; sleep 300"
    )
    term = Tmux(f"curator-review-{os.getpid()}")
    keys = app_keys()
    reviewer = Reviewer(term, keys, list(specs), root, {t: i for i, t in enumerate(types)})
    try:
        start = time.monotonic()
        term.start(command)
        term.wait(f"Inbox ({len(specs)})", timeout=180)
        ready = time.monotonic()
        reviewer.run()
        term.wait("Inbox (0)", "Inbox zero")
        done = time.monotonic()
        term.keys(keys["app.quit"])
        term.wait("curator-exited-0")
        title = term.tmux("display", "-p", "-t", "review", "#{pane_title}")
        names = term.tmux("list-buffers", "-F", "#{buffer_name}").split()
        buffers = "".join(term.tmux("show-buffer", "-b", name) for name in names)
    finally:
        term.close()
        shutil.rmtree(xdg, ignore_errors=True)
    problems = verify(root, specs, base, reviewer.actions)
    problems += terminal_problems(term, title, buffers)
    commits = int(_run(root, "git", "rev-list", "--count", f"{base}..HEAD").stdout)
    return Result(
        len(specs),
        term.keystrokes,
        ready - start,
        done - ready - reviewer.bench_seconds,
        reviewer.actions,
        commits,
        term.screens,
        problems,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drafts", type=int, default=50)
    parser.add_argument("--notes", type=int, default=0, help="a generated palace (0: sample)")
    parser.add_argument("--palace", type=Path, help="review in this palace (run.py's copy)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the scratch palace")
    args = parser.parse_args(argv)
    if shutil.which("tmux") is None:
        print("tmux is not installed", file=sys.stderr)
        return 2
    scratch = Path(tempfile.mkdtemp(prefix="curator-review-"))
    root = args.palace or scratch / "palace"
    try:
        specs, base = make_palace(root, args.drafts, args.notes, args.seed, args.palace)
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

        note = f"{result.keystrokes} keys, {len(result.actions)} actions, 80x24 tmux"
        emit([row("tmux", f"clear {result.drafts}-draft inbox", [result.review_s], note=note)])
    return 1 if result.problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
