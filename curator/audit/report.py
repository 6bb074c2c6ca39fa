"""The audit's values: one result per note, the stale changes a run makes, and the report
kept under `.curator/audit/` (`save_report`, `load_latest`).

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

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from curator.audit.paths import PathCheck
from curator.audit.runner import RunResult
from curator.errors import CuratorError
from curator.model.palace import STATE_DIR, Palace, ensure_state_dir

ResultStatus = Literal["pass", "fail", "error", "skipped", "auditor-error"]
ChangeKind = Literal["stale", "cleared"]

AUDIT_DIR = f"{STATE_DIR}/audit"
LATEST = "latest.json"
REPORT_VERSION = 1
#: command output kept in a saved report (the runner already capped and cleaned it)
REPORT_OUTPUT_CHARS = 4000


class AuditError(CuratorError):
    """The audit could not start: a bad note reference, a bad revision, no git."""


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
    #: one sentence when commands ran (or would run) without the bubblewrap sandbox
    sandbox_notice: str | None = None

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
        if self.sandbox_notice:
            text += f" (note: {self.sandbox_notice})"
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
            "sandbox_notice": self.sandbox_notice,
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
            sandbox_notice=data.get("sandbox_notice"),
        )


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
