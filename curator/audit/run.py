"""An audit run: check the selected notes in parallel, say which notes' stale state changes,
and commit those changes as one writer Plan (`audit_and_commit` does it all)."""

from __future__ import annotations

import contextlib
import secrets
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator.audit.report import (
    AUDIT_DIR,
    AuditError,
    AuditReport,
    NoteResult,
    StaleChange,
    save_report,
)
from curator.audit.runner import KiB, MiB, RunLimits
from curator.audit.sandbox import notice
from curator.audit.select import has_command, select_notes
from curator.audit.verify import Context, check_note, default_scope_root
from curator.errors import CuratorError
from curator.model.note import DELETE, Note, edit_header
from curator.model.palace import Palace

if TYPE_CHECKING:
    from curator.writer.hooks import AfterCommit

Progress = Callable[[int, int, str], None]


def _run_id(now: datetime) -> str:
    return f"{now.strftime('%Y%m%dT%H%M%S')}-{now.microsecond:06d}Z-{secrets.token_hex(2)}"


def _limits(palace: Palace) -> RunLimits:
    s = palace.config.audit
    return RunLimits(
        wall_seconds=s.timeout,
        cpu_seconds=s.cpu_seconds,
        memory_bytes=s.memory_mb * MiB,
        output_bytes=s.output_kib * KiB,
    )


def run_audit(
    palace: Palace,
    refs: list[str] | None = None,
    *,
    changed_since: str | None = None,
    jobs: int | None = None,
    today: date | None = None,
    progress: Progress | None = None,
    sandbox: str | None = None,
) -> AuditReport:
    """Check the selected notes (in parallel) and say which notes' stale state changes.

    Reads only; raises AuditError for a bad reference or revision, NoteNotFound for an unknown
    note. `progress(done, total, rel)` is called from worker threads as notes finish.
    """
    today = today or date.today()
    now = datetime.now(UTC)
    start = time.monotonic()
    notes = select_notes(palace, refs, changed_since=changed_since)
    mode = sandbox if sandbox is not None else palace.config.audit.sandbox
    if mode not in ("auto", "bwrap", "none"):
        raise AuditError(f"sandbox must be auto, bwrap or none, not {mode!r}")
    ctx = Context(
        palace=palace,
        default_root=default_scope_root(palace),
        allow=tuple(palace.config.audit.allow),
        limits=_limits(palace),
        sandbox=mode,  # type: ignore[arg-type]
    )
    selection = "all"
    if refs:
        selection = "notes"
    if changed_since is not None:
        selection += f", changed since {changed_since}"
    report = AuditReport(
        run_id=_run_id(now),
        started=now.isoformat(timespec="seconds"),
        today=today.isoformat(),
        palace=str(palace.root),
        selection=selection,
    )
    if any(has_command(n) for n in notes):
        report.sandbox_notice = notice(mode)
    workers = max(1, min(64, jobs or palace.config.audit.jobs))
    results = _check_all(ctx, notes, workers, progress)
    report.results = sorted(results, key=lambda r: r.path)
    report.changes = stale_changes(palace, report.results, today)
    report.duration = time.monotonic() - start
    return report


def _check_all(
    ctx: Context, notes: list[Note], workers: int, progress: Progress | None
) -> list[NoteResult]:
    """Every note's result, checked in `workers` threads; `progress` hears of each one."""
    results: list[NoteResult] = []
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="audit") as pool:
        for res in pool.map(lambda note: check_note(ctx, note), notes):
            results.append(res)
            if progress is not None:
                with contextlib.suppress(Exception):
                    progress(len(results), len(notes), res.path)
    return results


