"""The audit: check every selected note's `verify` against the world and record what changed.

`run_audit` reads (it never writes); `plan_audit` turns a report into one writer Plan that
touches only the notes whose stale state changes (plus INDEX.md); `save_report` keeps the full
report under `.curator/audit/`. `audit_and_commit` does all three.

Each note gets exactly one result status:

- ``pass``: every path exists and the command (if any) exited 0 with the expected output;
- ``fail``: a path is missing, or the command failed, timed out or was killed: the note is stale;
- ``error``: the note's `verify` is malformed or escapes the scope root (never probed), or its
  program is not installed: reported, the note is not marked stale;
- ``skipped``: the policy refused the command ("skipped by policy"), nothing else failed;
- ``auditor-error``: the auditor itself failed (the scope root is missing, the sandbox could
  not start, an exception): counted separately, the note is left alone.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, Literal

from curator.audit.paths import PathCheck, check_path
from curator.audit.runner import KiB, MiB, RunLimits, RunResult, Sandbox, run_command
from curator.errors import CuratorError
from curator.model.note import DELETE, Note, edit_header
from curator.model.palace import STATE_DIR, Palace, ensure_state_dir
from curator.model.text import one_line

ResultStatus = Literal["pass", "fail", "error", "skipped", "auditor-error"]
ChangeKind = Literal["stale", "cleared"]
Progress = Callable[[int, int, str], None]

AUDIT_DIR = f"{STATE_DIR}/audit"
LATEST = "latest.json"
REPORT_VERSION = 1
#: command output kept in a saved report (the runner already capped and cleaned it)
REPORT_OUTPUT_CHARS = 4000
_VERIFY_KEYS = frozenset({"paths", "command", "expect"})


class AuditError(CuratorError):
    """The audit could not start: a bad note reference, a bad revision, no git."""


class _AuditorFailure(Exception):
    """A failure of the auditor (not of the note) while checking one note."""


# --- values ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CommandCheck:
    argv: list[str]
    status: str  # the runner's: pass fail skipped error timeout killed
    exit_code: int | None
    reason: str
    output: str
    truncated: bool
    duration: float

    @classmethod
    def of(cls, result: RunResult) -> CommandCheck:
        output = result.output
        if len(output) > REPORT_OUTPUT_CHARS:
            output = output[:REPORT_OUTPUT_CHARS]
        return cls(
            argv=list(result.argv),
            status=result.status,
            exit_code=result.exit_code,
            reason=result.reason,
            output=output,
            truncated=result.truncated or len(result.output) > REPORT_OUTPUT_CHARS,
            duration=round(result.duration, 4),
        )

    @property
    def contained(self) -> str:
        """What the auditor did with the command: refused, killed, or ran (contained)."""
        if self.status == "skipped":
            return "refused"
        if self.status in ("timeout", "killed"):
            return "killed"
        if self.status == "error":
            return "not run"
        return "ran"


@dataclass(frozen=True)
class NoteResult:
    path: str
    name: str
    scope: str
    status: ResultStatus
    reason: str
    paths: list[PathCheck] = field(default_factory=list)
    command: CommandCheck | None = None
    duration: float = 0.0

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        if self.command is not None:
            data["command"]["contained"] = self.command.contained
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> NoteResult:
        cmd = data.get("command")
        if cmd is not None:
            cmd = CommandCheck(**{k: v for k, v in cmd.items() if k != "contained"})
        return cls(
            path=data["path"],
            name=data.get("name", ""),
            scope=data.get("scope", ""),
            status=data["status"],
            reason=data.get("reason", ""),
            paths=[PathCheck(**p) for p in data.get("paths", [])],
            command=cmd,
            duration=data.get("duration", 0.0),
        )


@dataclass(frozen=True)
class StaleChange:
    """A note whose stale state the run changes: newly (or differently) stale, or cleared."""

    path: str
    kind: ChangeKind
    reason: str
    since: str


@dataclass
class AuditReport:
    run_id: str
    started: str  # ISO timestamp (UTC)
    today: str
    palace: str
    selection: str  # "all", "notes", "changed-since REV"
    results: list[NoteResult] = field(default_factory=list)
    changes: list[StaleChange] = field(default_factory=list)
    duration: float = 0.0
    commit: str | None = None
    commit_error: str | None = None
    dry_run: bool = False

    @property
    def counts(self) -> dict[str, int]:
        out = {s: 0 for s in ("pass", "fail", "error", "skipped", "auditor-error")}
        for r in self.results:
            out[r.status] += 1
        out["selected"] = len(self.results)
        out["checked"] = out["pass"] + out["fail"]
        out["stale"] = sum(1 for c in self.changes if c.kind == "stale")
        out["cleared"] = sum(1 for c in self.changes if c.kind == "cleared")
        return out

    @property
    def checked_nothing(self) -> bool:
        return self.counts["checked"] == 0

    def summary(self) -> str:
        c = self.counts
        if not c["selected"]:
            return "checked nothing: no active note with verify was selected"
        parts = [f"{c['checked']} of {c['selected']} checked"]
        parts.append(f"{c['pass']} passed, {c['fail']} failed")
        for key, label in (
            ("skipped", "skipped by policy"),
            ("error", "verify errors"),
            ("auditor-error", "auditor failures"),
        ):
            if c[key]:
                parts.append(f"{c[key]} {label}")
        parts.append(f"{c['stale']} newly stale, {c['cleared']} cleared")
        text = "; ".join(parts)
        if not c["checked"]:
            text = "checked nothing: " + text
        return text

    def exit_code(self) -> int:
        """0: completed, nothing failing; 1: notes failed or have verify errors;
        2: nothing was checked, or the auditor itself failed, or the commit failed."""
        c = self.counts
        if c["checked"] == 0 or c["auditor-error"] or self.commit_error:
            return 2
        if c["fail"] or c["error"]:
            return 1
        return 0

    def to_json(self) -> dict[str, Any]:
        return {
            "version": REPORT_VERSION,
            "run_id": self.run_id,
            "started": self.started,
            "today": self.today,
            "palace": self.palace,
            "selection": self.selection,
            "duration": round(self.duration, 4),
            "counts": self.counts,
            "summary": self.summary(),
            "checked_nothing": self.checked_nothing,
            "commit": self.commit,
            "commit_error": self.commit_error,
            "dry_run": self.dry_run,
            "changes": [asdict(c) for c in self.changes],
            "results": [r.to_json() for r in self.results],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AuditReport:
        return cls(
            run_id=data["run_id"],
            started=data.get("started", ""),
            today=data.get("today", ""),
            palace=data.get("palace", ""),
            selection=data.get("selection", ""),
            results=[NoteResult.from_json(r) for r in data.get("results", [])],
            changes=[StaleChange(**c) for c in data.get("changes", [])],
            duration=data.get("duration", 0.0),
            commit=data.get("commit"),
            commit_error=data.get("commit_error"),
            dry_run=data.get("dry_run", False),
        )


# --- selection ---------------------------------------------------------------------------------


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


# --- checking one note -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Context:
    palace: Palace
    default_root: Path
    allow: tuple[str, ...]
    limits: RunLimits
    sandbox: Sandbox


def default_scope_root(palace: Palace) -> Path:
    """The git work tree around the palace, or the palace itself when it is not in git."""
    from curator.writer.git import run_git

    try:
        proc = run_git(palace.root, ["rev-parse", "--show-toplevel"], check=False)
    except OSError:
        return Path(os.path.realpath(palace.root))
    top = proc.stdout.decode("utf-8", "surrogateescape").strip()
    if proc.returncode == 0 and top:
        return Path(os.path.realpath(top))
    return Path(os.path.realpath(palace.root))


def _scope_root(ctx: _Context, note: Note) -> str:
    configured = ctx.palace.config.scope_root(note.scope)
    root = os.path.realpath(configured if configured is not None else ctx.default_root)
    if not os.path.isdir(root):
        raise _AuditorFailure(f"the root of scope {note.scope!r} is not a folder: {root}")
    if not os.access(root, os.R_OK | os.X_OK):
        raise _AuditorFailure(f"the root of scope {note.scope!r} cannot be read: {root}")
    return root


def _verify_spec(note: Note) -> tuple[list[str], list[str] | None, str | None] | str:
    """(paths, command, expect), or a sentence saying why `verify` is malformed."""
    value = note.header.get("verify")
    if not isinstance(value, dict):
        return "verify must be a mapping (paths, command, expect)"
    unknown = sorted(str(k) for k in value if k not in _VERIFY_KEYS)
    if unknown:
        return f"unknown verify keys: {', '.join(unknown)}"
    raw_paths = value.get("paths", [])
    if isinstance(raw_paths, str):
        raw_paths = [raw_paths]
    if not isinstance(raw_paths, list) or not all(isinstance(p, str) for p in raw_paths):
        return "verify.paths must be a list of paths or globs"
    command = value.get("command")
    if command is not None and (
        not isinstance(command, list) or not command or not all(isinstance(a, str) for a in command)
    ):
        return "verify.command must be a list of strings such as [git, ls-files, src/app.py]"
    expect = value.get("expect")
    if expect is not None and not isinstance(expect, str):
        return "verify.expect must be text"
    if expect is not None and command is None:
        return "verify.expect needs a verify.command"
    if not raw_paths and command is None:
        return "verify has neither paths nor a command"
    return list(raw_paths), command, expect


def check_note(ctx: _Context, note: Note) -> NoteResult:
    """One note's result; an exception in here is the auditor's failure, not the note's."""
    start = time.monotonic()

    def result(
        status: ResultStatus, reason: str, paths: list[PathCheck], cmd: CommandCheck | None = None
    ) -> NoteResult:
        # the reason may quote note text or command output: one clean line, so the header
        # it lands in (stale.reason), the report and the terminal all get the same safe text
        return NoteResult(
            note.rel, note.name, note.scope, status, one_line(reason, 300), paths, cmd,
            round(time.monotonic() - start, 4),
        )  # fmt: skip

    try:
        spec = _verify_spec(note)
        if isinstance(spec, str):
            return result("error", spec, [])
        patterns, command, expect = spec
        root = _scope_root(ctx, note)
        checks = [check_path(p, root) for p in patterns]
        bad = [c for c in checks if c.status in ("escapes", "invalid")]
        if bad:
            return result("error", f"{bad[0].pattern}: {bad[0].detail}", checks)
        missing = [c.pattern for c in checks if c.status == "missing"]
        cmd: CommandCheck | None = None
        if command is not None:
            run = run_command(
                command, root, allow=ctx.allow, limits=ctx.limits, expect=expect,
                sandbox=ctx.sandbox, root=root,
            )  # fmt: skip
            cmd = CommandCheck.of(run)
        if missing:
            reason = "missing: " + ", ".join(missing)
            if cmd is not None and cmd.status != "pass":
                reason += f"; command {cmd.reason}"
            return result("fail", reason, checks, cmd)
        if cmd is None or cmd.status == "pass":
            return result("pass", "ok", checks, cmd)
        if cmd.status == "skipped":
            return result("skipped", cmd.reason, checks, cmd)
        if cmd.status == "error":
            if cmd.reason.startswith(("sandbox failed", "could not start")):
                return result("auditor-error", f"auditor failed: {cmd.reason}", checks, cmd)
            return result("error", f"command {cmd.reason}", checks, cmd)
        return result("fail", f"command {cmd.reason}", checks, cmd)
    except _AuditorFailure as exc:
        return result("auditor-error", f"auditor failed: {exc}", [])
    except Exception as exc:  # the auditor's own bug or environment: counted, never "a fail"
        return result("auditor-error", f"auditor failed: {type(exc).__name__}: {exc}", [])


