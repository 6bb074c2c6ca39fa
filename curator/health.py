"""`curator check` across the wings: the palace's own lint rules (curator.model.check) plus
what other wings know about the palace's health (the audit's sandbox, agents' context files).

The CLI's `check` and the app both call `palace_findings`, so they report the same things.
"""

from __future__ import annotations

from datetime import date

from curator.model.finding import Finding
from curator.model.palace import Palace


def palace_findings(palace: Palace, today: date | None = None) -> list[Finding]:
    from curator.agents.context import context_findings
    from curator.model.check import run_checks

    findings = run_checks(palace, today)
    findings += audit_findings(palace)
    findings += context_findings(palace.root, palace.config)
    findings += tracked_local_only(palace)
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
