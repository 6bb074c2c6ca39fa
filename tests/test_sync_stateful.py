"""Three clones of one bare remote with `[team] share_inbox` on, as a hypothesis state machine
(issue 31). The rules are real curator actions (capture, some drafts sensitive or in a private
scope; promote, reject, edit, retire, undo, sync), a person's hand edit of INDEX.md's preamble
and a teammate's push made with plain git. After every step:

- every clone's tracked files are as committed (`git status` clean);
- every clone's INDEX.md is a fresh render of its notes, holding every hand line it has;
- no hidden draft's text is in any object the remote holds (every ref), unless a reviewer
  promoted it;

and after every sync: no draft text the clone held before is gone (its inbox or what it set
aside), no action is in its history twice, and every `Curator-Undo` trailer names a commit of
that history. At the end every clone is at the remote's tip and every action done is there
exactly once, unless its reviewer gave it up in a conflict.

`CURATOR_SHARED_EXAMPLES` / `CURATOR_SHARED_STEPS` raise the counts, `CURATOR_SHARED_RANDOM`
draws new runs (the suite runs the same few every time), `CURATOR_SHARED_COUNTS` names a JSON
file that gets what the runs exercised.
"""

from __future__ import annotations

import collections
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, rule
from palacehelpers import git
from synchelpers import (
    TeamMachine,
    clean,
    each_action_once,
    reject_nth,
    tokens_of,
)

from curator.errors import CuratorError
from curator.model.index_md import MARKER, render_index
from curator.model.palace import Palace
from curator.writer.actions.edit import plan_edit
from curator.writer.actions.promote import plan_promote
from curator.writer.actions.retire import plan_retire
from curator.writer.actions.undo import undo
from curator.writer.capture import capture
from curator.writer.session import commit
from curator.writer.sync import Conflict, Resolution

NAMES = ["Retry rule", "Deploy notes", "Cache policy"]
KINDS = ["plain", "plain", "sensitive", "private"]
SCOPE = "\n[scopes.ops-private]\nsensitive = true\n"
COUNTS: collections.Counter[str] = collections.Counter()  # what the runs exercised


def _bytes(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, check=True).stdout


def _union(mine: bytes, base: bytes, theirs: bytes) -> bytes:
    """What a reviewer merging two hand edits keeps: both sides' lines (git's union merge)."""
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for name, data in (("mine", mine), ("base", base), ("theirs", theirs)):
            (Path(folder) / name).write_bytes(data)
            paths.append(name)
        return _bytes(Path(folder), "merge-file", "-p", "--union", *paths)


def _draft_texts(clone: Path, *, set_aside: bool) -> set[bytes]:
    """The drafts' bytes this clone holds: its inbox, and with `set_aside` what curator
    parked or set aside under .curator/."""
    folders = [clone / "inbox"] + ([clone / ".curator"] if set_aside else [])
    return {p.read_bytes() for f in folders if f.is_dir() for p in f.rglob("*.md") if p.is_file()}


def _preamble(data: bytes) -> bytes:
    return data.split(MARKER.encode(), 1)[0]


