"""Check one note's `verify` against the world: its paths inside the scope root, and its
command through the contained runner."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from curator.audit.paths import PathCheck, check_path
from curator.audit.report import CommandCheck, NoteResult, ResultStatus
from curator.audit.runner import RunLimits, Sandbox, run_command
from curator.model.note import Note
from curator.model.palace import Palace
from curator.model.schema import verify_problems
from curator.model.text import one_line


class _AuditorFailure(Exception):
    """A failure of the auditor (not of the note) while checking one note."""


@dataclass(frozen=True)
class Context:
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


def _scope_root(ctx: Context, note: Note) -> str:
    configured = ctx.palace.config.scope_root(note.scope)
    root = os.path.realpath(configured if configured is not None else ctx.default_root)
    if not os.path.isdir(root):
        raise _AuditorFailure(f"the root of scope {note.scope!r} is not a folder: {root}")
    if not os.access(root, os.R_OK | os.X_OK):
        raise _AuditorFailure(f"the root of scope {note.scope!r} cannot be read: {root}")
    return root


def _verify_spec(note: Note) -> tuple[list[str], list[str] | None, str | None] | str:
    """(paths, command, expect), or a sentence saying why `verify` is malformed (the header
    schema's rules, the same that `curator check` reports)."""
    value = note.header.get("verify")
    if not isinstance(value, dict):
        return "verify must be a mapping (paths, command, expect)"
    problems = verify_problems(value)
    if problems:
        return problems[0]
    raw_paths = value.get("paths", [])
    return (
        [raw_paths] if isinstance(raw_paths, str) else list(raw_paths),
        value.get("command"),
        value.get("expect"),
    )


def check_note(ctx: Context, note: Note) -> NoteResult:
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
