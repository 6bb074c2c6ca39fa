"""`curator check` across the wings: the palace's own lint rules (curator.model.check) plus
what other wings know about the palace's health (the audit's sandbox, agents' context files).

The CLI's `check` and the app both call `palace_findings`, so they report the same things.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from curator.model.finding import Finding
from curator.model.palace import Palace

if TYPE_CHECKING:
    from curator.writer.git import Repo


def palace_findings(palace: Palace, today: date | None = None) -> list[Finding]:
    from curator.agents.context import context_findings
    from curator.model.check import run_checks

    findings = run_checks(palace, today)
    findings += audit_findings(palace)
    findings += context_findings(palace.root, palace.config)
    findings += tracked_local_only(palace)
    findings += inbox_findings(palace)
    return sorted(findings)


def tracked_local_only(palace: Palace) -> list[Finding]:
    """An error for each file git tracks under .curator/ or the inbox: machine state and drafts
    are never shared through the branch (a sync refuses a remote commit that adds one)."""
    from curator.errors import WriterError
    from curator.writer.git import discover
    from curator.writer.sync import local_only

    try:
        repo = discover(palace.root)
        listed = repo.git("ls-files", "-z", "--", *(repo.to_repo(p) for p in local_only(repo)))
    except (WriterError, OSError):
        return []  # not a git repository: nothing is shared
    out = []
    for name in filter(None, listed.stdout.decode("utf-8", "surrogateescape").split("\0")):
        rel = repo.to_palace(name) or name
        message = (
            "tracked by git: machine state and drafts are never shared through the branch "
            "(a teammate's sync refuses it); untrack it with `git rm --cached`"
        )
        out.append(Finding(rel, 0, "error", "git.local-only-tracked", message))
    return out


def audit_findings(palace: Palace) -> list[Finding]:
    """A warning, once, when notes have verify commands and the audit would run them without
    the bubblewrap sandbox."""
    from curator.audit.sandbox import notice
    from curator.audit.select import has_command

    has_commands = any(has_command(n) for n in palace.notes)
    message = notice(palace.config.audit.sandbox) if has_commands else None
    if message is None:
        return []
    return [Finding("palace.toml", 0, "warning", "audit-unsandboxed", message)]


def inbox_findings(palace: Palace) -> list[Finding]:
    """What a git repository says of the drafts folder: a warning when .gitignore does not
    ignore it (drafts may hold secrets, and `git add -A` would commit them; init and adopt
    add it in every layout), and one for each earlier drafts folder palace.toml named (in
    its committed versions) that still holds drafts git does not track: after
    `[palace] inbox` changes, the Inbox, capture and agents read only the new folder."""
    from curator.errors import WriterError
    from curator.writer.git import discover

    try:
        repo = discover(palace.root)
        inbox = palace.config.inbox
        ignored = repo.git(  # a path, not a pathspec: check-ignore refuses literal magic
            "check-ignore", "--no-index", "-q", repo.to_repo(f"{inbox}/draft.md"),
            check=False, env={"GIT_LITERAL_PATHSPECS": "0"},
        )  # fmt: skip
        out = []
        if ignored.returncode == 1:
            message = (
                f"the drafts folder {inbox}/ is not git-ignored: drafts are unreviewed and may "
                f"hold secrets, and `git add -A` would commit them; add the line /{inbox}/ to "
                ".gitignore"
            )
            out.append(Finding(".gitignore", 0, "warning", "inbox.not-ignored", message))
        for folder in sorted(_former_inboxes(repo, palace.root) - {inbox.casefold()}):
            left = _untracked_drafts(repo, palace.root, folder)
            if not left:
                continue
            where = left[0].split("/")[0]
            message = (
                f"{len(left)} draft(s) left in {where}/, the drafts folder before palace.toml "
                f"named {inbox}/: the Inbox, capture and agents no longer see them; move them "
                f"into {inbox}/ (mv {where}/*.md {inbox}/)"
            )
            out.append(Finding(f"{where}/", 0, "warning", "inbox.left-behind", message))
        return out
    except (WriterError, OSError):
        return []  # not a git repository: nothing is committed, and no history to read


def _former_inboxes(repo: Repo, root: Path) -> set[str]:
    """The drafts folders (case-folded) that committed versions of palace.toml named, read
    as curator reads palace.toml (a version it cannot read names none)."""
    from curator import CONFIG_NAME
    from curator.config import config_text
    from curator.errors import ConfigError
    from curator.writer.git import read_blobs

    path = repo.to_repo(CONFIG_NAME)
    log = repo.git("log", "--format=%H", "-n", "200", "--", path, check=False)
    revs = log.stdout.decode().split() if log.returncode == 0 else []
    names: set[str] = set()
    for data in read_blobs(repo, [f"{rev}:{path}" for rev in revs]).values():
        try:
            names.add(config_text(root, data.decode("utf-8"), root / CONFIG_NAME).inbox.casefold())
        except (UnicodeDecodeError, ConfigError):
            continue
    return names


def _untracked_drafts(repo: Repo, root: Path, folder: str) -> list[str]:
    """The drafts git does not track in the palace's root folder named `folder` (case-folded),
    as palace paths."""
    import os

    entry = next((e for e in os.scandir(root) if e.name.casefold() == folder and e.is_dir()), None)
    if entry is None or entry.is_symlink():
        return []
    found = [
        Path(where, name).relative_to(root).as_posix()
        for where, _, names in os.walk(entry.path)
        for name in names
        if name.endswith(".md")
    ]
    if not found:
        return []
    listed = repo.git("ls-files", "-z", "--", repo.to_repo(f"{entry.name}/"))
    text = listed.stdout.decode("utf-8", "surrogateescape")
    tracked = {repo.to_palace(name) for name in text.split("\0")}
    return sorted(rel for rel in found if rel not in tracked and _is_draft(root, rel))


def _is_draft(root: Path, rel: str) -> bool:
    """Whether the file is a draft as capture writes one (`status: draft` in its header)."""
    from curator.model.note import parse_note

    try:
        data = (root / rel).read_bytes()
    except OSError:
        return False
    return parse_note(rel, data, "draft").header.get("status") == "draft"
