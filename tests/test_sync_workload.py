"""A generated team workload (issue 22): three clones of one bare remote run random captures,
promotes, rejects, edits, supersedes, merges, retires and undos, with syncs interleaved, often
on the same draft name or the same note. A conflict is settled at random (this clone's text or
the remote's). At the end, after every clone synced:

- every clone equals the remote (same commit, no uncommitted tracked change);
- every action reported done is in the remote's history exactly once, or was given up by its
  reviewer in a conflict (reported by the sync): none is lost;
- every note's bytes are what the last accepted action wrote;
- INDEX.md is the pure function of the notes, and check finds no error.

`CURATOR_SYNC_EXAMPLES` / `CURATOR_SYNC_STEPS` raise the counts (benchmarks/bench_sync.py
runs thousands of steps); `CURATOR_SYNC_COUNTS` names a JSON-lines file that gets each run's
counts.
"""

from __future__ import annotations

import json
import os
import shutil
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
from curator.model.check import run_checks
from curator.model.index_md import index_is_current
from curator.model.palace import Palace
from curator.writer.actions.edit import plan_edit
from curator.writer.actions.merge import plan_merge
from curator.writer.actions.promote import plan_promote
from curator.writer.actions.retire import plan_retire
from curator.writer.actions.supersede import plan_supersede
from curator.writer.actions.undo import undo
from curator.writer.capture import capture
from curator.writer.git import discover, read_blobs, tree_changes
from curator.writer.session import commit
from curator.writer.sync import Conflict, Resolution

NAMES = ["Retry rule", "Deploy notes", "Cache policy", "Flag names", "Owner map"]
BODIES = ["First text.\n", "Second text.\n", "Third text, longer.\n"]
COUNTS: dict[str, int] = {
    "steps": 0, "done": 0, "refused": 0, "syncs": 0, "conflicts": 0, "given_up": 0, "lost": 0
}  # fmt: skip


