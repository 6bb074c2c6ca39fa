"""A team on one machine: a bare repository as the remote and clones of it, each with its own
reviewer (git identity). Real git, no network."""

from __future__ import annotations

import subprocess
from pathlib import Path

from palacehelpers import git

from curator.model.palace import Palace
from curator.writer.actions.edit import plan_edit
from curator.writer.actions.promote import plan_promote
from curator.writer.capture import capture
from curator.writer.init import init_palace
from curator.writer.session import commit


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
