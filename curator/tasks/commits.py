"""How task changes reach git: through the writer, one curator commit per claim, release or
status change, with the saves made since riding along (palace.toml [tasks], see settings).

A revision is on disk before it is committed (the exclusive create is what decides who won),
so a commit that fails loses nothing: the revision stays, untracked, and the next commit of
that task takes it along. The outcome says so instead of raising.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from curator.model.discovery import state_folder
from curator.tasks.checkpoint import STATUSES
from curator.tasks.settings import TaskSettings
from curator.tasks.store import TASKS_DIR, TaskStore

IGNORE_ALL = "# palace.toml [tasks] tracked = false: task checkpoints stay out of git\n*\n"
# events that are one commit each (a change to any status is the event of its name); a plain
# save waits for the next of them
COMMITTED_EVENTS = ("new", "claim", "take-over", "release", *STATUSES)


@dataclass(frozen=True)
class Committed:
    sha: str | None = None
    warning: str | None = None


def should_commit(settings: TaskSettings, event: str, status_changed: bool) -> bool:
    if not settings.tracked:
        return False
    return event in COMMITTED_EVENTS or status_changed or settings.commit_saves


def keep_out_of_git(root: Path) -> None:
    """tracked = false: a tasks/.gitignore that ignores everything under tasks/."""
    folder = state_folder(Path(root), TASKS_DIR)
    folder.mkdir(exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text(IGNORE_ALL, encoding="utf-8")


def untracked(root: Path, slug: str) -> list[str]:
    """Palace-relative paths under tasks/<slug>/ that git does not know yet."""
    from curator.writer.git import discover

    repo = discover(root)
    proc = repo.git(
        "status",
        "--porcelain",
        "-z",
        "--untracked-files=all",
        "--",
        repo.to_repo(f"{TASKS_DIR}/{slug}"),
        env={"GIT_OPTIONAL_LOCKS": "0"},
    )
    out: list[str] = []
    for item in proc.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if item.startswith("?? ") and (rel := repo.to_palace(item[3:])) is not None:
            out.append(rel)
    return sorted(out)


def commit_task(
    store: TaskStore,
    slug: str,
    action: str,
    summary: str,
    *,
    extra: tuple[tuple[str, bytes, bytes | None], ...] = (),
) -> Committed:
    """Commit the task's new files (and `extra` (rel, new bytes, old bytes) writes the writer
    performs itself) as one curator commit `task-<action>`."""
    from curator.writer.plan import Plan, Write, WriterError, content_hash
    from curator.writer.session import commit

    root = store.root
    ignore = root / TASKS_DIR / ".gitignore"
    if ignore.is_file() and ignore.read_text(encoding="utf-8", errors="replace") == IGNORE_ALL:
        return Committed(
            warning=f"{TASKS_DIR}/.gitignore keeps tasks out of git (it was written "
            "for tracked = false); delete it to commit them"
        )
    try:
        extra_paths = {rel for rel, _, _ in extra}
        changes = [
            Write(rel, data, None if old is None else content_hash(old)) for rel, data, old in extra
        ]
        for rel in untracked(root, slug):
            if rel not in extra_paths and not rel.endswith("/.gitignore"):
                data = (root / rel).read_bytes()
                changes.append(Write(rel, data, content_hash(data)))
        if not changes:
            return Committed()
        plan = Plan(
            action=f"task-{action}",
            notes=(),
            reason="",
            summary=summary,
            changes=tuple(changes),
            trailers=(("Curator-Task", slug),),
            root=root,
        )
        applied = commit(root, plan)  # task files: no derived view reads them
    except (WriterError, OSError) as exc:
        return Committed(warning=f"not committed to git: {exc}")
    return Committed(sha=applied.sha)