class SharedTeam(TeamMachine):
    def __init__(self) -> None:
        super().__init__()
        self.hidden: set[str] = set()  # markers of hidden drafts
        self.promoted: set[str] = set()  # hidden markers a reviewer committed as notes
        self.hands: list[set[bytes]] = [set(), set(), set()]  # hand lines each clone has
        self.remote_hands: set[bytes] = set()
        self.local: list[set[str]] = [set(), set(), set()]  # uncommitted notes per clone

    # -- helpers ---------------------------------------------------------------------------
    def act(self, i: int, make: object) -> None:
        root = self.clones[i]
        palace = Palace.open(root)
        token = self.token()
        try:
            plan = make(palace, token)  # type: ignore[operator]
            if plan is None:
                return
            commit(root, plan, palace=palace)
        except CuratorError:
            COUNTS["refused"] += 1
            return  # refused: nothing changed (the invariants check it)
        self.done.add(token)
        COUNTS["done"] += 1

    def committed(self, palace: Palace) -> list:
        """The palace's notes but the ones a person left uncommitted."""
        mine = set().union(*self.local)
        return [n for n in palace.notes if n.rel not in mine]

    def do_sync(self, i: int, choices: list[bool]) -> None:
        root = self.clones[i]
        before = _draft_texts(root, set_aside=False)

        def settle(c: Conflict) -> Resolution:
            COUNTS[f"conflict {c.kind}{' INDEX.md' if c.path == 'INDEX.md' else ''}"] += 1
            if c.path == "INDEX.md":  # two hand edits: the reviewer keeps both
                return _union(c.mine_text or b"", c.base or b"", c.theirs_text or b"")
            keep = choices.pop() if choices else False
            return "mine" if keep and c.kind != "check" else "theirs"

        result = self.synced(i, settle)
        COUNTS["syncs"] += 1
        COUNTS["replayed"] += len(result.plan.outgoing) if result.plan.incoming else 0
        self.hands[i] |= self.remote_hands
        if result.pushed or result.plan.new_head == result.plan.remote_tip:
            self.remote_hands |= self.hands[i]
        # nothing this clone's inbox held is gone: kept, or set aside under .curator/
        lost = before - _draft_texts(root, set_aside=True)
        assert not lost, sorted(lost)
        seen = tokens_of(root, one=False)
        assert len(seen) == len(set(seen)), seen  # no action twice
        shas = set(git(root, "rev-list", "HEAD").stdout.split())
        undos = git(root, "log", "--format=%(trailers:key=Curator-Undo,valueonly)").stdout
        assert set(undos.split()) <= shas  # every undo names a commit of this history

    # -- the rules -------------------------------------------------------------------------
    def capture_draft(self, i: int, name: str, kind: str) -> None:
        marker = self.token("HIDDEN" if kind != "plain" else "text")
        if kind != "plain":
            self.hidden.add(marker)
        try:
            capture(
                self.clones[i],
                type="project",
                name=name,
                body=f"{marker} body.\n",
                description=f"{name} {marker}",
                scope="ops-private" if kind == "private" else None,
                extra={"sensitive": True} if kind == "sensitive" else None,
            )
        except CuratorError:
            self.hidden.discard(marker)  # refused (the same name twice): nothing written

    def promote(self, i: int, k: int) -> None:
        def make(palace: Palace, token: str) -> object:
            if not palace.drafts:
                return None
            draft = palace.drafts[k % len(palace.drafts)]
            plan = plan_promote(palace, draft.rel, confidence=0.8, reason=token)
            self.promoted.update(m for m in self.hidden if m in draft.text)
            return plan

        self.act(i, make)

    def reject(self, i: int, k: int) -> None:
        self.act(i, lambda palace, token: reject_nth(palace, k, token))

    def edit(self, i: int, k: int) -> None:
        def make(palace: Palace, token: str) -> object:
            notes = self.committed(palace)
            if not notes:
                return None
            note = notes[k % len(notes)]
            new = (note.text[: note.header_end] + f"Edited {token}.\n").encode()
            return plan_edit(palace, note.rel, new, reason=token)

        self.act(i, make)

    def retire(self, i: int, k: int) -> None:
        def make(palace: Palace, token: str) -> object:
            notes = self.committed(palace)
            return plan_retire(palace, notes[k % len(notes)].rel, token) if notes else None

        self.act(i, make)

    def undo_last(self, i: int) -> None:
        self.act(i, lambda palace, token: undo(palace.root, None, palace=palace, reason=token))

    def sync_clone(self, i: int, k: int) -> None:
        self.do_sync(i, [bool(k & 1), bool(k & 2), bool(k & 4), bool(k & 8)])

    def _hand_edit(self, root: Path, at: int) -> bytes:
        """A line written by hand into INDEX.md's preamble, committed with plain git."""
        line = f"Hand line {self.token('hand')}, by a person.\n".encode()
        data = (root / "INDEX.md").read_bytes()
        pre = _preamble(data)
        lines = pre.splitlines(keepends=True)
        lines.insert(at % (len(lines) + 1), line)
        (root / "INDEX.md").write_bytes(b"".join(lines) + data[len(pre) :])
        git(root, "commit", "-q", "-m", "hand edit of the preamble", "--", "INDEX.md")
        return line

    def hand_edit(self, i: int, at: int) -> None:
        self.hands[i].add(self._hand_edit(self.clones[i], at))
        COUNTS["hand edits"] += 1

    def local_note(self, i: int, k: int) -> None:
        """A note a person wrote into notes/ and never committed (not for the team)."""
        marker = self.token("LOCAL")
        self.hidden.add(marker)
        rel = f"notes/project/{marker.lower()}.md"
        text = f"---\nname: {marker}\ndescription: {marker}\ntype: project\n---\n{marker}\n"
        (self.clones[i] / rel).parent.mkdir(parents=True, exist_ok=True)
        (self.clones[i] / rel).write_text(text, encoding="utf-8")
        self.local[i].add(rel)

    def teammate_push(self, at: int, k: int) -> None:
        """A teammate outside this test's clones pushes with plain git: a hand line in
        INDEX.md and, when there are notes, a note's body edited."""
        mate = self.base / self.token("mate")
        git(self.base, "clone", "-q", str(self.remote), str(mate))
        git(mate, "config", "user.name", "mate")
        git(mate, "config", "user.email", "mate@elsewhere")
        line = self._hand_edit(mate, at)
        notes = sorted(p for p in (mate / "notes").rglob("*.md"))
        if notes:
            note = notes[k % len(notes)]
            note.write_bytes(note.read_bytes() + b"A teammate's line.\n")
            git(mate, "commit", "-q", "-am", "a teammate's edit")
        git(mate, "push", "-q", "origin", "main")
        self.remote_hands.add(line)
        shutil.rmtree(mate)
        COUNTS["teammate pushes"] += 1

    OPS = (
        "capture_draft", "capture_draft", "promote", "promote", "reject", "edit", "retire",
        "undo_last", "sync_clone", "sync_clone", "sync_clone", "hand_edit", "teammate_push",
        "local_note",
    )  # fmt: skip

    # one rule with the action drawn: hypothesis runs a subset of the rules in each run
    # (swarm testing), and a few cheap runs must each mix them all
    @rule(
        op=st.sampled_from(OPS),
        i=st.integers(0, 2),
        k=st.integers(0, 15),
        name=st.sampled_from(NAMES),
        kind=st.sampled_from(KINDS),
    )
    def step(self, op: str, i: int, k: int, name: str, kind: str) -> None:
        COUNTS[op] += 1
        if op == "capture_draft":
            self.capture_draft(i, name, kind)
        elif op == "teammate_push":
            self.teammate_push(k, k // 3)
        elif op == "undo_last":
            self.undo_last(i)
        else:
            getattr(self, op)(i, k)

    @initialize()
    def share(self) -> None:
        """share_inbox on and a private scope, committed by the first clone; all synced."""
        toml = self.clones[0] / "palace.toml"
        text = toml.read_text(encoding="utf-8").replace("share_inbox = false", "share_inbox = true")
        toml.write_text(text + SCOPE, encoding="utf-8")
        git(self.clones[0], "commit", "-q", "-am", "share the inbox; a private scope")
        self.do_sync(0, [])
        # every clone starts with a note and drafts of its own, one of them hidden, and two
        # clones with the same name: the first syncs meet shared drafts and a name taken
        # and a hand line in INDEX.md and a note of its own never committed: the first sync
        # of the second and third clone replays them onto the first one's
        for i in range(3):
            for name, kind in ((NAMES[i], "plain"), (NAMES[(i + 1) % 3], KINDS[2 + i % 2])):
                self.capture_draft(i, name, kind)
            self.promote(i, 0)
            self.hand_edit(i, i)
            self.local_note(i, 0)
        for i in range(3):
            self.do_sync(i, [i == 1])

    # -- after every step ------------------------------------------------------------------
    @invariant()
    def clones_are_clean_and_generated_files_current(self) -> None:
        for i, clone in enumerate(self.clones):
            assert clean(clone)
            # a fresh render of what HEAD holds: the notes on disk but the uncommitted ones
            palace = Palace.open(clone).replaced(dict.fromkeys(self.local[i]))
            index = _bytes(clone, "show", "HEAD:INDEX.md")
            assert render_index(palace, index).encode() == index
            missing = [h for h in self.hands[i] if h not in _preamble(index)]
            assert not missing, missing
        pushed = _bytes(self.remote, "show", "main:INDEX.md")
        assert not [h for h in self.remote_hands if h not in _preamble(pushed)]

    @invariant()
    def nothing_hidden_on_the_remote(self) -> None:
        held = _bytes(self.remote, "cat-file", "--batch-all-objects", "--batch")
        leaked = [m for m in self.hidden - self.promoted if m.encode() in held]
        assert not leaked, leaked

    def teardown(self) -> None:
        try:
            self.sync_all()
            each_action_once(self.clones[0], self.accepted, self.done, self.given_up)
        finally:
            shutil.rmtree(self.base, ignore_errors=True)
            COUNTS.update(
                runs=1, given_up=len(self.given_up), hidden=len(self.hidden),
                hidden_promoted=len(self.promoted),
            )  # fmt: skip
            if counts := os.environ.get("CURATOR_SHARED_COUNTS"):
                Path(counts).write_text(json.dumps(COUNTS), encoding="utf-8")


TestSharedTeam = SharedTeam.TestCase
TestSharedTeam.settings = settings(
    max_examples=int(os.environ.get("CURATOR_SHARED_EXAMPLES", "3")),
    stateful_step_count=int(os.environ.get("CURATOR_SHARED_STEPS", "12")),
    deadline=None,
    derandomize=not os.environ.get("CURATOR_SHARED_RANDOM"),  # CI: the same runs every time
    database=None,
    suppress_health_check=list(HealthCheck),
)
