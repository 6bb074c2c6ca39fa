"""`curator init`: a new palace as one commit (git init first when there is no repository)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

from curator.config import CONFIG_NAME, TAXONOMIES, default_config, render_config
from curator.errors import CuratorError
from curator.model.index_md import render_index
from curator.model.palace import INBOX_DIR, INDEX_NAME, NOTES_DIR, Palace, ensure_state_dir
from curator.writer.apply import apply_plan
from curator.writer.git import git_env
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
    applied = apply_plan(root, plan)
    return InitResult(root, applied.sha, kept)