def stale_changes(palace: Palace, results: Sequence[NoteResult], today: date) -> list[StaleChange]:
    """Only the notes whose stale state changes: nothing for an unchanged result."""
    out: list[StaleChange] = []
    for res in results:
        note = palace.by_rel.get(res.path)
        if note is None:
            continue
        current = note.stale
        if res.status == "fail":
            if current is not None and current["reason"] == res.reason:
                continue
            out.append(StaleChange(res.path, "stale", res.reason, today.isoformat()))
        elif res.status == "pass" and ("stale" in note.header):
            out.append(StaleChange(res.path, "cleared", "", today.isoformat()))
    return out


def plan_audit(palace: Palace, report: AuditReport, today: date | None = None) -> Any | None:
    """ONE writer Plan (action "audit") for the notes whose stale state changes, with INDEX.md.

    None when nothing changes: an audit that found nothing new makes no commit.
    """
    from curator.writer.actions.common import with_index
    from curator.writer.plan import Plan, Write

    if not report.changes:
        return None
    today = today or date.fromisoformat(report.today)
    writes: list[Any] = []
    for change in report.changes:
        note = palace.by_rel[change.path]
        if change.kind == "stale":
            data = edit_header(note, {"stale": {"reason": change.reason, "since": change.since}})
        else:
            data = edit_header(note, {"stale": DELETE, "verified": today.isoformat()})
        writes.append(Write.from_disk(palace.root, note.rel, data))
    changes = with_index(palace, writes, today)
    c = report.counts
    summary = f"{c['stale']} stale, {c['cleared']} cleared of {c['checked']} checked"
    lines = [f"Audit run {report.run_id} ({report.selection}): {report.summary()}.", ""]
    for change in report.changes:
        if change.kind == "stale":
            lines.append(f"- {change.path}: stale: {change.reason}")
        else:
            lines.append(f"- {change.path}: verified again, stale cleared")
    lines.append("")
    lines.append(f"Full report: {AUDIT_DIR}/{report.run_id}.json")
    return Plan(
        action="audit",
        notes=tuple(c.path for c in report.changes),
        reason="\n".join(lines),
        summary=summary,
        changes=tuple(changes),
        trailers=(("Curator-Audit", report.run_id),),
        root=palace.root,
    )


def commit_plan(
    root: Path, plan: Any, palace: Palace | None = None, after_commit: Sequence[AfterCommit] = ()
) -> str:
    """Apply through the curation writer (one commit; `after_commit`: the caller's session
    keeping its search index in step); the commit sha."""
    from curator.writer.session import commit

    return commit(root, plan, palace=palace, after_commit=after_commit).sha


def audit_and_commit(
    palace: Palace,
    refs: list[str] | None = None,
    *,
    changed_since: str | None = None,
    jobs: int | None = None,
    today: date | None = None,
    progress: Progress | None = None,
    sandbox: str | None = None,
    dry_run: bool = False,
    after_commit: Sequence[AfterCommit] = (),
) -> tuple[AuditReport, Any | None]:
    """Run, commit the stale changes (one commit, or none), save the report. (report, plan)

    With `dry_run` nothing is written: no commit and no saved report. A failed commit is
    recorded in the report (`commit_error`) and the report is still saved.
    """
    report = run_audit(
        palace, refs, changed_since=changed_since, jobs=jobs, today=today,
        progress=progress, sandbox=sandbox,
    )  # fmt: skip
    plan = plan_audit(palace, report, today)
    if dry_run:
        report.dry_run = True
        return report, plan
    commit_audit(palace, report, plan, after_commit)
    return report, plan


def commit_audit(
    palace: Palace,
    report: AuditReport,
    plan: Any | None,
    after_commit: Sequence[AfterCommit] = (),
) -> None:
    """Commit the run's stale changes (one commit, or none) and save the report.

    A failed commit is recorded in the report (`commit_error`) and the report is still saved.
    """
    from curator.writer.plan import WriterError

    if plan is not None:
        try:
            report.commit = commit_plan(palace.root, plan, palace, after_commit)
        except (WriterError, CuratorError) as exc:
            report.commit_error = str(exc)
    save_report(palace, report)
