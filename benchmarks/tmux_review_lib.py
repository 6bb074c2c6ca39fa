"""The tmux side of bench_tmux_review.py: the app in a private tmux server (keys in, screen
text out), the app's keys read from its binding tables, the scratch palace, and the checks of
what a review session left (files, commits, the terminal)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
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
BASELINE = "curator-bench-check-errors"  # in .git/: the errors before the review
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
    """Binding id (or 'table.<action>') -> tmux key, read from the app's binding tables; and
    'footer.<id>' -> how the footer shows it ('y Apply'): the footer row is never covered."""
    from textual.binding import Binding

    from curator.ui.app import CuratorApp
    from curator.ui.screens.history import HistoryScreen
    from curator.ui.screens.inbox import InboxScreen
    from curator.ui.widgets.dialogs import AskDialog, ChoiceDialog, EditDialog
    from curator.ui.widgets.plan_dialog import PlanDialog
    from curator.ui.widgets.promote_form import PromoteForm
    from curator.ui.widgets.table import Table

    out: dict[str, str] = {}
    tables = (
        CuratorApp,
        InboxScreen,
        HistoryScreen,
        PromoteForm,
        PlanDialog,
        AskDialog,
        ChoiceDialog,
        EditDialog,
    )
    for cls in (*tables, Table):
        inherited = [b for klass in cls.__mro__ for b in getattr(klass, "BINDINGS", ())]
        for binding in inherited:  # a table's Home/End are its base class's (RowTable)
            if isinstance(binding, Binding):
                name = binding.id or f"table.{binding.action}"
                first = binding.key.split(",")[0].strip()
                out.setdefault(name, tmux_key(first))
                shown = "esc" if first == "escape" else first.replace("ctrl+", "^")
                out.setdefault(f"footer.{name}", f"{shown} {binding.description}")
    return out


class Tmux:
    """One app in a private tmux server (its own socket): keys in, screen text out."""

    def __init__(self, name: str) -> None:
        self.socket = name
        self.keystrokes = 0
        self.screens = 0
        self.escapes_seen: list[str] = []
        self.waited: list[tuple[float, str]] = []  # seconds until the screen showed the text
        self.stacks = Path(tempfile.mkdtemp(prefix="curator-stacks-")) / "stacks.txt"

    def app(self, module: str = "curator") -> str:
        """The shell words that run `python -m <module>` in the pane with every thread's stack
        written to `stacks` on SIGUSR1 (faulthandler needs no GIL: a process that hangs answers
        too), which a wait that times out reports."""
        code = (
            "import faulthandler, runpy, signal, sys; "
            "faulthandler.register(signal.SIGUSR1, open(sys.argv.pop(1), 'w'), all_threads=True); "
            "runpy.run_module(sys.argv.pop(1), run_name='__main__', alter_sys=True)"
        )
        return shlex.join([sys.executable, "-c", code, str(self.stacks), module])

    def thread_stacks(self) -> str:
        """Every thread's stack of the process `app()` started ('' when none runs)."""
        if not self.stacks.exists():  # written from the start, once the handler is set
            return ""
        for pid in self._pane_processes():
            try:
                if b"faulthandler.register" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    os.kill(int(pid), signal.SIGUSR1)
            except OSError:  # it ended meanwhile
                continue
        end, text = time.monotonic() + 10, ""
        while time.monotonic() < end:  # until the dump is written whole
            now = self.stacks.read_text(errors="replace")
            if now and now == text:
                break
            text = now
            time.sleep(0.1)
        return text

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=True
        )
        return done.stdout

    def start(self, command: str) -> None:
        # The server runs in the foreground (-D), a child of this process: a daemonizing
        # server needs a character device at /dev/null, which some sandboxes do not have.
        self.server = subprocess.Popen(
            ["tmux", "-L", self.socket, "-f", "/dev/null", "-D"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        end = time.monotonic() + 10
        while subprocess.run(["tmux", "-L", self.socket, "list-sessions"],
                             capture_output=True).returncode != 0:  # fmt: skip
            if time.monotonic() > end or self.server.poll() is not None:
                raise RuntimeError(f"tmux server {self.socket} did not start")
            time.sleep(0.05)
        self.tmux("new-session", "-d", "-s", "review", "-x", str(WIDTH), "-y", str(HEIGHT),
                  command)  # fmt: skip
        self.tmux("set-option", "-g", "set-clipboard", "on")  # an OSC 52 would land in a buffer

    def close(self) -> None:
        """Stop this server and remove its socket (kill-server leaves the file behind)."""
        try:
            path = self.tmux("display", "-p", "#{socket_path}").strip()
        except subprocess.CalledProcessError:
            path = ""
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)
        server = getattr(self, "server", None)
        if server is not None:
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
        if path:
            Path(path).unlink(missing_ok=True)
        shutil.rmtree(self.stacks.parent, ignore_errors=True)

    def _pane_processes(self) -> list[str]:
        """The pids of the pane's process (a shell, or what it ran in its place) and of the
        processes it started."""
        shell = self.tmux("display", "-p", "-t", "review", "#{pane_pid}").strip()
        found = subprocess.run(["pgrep", "-P", shell], capture_output=True, text=True)
        return [shell, *found.stdout.split()]

    def app_peak_mb(self) -> float | None:
        """The app's peak resident memory (Linux: the largest VmHWM of the pane's processes),
        read while it still runs."""
        peaks = []
        for pid in self._pane_processes():
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            peaks += [int(m) for m in re.findall(r"^VmHWM:\s+(\d+) kB", status, re.M)]
        return max(peaks) / 1024 if peaks else None

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

    def wait(self, *texts: str, gone: tuple[str, ...] = (), timeout: float = 60.0) -> str:
        """The screen once it shows every one of `texts` and none of `gone`."""
        end = time.monotonic() + timeout
        screen = ""
        toasts: dict[str, None] = {}  # what notifications said meanwhile (they time out)
        while time.monotonic() < end:
            screen = self.screen()
            if all(t in screen for t in texts) and not any(g in screen for g in gone):
                self.waited.append((time.monotonic() - end + timeout, " ".join(texts)))
                return screen
            toasts.update(dict.fromkeys(line.split("▌", 1)[1].strip() for line in
                                        screen.splitlines() if "▌" in line))  # fmt: skip
            time.sleep(0.03)
        said = " / ".join(t for t in toasts if t)
        stacks = self.thread_stacks()
        raise AssertionError(
            f"waited {timeout:.0f} s for {texts!r} (and not {gone!r}); toasts meanwhile: "
            f"{said or 'none'}; the screen was:\n{screen}"
            + (f"\nthe app's threads then:\n{stacks}" if stacks else "")
        )


def candidate_first(term: Tmux, want: str, timeout: float = 60.0) -> None:
    """Wait until the inbox's duplicate finder lists a note whose row shows `want` first."""
    end = time.monotonic() + timeout
    while True:
        lines = term.screen().splitlines()
        at = next((i for i, line in enumerate(lines) if "Duplicate candidates" in line), -1)
        if at >= 0 and at + 1 < len(lines) and want in lines[at + 1]:
            return
        if time.monotonic() > end:
            raise AssertionError(f"{want!r} never came first; screen:\n" + "\n".join(lines))
        time.sleep(0.05)


# -- the scratch palace --------------------------------------------------------------------------
def run(root: Path, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(list(argv), cwd=root, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit {done.returncode}\n{done.stderr[-1500:]}")
    return done


def curator(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return run(root, sys.executable, "-m", "curator", *args, check=check)


def git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run(root, "git", *args)


def make_palace(
    root: Path,
    drafts: int,
    notes: int = 0,
    seed: int = 1,
    source: Path | None = None,
    *,
    search_index: bool | Path = True,
) -> tuple[list[DraftSpec], str]:
    """A palace at `root` with the review inbox, INDEX.md current and the search index built;
    returns the drafts in list order and the commit the review starts from. `search_index` a
    palace: its built index (of the same notes, another inbox) is copied instead, and the app
    brings it up to date as it starts, as after drafts captured since the last sync."""
    if source is not None:  # run.py's scratch copy, or any palace
        if root != source:
            shutil.copytree(source, root, ignore=shutil.ignore_patterns(".curator"))
    elif notes:
        from gen_palace import generate

        generate(root, notes=notes, drafts=0, seed=seed)
    else:
        ignore = shutil.ignore_patterns(".curator", "__pycache__", "__init__.py")
        shutil.copytree(REPO / "sample_palace", root, ignore=ignore)
    # no drafts asked for: the palace keeps its own inbox (the sample palace's demo drafts)
    specs = write_inbox(root, drafts, seed) if drafts else []
    if not (root / ".git").exists():
        git(root, "init", "-q", "-b", "main")
    for key, value in (("user.name", "reviewer"), ("user.email", "reviewer@localhost"),
                       ("commit.gpgsign", "false"), ("gc.auto", "0")):  # fmt: skip
        git(root, "config", key, value)
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "--allow-empty", "-m", "bench: review inbox")
    curator(root, "index", "--yes")
    if isinstance(search_index, Path):
        shutil.copytree(search_index / ".curator", root / ".curator", symlinks=True)
    elif search_index:  # built before the app starts, as in a palace in use
        curator(root, "reindex")
    base = git(root, "rev-parse", "HEAD").stdout.strip()
    # a generated palace has errors by design (broken links): the review must add none
    (root / ".git" / BASELINE).write_text("\n".join(sorted(check_errors(root))), encoding="utf-8")
    return specs, base


def check_errors(root: Path) -> set[str]:
    """`curator check`'s errors as 'path: message' (line numbers left out: an edited header
    moves them)."""
    out = curator(root, "check", "-q", check=False).stdout
    found = re.findall(r"^(\S+?)(?::\d+)?: error: (.*)$", out, re.M)
    return {f"{path}: {message}" for path, message in found}


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
        if d.role in MERGED and (root / ".curator/merged" / Path(d.rel).name).is_file():
            target = palace.find(d.target_name if d.role == "pair_b" else d.target)
            draft_text = (root / ".curator/merged" / Path(d.rel).name).read_text(encoding="utf-8")
            added = draft_text.rstrip().splitlines()[-1]
            if target.body.count(added) != 1:
                problems.append(f"{target.rel}: the merged line {added[:40]!r} is not there once")
            first = next(line for line in target.body.splitlines() if line.strip())
            if target.body.count(first) != 1:
                problems.append(f"{target.rel}: what repeats was not removed ({first[:30]!r}…)")
    problems += _commits(root, base, actions)
    done = curator(root, "index", "--check", check=False)
    if done.returncode != 0:
        problems.append(f"INDEX.md is not current: {done.stdout.strip()[-300:]}")
    baseline = root / ".git" / BASELINE
    before = set(baseline.read_text(encoding="utf-8").splitlines()) if baseline.exists() else set()
    new = sorted(check_errors(root) - before)
    if new:
        problems.append(f"curator check: {len(new)} new errors, the first: {new[:3]}")
    status = git(root, "status", "--porcelain").stdout.strip()
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
    errors = [f.message for f in note.problems if f.severity == "error"]
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
    log = git(root, "log", "--reverse", "--format=%H%x00%B%x01", f"{base}..HEAD").stdout
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


def terminal_problems(term: Tmux) -> list[str]:
    """What escapes reached the terminal: the pane's title, tmux's clipboard buffers (an OSC 52
    lands there with set-clipboard on), any OSC or C1 sequence in the styled screens read."""
    title = term.tmux("display", "-p", "-t", "review", "#{pane_title}")
    names = term.tmux("list-buffers", "-F", "#{buffer_name}").split()
    buffers = "".join(term.tmux("show-buffer", "-b", name) for name in names)
    out = []
    if term.escapes_seen:
        out.append(f"escape sequences on the screen: {sorted(set(term.escapes_seen))[:5]}")
    if TITLE_MARK in title:
        out.append(f"a draft set the terminal title: {title!r}")
    if CLIP_MARK in buffers:
        out.append("a draft wrote to the clipboard (OSC 52)")
    return out