class Team(TeamMachine):
    def __init__(self) -> None:
        super().__init__()
        self.effects: dict[str, dict[str, bytes | None]] = {}  # token -> note bytes it wrote
        self.model: dict[str, bytes] = {}  # what the last accepted action wrote, per note

    # -- helpers ---------------------------------------------------------------------------
    def apply(self, root: Path, palace: Palace, plan: object, token: str) -> None:
        applied = commit(root, plan, palace=palace)  # type: ignore[arg-type]
        repo = discover(root)
        changes = [
            ch
            for ch in tree_changes(repo, applied.sha)
            if ch.path.startswith("notes/") and ch.path.endswith(".md")
        ]
        data = read_blobs(repo, [ch.new for ch in changes if ch.new_mode != "000000"])
        self.effects[token] = {
            ch.path: (None if ch.new_mode == "000000" else data[ch.new]) for ch in changes
        }
        self.done.add(token)
        COUNTS["done"] += 1

    def act(self, i: int, make: object) -> None:
        COUNTS["steps"] += 1
        root = self.clones[i]
        palace = Palace.open(root)
        token = self.token()
        try:
            plan = make(palace, token)  # type: ignore[operator]
            if plan is not None:
                self.apply(root, palace, plan, token)
        except CuratorError:
            COUNTS["refused"] += 1  # not done, and nothing changed

    def do_sync(self, i: int, choices: list[bool]) -> None:
        COUNTS["syncs"] += 1

        def settle(conflict: Conflict) -> Resolution:
            COUNTS["conflicts"] += 1
            keep = choices.pop() if choices else False
            return "mine" if keep and conflict.kind != "check" else "theirs"

        given_up = len(self.given_up)
        result = self.synced(i, settle)
        COUNTS["given_up"] += len(self.given_up) - given_up
        # only the commits this sync pushed are new to the remote
        for made in result.plan.outgoing if result.pushed else ():
            for token in tokens_of(self.clones[i], made.sha):
                for path, data in self.effects[token].items():
                    if data is None:
                        self.model.pop(path, None)
                    else:
                        self.model[path] = data

    # -- the actions -----------------------------------------------------------------------
    def capture_draft(self, i: int, k: int, j: int, name: str, body: str) -> None:
        COUNTS["steps"] += 1
        try:
            capture(self.clones[i], type="project", name=name, body=body, description=name)
        except CuratorError:
            COUNTS["refused"] += 1  # the same name twice in one inbox

    def promote(self, i: int, k: int, j: int, name: str, body: str) -> None:
        def make(palace: Palace, token: str) -> object:
            drafts = palace.drafts
            if not drafts:
                return None
            return plan_promote(palace, drafts[k % len(drafts)].rel, confidence=0.8, reason=token)

        self.act(i, make)

    def reject(self, i: int, k: int, j: int, name: str, body: str) -> None:
        self.act(i, lambda palace, token: reject_nth(palace, k, token))

    def edit(self, i: int, k: int, j: int, name: str, body: str) -> None:
        def make(palace: Palace, token: str) -> object:
            if not palace.notes:
                return None
            note = palace.notes[k % len(palace.notes)]
            new = (note.text[: note.header_end] + f"{body}{token}\n").encode()
            return plan_edit(palace, note.rel, new, reason=token)

        self.act(i, make)

    def supersede(self, i: int, k: int, j: int, name: str, body: str) -> None:
        def make(palace: Palace, token: str) -> object:
            notes = palace.notes
            if len(notes) < 2:
                return None
            old, new = notes[k % len(notes)], notes[j % len(notes)]
            return plan_supersede(palace, old.rel, new.rel, reason=token)

        self.act(i, make)

    def merge(self, i: int, k: int, j: int, name: str, body: str) -> None:
        def make(palace: Palace, token: str) -> object:
            notes = palace.notes
            if len(notes) < 2:
                return None
            refs = [notes[k % len(notes)].rel, notes[j % len(notes)].rel]
            return plan_merge(palace, refs, f"{name} merged {token}", reason=token)

        self.act(i, make)

    def retire(self, i: int, k: int, j: int, name: str, body: str) -> None:
        def make(palace: Palace, token: str) -> object:
            notes = palace.notes
            return plan_retire(palace, notes[k % len(notes)].rel, token) if notes else None

        self.act(i, make)

    def undo_last(self, i: int, k: int, j: int, name: str, body: str) -> None:
        self.act(i, lambda palace, token: undo(palace.root, None, palace=palace, reason=token))

    def sync_clone(self, i: int, k: int, j: int, name: str, body: str) -> None:
        self.do_sync(i, [bool(k & 1), bool(k & 2), bool(j & 1), bool(j & 2)])

    OPS = (
        "capture_draft", "capture_draft", "promote", "promote", "reject", "edit", "edit",
        "supersede", "merge", "retire", "undo_last", "sync_clone", "sync_clone", "sync_clone",
    )  # fmt: skip

    @initialize()
    def seed(self) -> None:
        """Each clone starts with notes of its own (two of them share a name with another
        clone's, so the first sync meets a name taken), synced."""
        for i in range(3):
            for name in (NAMES[i], NAMES[i + 1]):
                self.capture_draft(i, 0, 0, name, BODIES[i])
                self.promote(i, 0, 0, name, "")
            self.do_sync(i, [i == 1])

    # one rule with the action drawn, so every run mixes all of them
    @rule(
        op=st.sampled_from(OPS),
        i=st.integers(0, 2),
        k=st.integers(0, 9),
        j=st.integers(0, 9),
        name=st.sampled_from(NAMES),
        body=st.sampled_from(BODIES),
    )
    def step(self, op: str, i: int, k: int, j: int, name: str, body: str) -> None:
        getattr(self, op)(i, k, j, name, body)

    @invariant()
    def clones_are_clean(self) -> None:
        for clone in self.clones:
            assert clean(clone)

    def teardown(self) -> None:
        try:
            self.sync_all()
            trees = set()
            for clone in self.clones:
                palace = Palace.open(clone)
                assert index_is_current(palace)
                errors = [f for f in run_checks(palace) if f.severity == "error"]
                assert not errors, [f.format() for f in errors]
                trees.add(git(clone, "ls-tree", "-r", "HEAD").stdout)
            assert len(trees) == 1
            seen = tokens_of(self.clones[0], one=False)
            COUNTS["lost"] += len(self.done - set(seen) - self.given_up)
            each_action_once(self.clones[0], self.accepted, self.done, self.given_up)
            notes = {
                rel: (self.clones[0] / rel).read_bytes()
                for rel in (n.rel for n in Palace.open(self.clones[0]).notes)
            }
            assert notes == self.model
        finally:
            shutil.rmtree(self.base, ignore_errors=True)
            counts_file = os.environ.get("CURATOR_SYNC_COUNTS")
            if counts_file:
                with open(counts_file, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(COUNTS) + "\n")


TestTeam = Team.TestCase
TestTeam.settings = settings(
    max_examples=int(os.environ.get("CURATOR_SYNC_EXAMPLES", "3")),
    stateful_step_count=int(os.environ.get("CURATOR_SYNC_STEPS", "40")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