# --- the run -----------------------------------------------------------------------------------


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
    ctx = _Context(
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
    workers = max(1, min(64, jobs or palace.config.audit.jobs))
    total = len(notes)
    results: list[NoteResult] = []
    if notes:
        done = 0

        def one(note: Note) -> NoteResult:
            res = check_note(ctx, note)
            return res

        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="audit") as pool:
            for res in pool.map(one, notes):
                results.append(res)
                done += 1
                if progress is not None:
                    with contextlib.suppress(Exception):
                        progress(done, total, res.path)
    report.results = sorted(results, key=lambda r: r.path)
    report.changes = stale_changes(palace, report.results, today)
    report.duration = time.monotonic() - start
    return report


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


# --- writing -----------------------------------------------------------------------------------


def plan_audit(palace: Palace, report: AuditReport, today: date | None = None) -> Any | None:
    """ONE writer Plan (action "audit") for the notes whose stale state changes, with INDEX.md.

    None when nothing changes: an audit that found nothing new makes no commit.
    """
    from curator.writer.plan import Plan, Write
    from curator.writer.planners import with_index

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


def commit_plan(root: Path, plan: Any, palace: Palace | None = None) -> str:
    """Apply through the curation writer (one commit, search index in step); the commit sha."""
    from curator.writer.session import commit

    return commit(root, plan, palace=palace).sha


