"""`curator init`: a new palace as one commit (git init first when there is no repository)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

from curator.config import CONFIG_NAME, TAXONOMIES, default_config, render_config
from curator.errors import CuratorError
from curator.fsutil import atomic_write
from curator.model.index_md import render_index
from curator.model.layouts import get_layout
from curator.model.layouts.adopt import AdoptPlan, plan_adopt
from curator.model.layouts.walk import outside
from curator.model.palace import INBOX_DIR, INDEX_NAME, NOTES_DIR, Palace, ensure_state_dir
from curator.writer.apply import apply_plan
from curator.writer.git import git_env, run_git
from curator.writer.plan import Plan, Write

GITIGNORE = (
    "# curator: drafts are unreviewed and may hold secrets; machine state is derived.\n"
    "inbox/\n.curator/\n"
)


@dataclass(frozen=True)
class InitResult:
    root: Path
    commit: str
    kept: tuple[str, ...] = ()  # files that existed and were left as they were
    unread: tuple[str, ...] = ()  # markdown files outside notes/: the palace will not read them


def init_palace(path: Path, *, taxonomy: str = "palace", name: str | None = None) -> InitResult:
    if taxonomy not in TAXONOMIES:
        raise CuratorError(f"unknown taxonomy {taxonomy!r} (known: {', '.join(TAXONOMIES)})")
    root = Path(path).resolve()
    if (root / CONFIG_NAME).exists():
        raise CuratorError(f"{root / CONFIG_NAME} already exists: this is a palace already")
    if (root / NOTES_DIR).is_dir() and any((root / NOTES_DIR).iterdir()):
        raise CuratorError(
            f"{root / NOTES_DIR} already holds files; refusing to initialise over them"
        )
    root.mkdir(parents=True, exist_ok=True)
    inside = subprocess.run(
        ["git", "rev-parse", "--is-inside-work-tree"], cwd=root, capture_output=True, env=git_env()
    )
    if inside.returncode != 0:
        subprocess.run(
            ["git", "init", "-q", "--", str(root)], check=True, capture_output=True, env=git_env()
        )
    (root / NOTES_DIR).mkdir(exist_ok=True)
    (root / INBOX_DIR).mkdir(exist_ok=True)
    ensure_state_dir(root)
    palace_name = name or root.name
    config = replace(default_config(root, taxonomy), name=palace_name)
    index = render_index(Palace(root, config, [], []), None)
    files = {
        CONFIG_NAME: render_config(palace_name, taxonomy),
        ".gitignore": GITIGNORE,
        f"{NOTES_DIR}/.gitkeep": "",
        INDEX_NAME: index,
    }
    existing_ignore = root / ".gitignore"
    if existing_ignore.exists():
        text = existing_ignore.read_text(encoding="utf-8")
        missing = [line for line in ("inbox/", ".curator/") if line not in text.splitlines()]
        files[".gitignore"] = (
            text
            + ("" if text.endswith("\n") or not text else "\n")
            + "".join(f"{m}\n" for m in missing)
        )
    # never overwrite a file init did not create (an INDEX.md of the user's own stays)
    kept = tuple(rel for rel in files if rel != ".gitignore" and (root / rel).exists())
    plan = Plan(
        action="init",
        notes=(),
        reason=f"New palace with the {taxonomy} taxonomy.",
        summary=palace_name,
        changes=tuple(
            Write.from_disk(root, rel, data.encode("utf-8"))
            for rel, data in files.items()
            if rel not in kept
        ),
        root=root,
    )
    unread = tuple(outside(root, get_layout("curator")))
    applied = apply_plan(root, plan)
    return InitResult(root, applied.sha, kept, unread)


@dataclass(frozen=True)
class AdoptResult:
    plan: AdoptPlan
    commit: str
    new_repository: bool
    untracked: tuple[str, ...] = ()  # notes git does not track yet: their changes have no before


def adopt_palace(path: Path, *, layout: str | None = None, name: str | None = None) -> AdoptResult:
    """Make a folder of memory a palace in place (`curator init --adopt`): palace.toml and the
    .gitignore lines, nothing else; no note is moved or rewritten. A folder that is no git
    repository becomes one, with everything in it as its first commit (so every later change
    has a before); in a repository only the two files are committed. (H-layouts, issue 12.)"""
    plan = plan_adopt(path, layout=layout, name=name)
    root = plan.root
    inside = subprocess.run(
        ["git", "rev-parse", "--is-inside-work-tree"], cwd=root, capture_output=True, env=git_env()
    )
    ensure_state_dir(root)
    if inside.returncode == 0:
        changes = tuple(
            Write.from_disk(root, rel, text.encode("utf-8")) for rel, text in plan.files.items()
        )
        summary = f"adopt as a {plan.layout} palace"
        applied = apply_plan(
            root, Plan(action="init", notes=(), reason=plan.reason, summary=summary,
                       changes=changes, root=root)
        )  # fmt: skip
        others = run_git(root, ["ls-files", "--others", "--exclude-standard", "-z"])
        names = others.stdout.decode("utf-8", "replace").split("\0")
        untracked = tuple(p for p in names if p.lower().endswith(".md"))
        return AdoptResult(plan, applied.sha, False, untracked)
    run_git(root, ["init", "-q"])
    for rel, text in plan.files.items():
        atomic_write(root / rel, text.encode("utf-8"))
    run_git(root, ["add", "-A"])
    message = f"curator: adopt this folder as a {plan.layout} palace\n\n{plan.reason}.\n"
    run_git(root, ["commit", "-q", "-m", message])
    sha = run_git(root, ["rev-parse", "HEAD"]).stdout.decode().strip()
    return AdoptResult(plan, sha, True)
