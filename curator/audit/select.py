"""Which notes an audit checks: active notes with `verify`, never drafts; optionally only
those changed since a git revision."""

from __future__ import annotations

from collections.abc import Sequence

from curator.audit.report import AuditError
from curator.model.note import Note
from curator.model.palace import Palace


def has_command(note: Note) -> bool:
    """Whether the note's `verify` names a command (run by the contained runner)."""
    verify = note.header.get("verify")
    return isinstance(verify, dict) and "command" in verify


def _auditable(note: Note) -> bool:
    return note.kind == "note" and note.ok and not note.superseded and "verify" in note.header


def select_notes(
    palace: Palace, refs: Sequence[str] | None = None, *, changed_since: str | None = None
) -> list[Note]:
    """Active notes with `verify` (never drafts); a ref naming anything else is an AuditError."""
    if refs:
        chosen: dict[str, Note] = {}
        for ref in refs:
            exact = palace.by_rel.get(ref)  # a palace-relative path: no lookup needed
            note = exact if exact is not None else palace.find(ref)
            if note.kind == "draft":
                raise AuditError(
                    f"{note.rel} is an inbox draft; drafts are never audited (promote it first)"
                )
            if not note.ok:
                raise AuditError(f"{note.rel}: its header does not parse; run 'curator check'")
            if note.superseded:
                raise AuditError(f"{note.rel} is {note.status}; only active notes are audited")
            if "verify" not in note.header:
                raise AuditError(f"{note.rel} has no verify header; there is nothing to check")
            chosen[note.rel] = note
        notes = list(chosen.values())
    else:
        notes = [n for n in palace.notes if _auditable(n)]
    if changed_since is not None:
        changed = changed_paths(palace, changed_since)
        notes = [n for n in notes if n.rel in changed]
    return sorted(notes, key=lambda n: n.rel)


def changed_paths(palace: Palace, rev: str) -> set[str]:
    """Palace-relative paths changed between `rev` and the working tree (user input `rev`)."""
    from curator.writer.git import GitError, run_git

    if not isinstance(rev, str) or not rev or "\0" in rev or rev.startswith("-"):
        raise AuditError(f"--changed-since needs a git revision, not {rev!r}")
    proc = run_git(
        palace.root,
        ["rev-parse", "--verify", "-q", "--end-of-options", f"{rev}^{{commit}}"],
        check=False,
    )
    sha = proc.stdout.decode("ascii", "replace").strip()
    if proc.returncode != 0 or not sha:
        raise AuditError(f"--changed-since: {rev!r} is not a commit in this repository")
    try:
        proc = run_git(
            palace.root,
            ["diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", "--no-textconv",
             "--relative", sha, "--", "."],
        )  # fmt: skip
    except GitError as exc:
        raise AuditError(f"--changed-since: {exc}") from None
    names = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
    return {n for n in names if n}