def save_report(palace: Palace, report: AuditReport) -> Path:
    """Write `.curator/audit/<run id>.json` and `latest.json` (each atomically)."""
    from curator.writer.apply import atomic_write

    ensure_state_dir(palace.root)
    folder = palace.root / AUDIT_DIR
    folder.mkdir(parents=True, exist_ok=True)
    data = (json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    path = folder / f"{report.run_id}.json"
    atomic_write(path, data)
    atomic_write(folder / LATEST, data)
    return path


def load_latest(root: Path) -> AuditReport | None:
    """The latest saved report, or None when no audit has run here."""
    path = Path(root) / AUDIT_DIR / LATEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise AuditError(f"cannot read the latest audit report: {exc}", path=str(path)) from None
    try:
        return AuditReport.from_json(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise AuditError(f"the latest audit report is damaged: {exc}", path=str(path)) from None


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
) -> tuple[AuditReport, Any | None]:
    """Run, commit the stale changes (one commit, or none), save the report. (report, plan)

    With `dry_run` nothing is written: no commit and no saved report. A failed commit is
    recorded in the report (`commit_error`) and the report is still saved.
    """
    from curator.writer.plan import WriterError

    report = run_audit(
        palace, refs, changed_since=changed_since, jobs=jobs, today=today,
        progress=progress, sandbox=sandbox,
    )  # fmt: skip
    plan = plan_audit(palace, report, today)
    if dry_run:
        report.dry_run = True
        return report, plan
    if plan is not None:
        try:
            report.commit = commit_plan(palace.root, plan, palace)
        except (WriterError, CuratorError) as exc:
            report.commit_error = str(exc)
    save_report(palace, report)
    return report, plan
