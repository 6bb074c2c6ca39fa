"""`curator check`: each rule's code at the right file:line, exit codes, a real pre-commit hook."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest
from palacehelpers import MakePalace, RunCli, git, note_text

from curator.model.check import run_checks
from curator.model.index_md import render_index
from curator.model.palace import Palace

TODAY = date(2026, 11, 30)

# Two notes that link to each other: no findings of their own.
BASE = {
    "notes/project/hub.md": note_text("Hub", body="[[spoke]]\n"),
    "notes/project/spoke.md": note_text("Spoke", body="[[hub]]\n"),
}
REL = "notes/project/bad.md"


def findings_for(make_palace: MakePalace, text: str, rel: str = REL, **more: str) -> set[tuple]:
    files = {**BASE, rel: text, **more}
    if rel == REL:  # the hub links to the note under test, so it is no orphan
        files["notes/project/hub.md"] = note_text("Hub", body="[[spoke]] [[bad]]\n")
    root = make_palace(files, commit=False)
    found = run_checks(Palace.open(root), TODAY, with_index=False)
    return {(f.path, f.line, f.severity, f.code) for f in found}


RULES = [
    # (id, note text, expected (line, severity, code))
    ("missing-name", "---\ndescription: d\ntype: project\n---\n", (1, "error", "header.missing")),
    ("missing-description", "---\nname: N\ntype: project\n---\n", (1, "error", "header.missing")),
    ("missing-type", "---\nname: N\ndescription: d\n---\n", (1, "error", "header.missing")),
    (
        "blank-name",
        "---\nname: ''\ndescription: d\ntype: project\n---\n",
        (1, "error", "header.missing"),
    ),
    (
        "name-not-text",
        note_text("N").replace("name: N", "name: [a, b]"),
        (2, "error", "header.invalid"),
    ),
    (
        "multi-line-description",
        '---\nname: N\ntype: project\ndescription: "one\\ntwo"\n---\n',
        (4, "error", "header.invalid"),
    ),
    ("unknown-type", note_text("N", type="opinion"), (4, "error", "type.unknown")),
    (
        "confidence-range",
        note_text("N", type="user", extra="confidence: 0.5\n"),
        (5, "error", "confidence.range"),
    ),
    (
        "confidence-not-number",
        note_text("N", extra="confidence: high\n"),
        (5, "error", "header.invalid"),
    ),
    (
        "confidence-over-one",
        note_text("N", extra="confidence: 1.5\n"),
        (5, "error", "header.invalid"),
    ),
    ("bad-date", note_text("N", extra="created: last tuesday\n"), (5, "error", "header.invalid")),
    (
        "impossible-date",
        note_text("N", extra="reviewed: 2026-02-30\n"),
        (5, "error", "header.invalid"),
    ),
    ("tags-not-list", note_text("N", extra="tags: billing\n"), (5, "error", "header.invalid")),
    (
        "too-many-tags",
        note_text("N", extra="tags: [a, b, c, d, e, f, g, h, i]\n"),
        (5, "error", "header.invalid"),
    ),
    ("unknown-scope", note_text("N", extra="scope: elsewhere\n"), (5, "error", "scope.unknown")),
    (
        "sensitive-not-bool",
        note_text("N", extra="sensitive: 'yes'\n"),
        (5, "error", "header.invalid"),
    ),
    ("reserved-content", note_text("N", extra="content: x\n"), (5, "error", "header.reserved")),
    ("reserved-handler", note_text("N", extra="handler: x\n"), (5, "error", "header.reserved")),
    (
        "verify-not-mapping",
        note_text("N", extra="verify: yes please\n"),
        (5, "error", "verify.invalid"),
    ),
    (
        "verify-command-string",
        note_text("N", extra="verify:\n  command: grep -q x\n"),
        (5, "error", "verify.invalid"),
    ),
    ("bad-status", note_text("N", extra="status: maybe\n"), (5, "error", "header.invalid")),
    ("draft-in-notes", note_text("N", extra="status: draft\n"), (5, "error", "draft.in-notes")),
    (
        "dangling-superseded-by",
        note_text("N", extra="status: superseded\nsuperseded_by: nowhere\n"),
        (6, "error", "supersede.dangling"),
    ),
    (
        "superseded-by-but-active",
        note_text("N", extra="superseded_by: hub\n"),
        (5, "warning", "supersede.status"),
    ),
    (
        "broken-link",
        note_text("N", body="ok\n\nsee [[missing-note]]\n"),
        (8, "error", "link.broken"),
    ),
    (
        "stale",
        note_text("N", extra="stale:\n  reason: moved\n  since: 2026-11-01\n"),
        (5, "warning", "note.stale"),
    ),
    ("due", note_text("N", extra="created: 2025-01-01\n"), (1, "warning", "note.due")),
    ("expired", note_text("N", extra="expires: 2026-01-01\n"), (5, "warning", "note.expired")),
    (
        "feedback-why",
        note_text("N", type="feedback", body="How to apply: always.\n"),
        (1, "warning", "feedback.why"),
    ),
    (
        "feedback-how",
        note_text("N", type="feedback", body="Why: reasons.\n"),
        (1, "warning", "feedback.how"),
    ),
    ("bad-yaml", "---\nname: N\ndescription: d: e\n---\n", (3, "error", "header.yaml")),
]


@pytest.mark.parametrize(("text", "expected"), [pytest.param(t, e, id=i) for i, t, e in RULES])
def test_rule_reports_code_at_line(make_palace: MakePalace, text: str, expected: tuple) -> None:
    found = findings_for(make_palace, text)
    assert (REL, *expected) in found, sorted(found)
    others = {f for f in found if f[0] != REL}
    assert others == set()


def test_clean_note_has_no_findings(make_palace: MakePalace) -> None:
    assert findings_for(make_palace, note_text("Fine", extra="confidence: 0.9\n")) == set()


def test_duplicate_names(make_palace: MakePalace) -> None:
    found = findings_for(
        make_palace,
        note_text("Hub", body="[[hub]]\n"),  # same name as notes/project/hub.md, case-folded
    )
    # notes are checked in path order: the later one (hub.md) is the duplicate
    assert ("notes/project/hub.md", 2, "error", "name.duplicate") in found
    assert not any(f[3] == "name.duplicate" and f[0] == REL for f in found)


def test_orphan_is_a_warning(make_palace: MakePalace) -> None:
    found = findings_for(make_palace, note_text("Lonely"), rel="notes/project/lonely.md")
    assert ("notes/project/lonely.md", 1, "warning", "note.orphan") in found
    assert (REL, 1, "warning", "note.orphan") not in found  # bad.md absent here


def test_supersede_cycle(make_palace: MakePalace) -> None:
    found = findings_for(
        make_palace,
        note_text("Bad", extra="status: superseded\nsuperseded_by: other\n", body="[[other]]\n"),
        **{
            "notes/project/other.md": note_text(
                "Other", extra="status: superseded\nsuperseded_by: bad\n", body="[[bad]]\n"
            )
        },
    )
    assert (REL, 6, "error", "supersede.cycle") in found
    assert ("notes/project/other.md", 6, "error", "supersede.cycle") in found


def test_inbox_problems_are_only_warnings(make_palace: MakePalace) -> None:
    found = findings_for(
        make_palace,
        note_text("Rule-ish", extra="status: active\n"),
        rel="inbox/rule.md",
        **{"inbox/broken.md": "---\nname: a: b\n---\n", "inbox/notype.md": "---\nname: x\n---\n"},
    )
    assert ("inbox/rule.md", 5, "warning", "rule.in-inbox") in found
    assert ("inbox/broken.md", 2, "warning", "header.yaml") in found
    assert ("inbox/notype.md", 1, "warning", "header.missing") in found
    assert not any(f[2] == "error" for f in found)


def test_index_outdated_is_an_error(make_palace: MakePalace) -> None:
    root = make_palace(BASE, commit=False)
    codes = {(f.path, f.code) for f in run_checks(Palace.open(root), TODAY)}
    assert ("INDEX.md", "index.outdated") in codes
    (root / "INDEX.md").write_text(render_index(Palace.open(root), None, TODAY))
    assert run_checks(Palace.open(root), TODAY) == []


# -- the command ----------------------------------------------------------------------------
def current(root: Path) -> Path:
    (root / "INDEX.md").write_text(render_index(Palace.open(root), None, date.today()))
    return root


def test_cli_exit_codes_and_output(make_palace: MakePalace, run_cli: RunCli) -> None:
    root = current(make_palace(BASE, commit=False))
    assert run_cli("--palace", root, "check") == (
        0,
        "2 notes, 0 drafts: 0 errors, 0 warnings\n",
        "",
    )

    (root / "notes/project/lonely.md").write_text(note_text("Lonely"))
    current(root)
    rc, out, _ = run_cli("--palace", root, "check")
    assert rc == 0  # only warnings
    assert "notes/project/lonely.md:1: warning: orphan" in out
    rc, out, _ = run_cli("--palace", root, "check", "-q")
    assert (rc, out) == (0, "3 notes, 0 drafts: 0 errors, 1 warnings\n")

    (root / REL).write_text(note_text("Bad", type="opinion", body="[[hub]]\n"))
    current(root)
    rc, out, _ = run_cli("--palace", root, "check")
    assert rc == 1
    assert f"{REL}:4: error: unknown type 'opinion'" in out
    rc, out, _ = run_cli("--palace", root, "check", "--json")
    report = json.loads(out)
    assert rc == 1 and report["ok"] is False and report["errors"] == 1
    assert report["warnings"] == 2 and report["notes"] == 4  # lonely.md and bad.md are orphans
    assert {
        "path": REL,
        "line": 4,
        "severity": "error",
        "code": "type.unknown",
        "message": "unknown type 'opinion' (known: user, feedback, project, reference)",
    } in report["findings"]


def test_sample_palace_has_no_note_errors(sample_palace: Path, run_cli: RunCli) -> None:
    _, out, _ = run_cli("--palace", sample_palace, "check", "--json")
    report = json.loads(out)
    errors = [f for f in report["findings"] if f["severity"] == "error"]
    assert [f["code"] for f in errors] in ([], ["index.outdated"])
    assert report["notes"] == 40 and report["drafts"] == 8


def test_pre_commit_hook(make_palace: MakePalace) -> None:
    root = current(make_palace(BASE))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "index")
    hook = root / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\nexec {sys.executable} -m curator --palace . check -q\n")
    hook.chmod(hook.stat().st_mode | stat.S_IXUSR)

    (root / REL).write_text(note_text("Bad", body="[[nowhere]] [[hub]]\n"))
    current(root)
    git(root, "add", "-A")
    refused = subprocess.run(
        ["git", "commit", "-m", "add a broken note"], cwd=root, capture_output=True, text=True
    )
    assert refused.returncode != 0
    assert f"{REL}:6: error: broken link to 'nowhere'" in refused.stdout + refused.stderr
    assert git(root, "log", "--format=%s").stdout.splitlines() == ["index", "initial"]

    (root / REL).write_text(note_text("Bad", body="[[spoke]] [[hub]]\n"))
    current(root)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "add a good note")
    assert git(root, "log", "--format=%s").stdout.splitlines()[0] == "add a good note"
