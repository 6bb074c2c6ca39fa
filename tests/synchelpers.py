"""A team on one machine: a bare repository as the remote and clones of it, each with its own
reviewer (git identity). Real git, no network."""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from hypothesis.stateful import RuleBasedStateMachine
from palacehelpers import git

from curator.model.palace import Palace
from curator.writer.actions.edit import plan_edit
from curator.writer.actions.promote import plan_promote
from curator.writer.actions.reject import plan_reject
from curator.writer.capture import capture
from curator.writer.init import init_palace
from curator.writer.plan import Plan
from curator.writer.session import commit
from curator.writer.sync import Conflict, Resolution, SyncConflictError, SyncResult, sync


def make_team(base: Path, clones: int = 3, embedder: str = "") -> tuple[Path, list[Path]]:
    """(the bare remote, the clones), every clone at the remote's first commit (`curator
    init`; with `embedder`, palace.toml names that embedder)."""
    seed = base / "seed"
    init_palace(seed, name="team palace")
    git(seed, "branch", "-M", "main")  # whatever init.defaultBranch says
    if embedder:
        toml = seed / "palace.toml"
        text = toml.read_text(encoding="utf-8")
        toml.write_text(text.replace('embedder = "wordllama"', f'embedder = "{embedder}"'))
        git(seed, "commit", "-q", "-am", "palace.toml for the test")
    remote = base / "remote.git"
    git(base, "clone", "-q", "--bare", str(seed), str(remote))
    out = []
    for i in range(clones):
        clone = base / f"clone{i}"
        git(base, "clone", "-q", str(remote), str(clone))
        git(clone, "config", "user.name", f"reviewer{i}")
        git(clone, "config", "user.email", f"reviewer{i}@host{i}")
        out.append(clone)  # exactly as git clone leaves it: no inbox/ (git keeps no empty folder)
    return remote, out


def share_inbox(clones: list[Path]) -> None:
    """Turn on `[team] share_inbox` (the first clone commits it), then sync every clone."""
    from curator.writer.sync import sync

    toml = clones[0] / "palace.toml"
    text = toml.read_text(encoding="utf-8")
    assert "share_inbox = false" in text  # init writes every table with its defaults
    toml.write_text(text.replace("share_inbox = false", "share_inbox = true"), encoding="utf-8")
    git(clones[0], "commit", "-q", "-am", "share the inbox")
    for clone in clones:
        sync(clone)


def promote_new(root: Path, name: str, body: str = "Body.\n", type: str = "project") -> str:
    """Capture a draft and promote it; the new note's path."""
    draft = capture(root, type=type, name=name, body=body, description=f"About {name}.")
    palace = Palace.open(root)
    plan = plan_promote(palace, draft.path, confidence=0.8)
    commit(root, plan, palace=palace)
    return next(p for p in plan.paths() if p.startswith("notes/"))


def edit_body(root: Path, rel: str, body: str) -> str:
    """Replace a note's body (header kept) as one edit; the commit."""
    palace = Palace.open(root)
    note = palace.by_rel[rel]
    new = (note.text[: note.header_end] + body).encode()
    return commit(root, plan_edit(palace, rel, new, reason="edit"), palace=palace).sha


def edited_on_both(a: Path, b: Path) -> str:
    """A note promoted by a, then edited by a (synced) and by b (not synced): its path."""
    from curator.writer.sync import sync

    rel = promote_new(a, "Shared fact")
    sync(a)
    sync(b)
    edit_body(a, rel, "Alpha's text.\n")
    sync(a)
    edit_body(b, rel, "Beta's text.\n")
    return rel


def tree(repo: Path, rev: str = "HEAD") -> dict[str, str]:
    """{path: blob id} of a commit's tree."""
    out = git(repo, "ls-tree", "-r", rev).stdout
    return {line.split("\t", 1)[1]: line.split()[2] for line in out.splitlines()}


def remote_head(remote: Path) -> str:
    return git(remote, "rev-parse", "main").stdout.strip()


def head(clone: Path) -> str:
    return git(clone, "rev-parse", "HEAD").stdout.strip()


def clean(clone: Path) -> bool:
    """No tracked file differs from HEAD."""
    proc = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=clone, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return proc.stdout == ""


# -- generated team workloads (test_sync_workload.py, test_sync_stateful.py) -------------------
TOKEN = re.compile(r"\bop-\d+\b")  # each action's reason holds its own token


def tokens_of(root: Path, rev: str = "HEAD", *, one: bool = True) -> list[str]:
    """The action tokens in the Curator-Reason of commit `rev` (`one`), or of its history."""
    limit = ["-1"] if one else []
    body = git(root, "log", *limit, "--format=%(trailers:key=Curator-Reason)", rev).stdout
    return TOKEN.findall(body)


def each_action_once(root: Path, accepted: list[str], done: set[str], given_up: set[str]) -> None:
    """`root`'s history holds each action a sync pushed exactly once, and every action done
    that a reviewer did not give up in a conflict."""
    seen = tokens_of(root, one=False)
    assert sorted(seen) == sorted(accepted)
    assert len(seen) == len(set(seen))  # each action once
    lost = done - set(seen) - given_up
    assert not lost, sorted(lost)
    assert not (set(seen) & given_up)


class TeamMachine(RuleBasedStateMachine):
    """A bare remote and three clones in a temporary folder, and the ledger of the actions
    done: each action's token, the ones a sync pushed, the ones a reviewer gave up."""

    def __init__(self) -> None:
        super().__init__()
        self.base = Path(tempfile.mkdtemp(prefix="curator-team-"))
        self.remote, self.clones = make_team(self.base)
        self.counter = 0
        self.done: set[str] = set()  # committed by a clone
        self.accepted: list[str] = []  # in the remote's history, in push order
        self.given_up: set[str] = set()

    def token(self, prefix: str = "op") -> str:
        self.counter += 1
        return f"{prefix}-{self.counter}"

    def do_sync(self, i: int, choices: list[bool]) -> None:
        raise NotImplementedError  # each machine settles conflicts its own way

    def synced(self, i: int, settle: Callable[[Conflict], Resolution]) -> SyncResult:
        """Sync clone `i`, each conflict settled by `settle`, until it goes through; the
        actions it pushed go into the ledger, and those a reviewer gave up."""
        root = self.clones[i]
        resolutions: dict[str, Resolution] = {}
        for _round in range(20):
            try:
                result = sync(root, resolutions=resolutions)
            except SyncConflictError as exc:
                resolutions.update((c.path, settle(c)) for c in exc.plan.conflicts)
                continue
            for dropped in result.plan.dropped:
                self.given_up |= set(tokens_of(root, dropped.sha))
            for made in result.plan.outgoing if result.pushed else ():
                self.accepted += tokens_of(root, made.sha)
            return result
        raise AssertionError("a sync did not settle in 20 rounds")

    def sync_all(self) -> None:
        """Every clone synced twice round: each ends at the remote's tip, clean."""
        for _round in range(2):
            for i in range(len(self.clones)):
                self.do_sync(i, [])
        tip = remote_head(self.remote)
        for clone in self.clones:
            assert head(clone) == tip and clean(clone)


def reject_nth(palace: Palace, k: int, reason: str) -> Plan | None:
    """The reject of the palace's k-th draft (modulo how many there are); None with none."""
    drafts = palace.drafts
    return plan_reject(palace, drafts[k % len(drafts)].rel, reason) if drafts else None
