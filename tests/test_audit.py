"""The audit core: selection, path containment, commands through the runner, stale in one commit.

Real git repositories in tmp_path, real files, real processes. Tests pass with or without
bubblewrap installed (sandbox "auto"); a few force sandbox "none" to prove the rlimits alone.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from datetime import date
from pathlib import Path

import pytest
from palacehelpers import MakePalace, git, note_text

from curator.audit.paths import check_path
from curator.audit.report import AUDIT_DIR, AuditError, AuditReport, NoteResult, load_latest
from curator.audit.run import audit_and_commit, plan_audit, run_audit
from curator.audit.runner import SAFE_PATH
from curator.errors import NoteNotFound
from curator.model.palace import Palace

TODAY = date(2026, 6, 1)
TOML = """[palace]
name = "audit palace"

[scopes.app]
root = "project"

[audit]
timeout = 2
"""
HOSTILE_ALLOW = (
    '["test", "ls", "grep", "git", "find", "sh", "sleep", "cp", "yes", "printenv", "printf",'
    ' "head", "touch", "cat"]'
)


def vnote(name: str, verify: str, *, scope: str = "app", extra: str = "") -> str:
    return note_text(name, extra=f"scope: {scope}\nverify: {verify}\ncreated: 2026-05-01\n{extra}")


def project_files() -> dict[str, str]:
    return {
        "project/README.md": "# app\nhello marker\n",
        "project/src/app.py": "print('hi')\n",
        "project/src/util.py": "x = 1\n",
    }


def commits(root: Path) -> int:
    return int(git(root, "rev-list", "--count", "HEAD").stdout.strip())


def results(report: AuditReport) -> dict[str, NoteResult]:
    return {r.path: r for r in report.results}


@pytest.fixture
def palace_root(make_palace: MakePalace) -> Path:
    return make_palace(
        {
            **project_files(),
            "notes/present.md": vnote("Present", "{paths: [README.md, src/*.py]}"),
            "notes/missing.md": vnote("Missing", "{paths: [src/gone.py]}"),
            "notes/cmd-pass.md": vnote("Cmd pass", "{command: [grep, -q, marker, README.md]}"),
            "notes/cmd-fail.md": vnote("Cmd fail", "{command: [grep, -q, nothere, README.md]}"),
            "notes/cmd-expect.md": vnote(
                "Cmd expect", "{command: [grep, hello, README.md], expect: goodbye}"
            ),
            "notes/plain.md": note_text("Plain"),
        },
        toml=TOML,
    )


# --- paths -------------------------------------------------------------------------------------


def test_path_checks_stay_inside_the_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("")
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    (root / "link").symlink_to(outside)
    (root / "dirlink").symlink_to(tmp_path)
    (root / "inner").symlink_to(root / "src" / "a.py")
    r = os.path.realpath(root)
    assert check_path("src/a.py", r).status == "ok"
    assert check_path("src/*.py", r).matches == 1
    assert check_path("**/*.py", r).status == "ok"
    assert check_path("inner", r).status == "ok"  # a symlink that stays inside is fine
    assert check_path("src/nope.py", r).status == "missing"
    assert check_path("*.rs", r).status == "missing"
    for bad in ("../../etc/passwd", "..", "src/../../secret.txt", "../*"):
        res = check_path(bad, r)
        assert res.status == "escapes" and "escapes the scope root" in res.detail, bad
    for absolute in ("/etc/passwd", "~/.ssh/id_rsa"):
        assert check_path(absolute, r).status == "escapes"
    assert check_path("link", r).status == "escapes"  # symlink pointing outside
    assert check_path("dirlink/secret.txt", r).status == "escapes"
    assert check_path("dirlink/*.txt", r).status == "escapes"
    assert check_path("", r).status == "invalid"
    assert check_path("a\0b", r).status == "invalid"


def test_escaping_paths_are_an_error_on_the_note_never_stale(make_palace: MakePalace) -> None:
    root = make_palace(
        {
            **project_files(),
            "notes/escape.md": vnote("Escape", "{paths: [../../home/someone/.ssh]}"),
            "notes/etc.md": vnote("Etc", "{paths: [../../etc/passwd]}"),
            "notes/abs.md": vnote("Abs", "{paths: [/etc/passwd]}"),
        },
        toml=TOML,
    )
    (root / "project" / "out").symlink_to("/etc/passwd")
    (root / "notes" / "link.md").write_text(vnote("Link", "{paths: [out]}"))
    git(root, "add", "-A")
    git(root, "commit", "-qm", "link")
    report = run_audit(Palace.open(root), today=TODAY)
    res = results(report)
    for rel in ("notes/escape.md", "notes/etc.md", "notes/abs.md", "notes/link.md"):
        assert res[rel].status == "error", rel
    assert "escapes the scope root" in res["notes/escape.md"].reason
    assert report.changes == []
    assert plan_audit(Palace.open(root), report) is None


# --- results and commits -----------------------------------------------------------------------


def test_statuses_stale_in_one_commit_and_index(palace_root: Path) -> None:
    before = commits(palace_root)
    report, _ = audit_and_commit(Palace.open(palace_root), today=TODAY)
    res = results(report)
    assert {k: v.status for k, v in res.items()} == {
        "notes/cmd-expect.md": "fail",
        "notes/cmd-fail.md": "fail",
        "notes/cmd-pass.md": "pass",
        "notes/missing.md": "fail",
        "notes/present.md": "pass",
    }
    assert "plain" not in " ".join(res)  # no verify: not selected
    assert res["notes/missing.md"].reason == "missing: src/gone.py"
    assert "exited 1" in res["notes/cmd-fail.md"].reason
    assert "goodbye" in res["notes/cmd-expect.md"].reason
    assert report.counts["stale"] == 3 and report.exit_code() == 1
    assert commits(palace_root) == before + 1
    message = git(palace_root, "log", "-1", "--format=%B").stdout
    assert message.startswith("audit: 3 stale, 0 cleared of 5 checked")
    assert "Curator-Action: audit" in message
    changed = git(palace_root, "show", "--name-only", "--format=", "HEAD").stdout.split()
    assert sorted(changed) == [
        "INDEX.md",
        "notes/cmd-expect.md",
        "notes/cmd-fail.md",
        "notes/missing.md",
    ]
    palace = Palace.open(palace_root)
    assert palace.by_rel["notes/missing.md"].stale == {
        "reason": "missing: src/gone.py",
        "since": "2026-06-01",
    }
    index = (palace_root / "INDEX.md").read_text()
    assert any("missing.md" in ln and "stale" in ln for ln in index.splitlines())
    # the full report is kept
    saved = json.loads((palace_root / AUDIT_DIR / "latest.json").read_text())
    assert saved["run_id"] == report.run_id and saved["commit"] == report.commit
    assert (palace_root / AUDIT_DIR / f"{report.run_id}.json").is_file()
    assert load_latest(palace_root).run_id == report.run_id  # type: ignore[union-attr]
    # working tree clean: only the plan's paths changed, the report is git-ignored
    assert git(palace_root, "status", "--porcelain").stdout == ""


def test_rerun_without_changes_makes_no_commit(palace_root: Path) -> None:
    audit_and_commit(Palace.open(palace_root), today=TODAY)
    count = commits(palace_root)
    head = (palace_root / "notes" / "missing.md").read_bytes()
    report, plan = audit_and_commit(Palace.open(palace_root), today=date(2026, 6, 2))
    assert plan is None and report.commit is None and report.changes == []
    assert commits(palace_root) == count
    assert (palace_root / "notes" / "missing.md").read_bytes() == head  # since kept


def test_fixing_the_world_clears_stale_in_one_commit(palace_root: Path) -> None:
    audit_and_commit(Palace.open(palace_root), today=TODAY)
    count = commits(palace_root)
    (palace_root / "project" / "src" / "gone.py").write_text("back\n")
    report, _ = audit_and_commit(Palace.open(palace_root), today=date(2026, 6, 3))
    assert [(c.path, c.kind) for c in report.changes] == [("notes/missing.md", "cleared")]
    assert commits(palace_root) == count + 1
    note = Palace.open(palace_root).by_rel["notes/missing.md"]
    assert note.stale is None and note.header["verified"] == "2026-06-03"
    assert git(palace_root, "log", "-1", "--format=%s").stdout.startswith(
        "audit: 0 stale, 1 cleared"
    )


def test_changed_reason_rewrites_stale(palace_root: Path) -> None:
    audit_and_commit(Palace.open(palace_root), ["notes/missing.md"], today=TODAY)
    path = palace_root / "notes" / "missing.md"
    path.write_text(path.read_text().replace("[src/gone.py]", "[src/gone2.py]"))
    git(palace_root, "commit", "-qam", "edit")
    report, _ = audit_and_commit(Palace.open(palace_root), ["missing"], today=date(2026, 7, 1))
    assert report.changes[0].reason == "missing: src/gone2.py"
    assert Palace.open(palace_root).by_rel["notes/missing.md"].stale == {
        "reason": "missing: src/gone2.py",
        "since": "2026-07-01",
    }


def test_refs_and_changed_since(palace_root: Path) -> None:
    palace = Palace.open(palace_root)
    report = run_audit(palace, ["present", "notes/cmd-pass.md"], today=TODAY)
    assert [r.path for r in report.results] == ["notes/cmd-pass.md", "notes/present.md"]
    with pytest.raises(AuditError, match="no verify"):
        run_audit(palace, ["plain"])
    with pytest.raises(NoteNotFound):
        run_audit(palace, ["nonexistent-note"])
    base = git(palace_root, "rev-parse", "HEAD").stdout.strip()
    path = palace_root / "notes" / "present.md"
    path.write_text(path.read_text() + "more\n")
    git(palace_root, "commit", "-qam", "edit present")
    report = run_audit(Palace.open(palace_root), changed_since=base, today=TODAY)
    assert [r.path for r in report.results] == ["notes/present.md"]
    report = run_audit(Palace.open(palace_root), changed_since="HEAD", today=TODAY)
    assert report.results == [] and report.checked_nothing and report.exit_code() == 2
    for bad in ("--output=/tmp/x", "no-such-rev", "HEAD~99", ""):
        with pytest.raises(AuditError):
            run_audit(Palace.open(palace_root), changed_since=bad)


def test_nothing_selected_says_so_and_is_not_ok(make_palace: MakePalace) -> None:
    root = make_palace({"notes/plain.md": note_text("Plain")}, toml=TOML)
    report, plan = audit_and_commit(Palace.open(root), today=TODAY)
    assert plan is None and report.checked_nothing
    assert report.summary().startswith("checked nothing")
    assert report.exit_code() == 2


def test_auditor_failure_is_counted_apart_from_note_failures(make_palace: MakePalace) -> None:
    toml = TOML + '\n[scopes.gone]\nroot = "no-such-folder"\n'
    root = make_palace(
        {
            **project_files(),
            "notes/ok.md": vnote("Ok", "{paths: [README.md]}"),
            "notes/lost.md": vnote("Lost", "{paths: [README.md]}", scope="gone"),
            "notes/badtype.md": vnote("Badtype", "{paths: 5}"),
            "notes/badcmd.md": vnote("Badcmd", "{command: 'grep x README.md'}"),
            "notes/notmap.md": vnote("Notmap", "[README.md]"),
        },
        toml=toml,
    )
    report, _ = audit_and_commit(Palace.open(root), today=TODAY)
    res = results(report)
    assert res["notes/lost.md"].status == "auditor-error"
    assert "not a folder" in res["notes/lost.md"].reason
    for rel in ("notes/badtype.md", "notes/badcmd.md", "notes/notmap.md"):
        assert res[rel].status == "error", rel
    assert report.counts["auditor-error"] == 1 and report.counts["fail"] == 0
    assert report.exit_code() == 2
    assert Palace.open(root).by_rel["notes/lost.md"].stale is None


def test_default_scope_root_is_the_repository_around_the_palace(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "mem" / "notes").mkdir(parents=True)
    (repo / "src").mkdir()
    (repo / "src" / "main.py").write_text("")
    (repo / "mem" / "palace.toml").write_text('[palace]\nname = "p"\n')
    (repo / "mem" / "notes" / "a.md").write_text(
        note_text("A", extra="verify: {paths: [src/main.py, mem/palace.toml]}\n")
    )
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    report = run_audit(Palace.open(repo / "mem"), today=TODAY)
    assert [r.status for r in report.results] == ["pass"]


# --- commands: drafts, policy, containment -----------------------------------------------------


def test_drafts_are_never_audited(make_palace: MakePalace) -> None:
    toml = TOML + f"allow = {HOSTILE_ALLOW}\n"
    draft = vnote("Draft", "{command: [touch, MARKER]}")
    root = make_palace(
        {**project_files(), "inbox/draft.md": draft, "notes/n.md": vnote("N", "{paths: [x]}")},
        toml=toml,
    )
    report = run_audit(Palace.open(root), today=TODAY)
    assert [r.path for r in report.results] == ["notes/n.md"]
    with pytest.raises(AuditError, match="draft"):
        run_audit(Palace.open(root), ["inbox/draft.md"])
    assert not (root / "project" / "MARKER").exists()
    assert not list(root.rglob("MARKER"))


HOSTILE_REFUSED = {
    "rm": "[rm, -rf, /]",
    "sh": "[sh, -c, 'touch /tmp/pwned']",
    "python": "[python, -c, 'import os']",
    "gitpager": "[git, -c, core.pager=touch /tmp/pwned, log]",
    "findexec": "[find, ., -exec, touch, pwned, ';']",
    "gitout": "[git, log, --output=pwned]",
    "abs": "[/bin/sh, -c, id]",
}


def test_default_allowlist_refuses_hostile_commands(make_palace: MakePalace) -> None:
    files = {f"notes/{k}.md": vnote(k, f"{{command: {v}}}") for k, v in HOSTILE_REFUSED.items()}
    root = make_palace({**project_files(), **files}, toml=TOML)
    before = commits(root)
    report, _ = audit_and_commit(Palace.open(root), today=TODAY)
    for res in report.results:
        assert res.status == "skipped", res
        assert res.reason.startswith("skipped by policy"), res
        assert res.command is not None and res.command.contained == "refused"
        assert res.command.exit_code is None and res.command.duration < 1
    assert report.changes == [] and commits(root) == before
    assert report.exit_code() == 2  # nothing was checked


def _alive_with(needle: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if needle.encode() in cmdline and state != "Z":
            found.append(int(entry))
    return found


@pytest.mark.slow
@pytest.mark.parametrize("sandbox", ["auto", "none"])
def test_hostile_commands_are_killed_or_contained(
    make_palace: MakePalace, monkeypatch: pytest.MonkeyPatch, sandbox: str
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SECRET-123")
    toml = TOML.replace("timeout = 2", "timeout = 1.5") + f"allow = {HOSTILE_ALLOW}\n"
    osc = r"'\033]0;pwned\007\033[2Jvisible\n'"
    root = make_palace(
        {
            **project_files(),
            "notes/write.md": vnote("Write", "{command: [cp, README.md, COPIED]}"),
            "notes/touch.md": vnote("Touch", "{command: [touch, TOUCHED]}"),
            "notes/sleep.md": vnote("Sleep", "{command: [sleep, '1000']}"),
            "notes/fork.md": vnote(
                "Fork", "{command: [sh, -c, 'sleep 987.25 & echo started'], expect: started}"
            ),
            "notes/flood.md": vnote("Flood", "{command: [head, -c, '10485760', /dev/zero]}"),
            "notes/osc.md": vnote("Osc", f"{{command: [printf, {osc}], expect: visible}}"),
            "notes/key.md": vnote("Key", "{command: [printenv, OPENAI_API_KEY]}"),
            "notes/keysh.md": vnote("Keysh", "{command: [sh, -c, 'echo key=$OPENAI_API_KEY']}"),
        },
        toml=toml,
    )
    report = run_audit(Palace.open(root), today=TODAY, sandbox=sandbox, jobs=8)
    res = {r.path.removeprefix("notes/").removesuffix(".md"): r for r in report.results}
    # writes: refused by the read-only sandbox or killed by the file-size limit; never written
    assert res["write"].status == "fail", res["write"]
    copied = root / "project" / "COPIED"
    if sandbox == "none" or shutil.which("bwrap", path=SAFE_PATH) is None:
        # rlimits alone: the write is killed (RLIMIT_FSIZE 0), but creating an EMPTY file is
        # not a write to the kernel: without bubblewrap only the allowlist keeps `touch` out.
        assert "file size limit" in res["write"].reason
        assert not copied.exists() or copied.stat().st_size == 0
    else:  # read-only sandbox: nothing is created at all
        assert not copied.exists()
        assert res["touch"].status == "fail"
        assert not (root / "project" / "TOUCHED").exists()
    # sleeps forever: killed at the wall-clock limit
    assert res["sleep"].status == "fail" and "wall-clock" in res["sleep"].reason
    assert res["sleep"].command is not None and res["sleep"].command.contained == "killed"
    # forks a child that outlives it: the run passes, the child is gone
    assert res["fork"].status == "pass", res["fork"]
    assert _alive_with("987.25") == []
    # 10 MB of output: capped in the report
    flood = res["flood"].command
    assert flood is not None and flood.truncated and len(flood.output) <= 64 * 1024
    # OSC/CSI escapes: stripped from the output
    osc_cmd = res["osc"].command
    assert res["osc"].status == "pass" and osc_cmd is not None
    assert "\x1b" not in osc_cmd.output and "\x07" not in osc_cmd.output
    assert "visible" in osc_cmd.output
    # the API key never reaches the command
    for key in ("key", "keysh"):
        cmd = res[key].command
        assert cmd is not None and "SECRET" not in cmd.output
    assert res["key"].status == "fail"
    # everything is in the saved report, with what was done to each command
    saved = json.dumps([r.to_json() for r in report.results])
    assert "SECRET" not in saved and "\\u001b" not in saved


def test_python_refused_even_when_a_palace_allows_sh(make_palace: MakePalace) -> None:
    toml = TOML + f"allow = {HOSTILE_ALLOW}\n"
    root = make_palace(
        {**project_files(), "notes/py.md": vnote("Py", "{command: [python3, -c, 'print(1)']}")},
        toml=toml,
    )
    report = run_audit(Palace.open(root), today=TODAY)
    assert report.results[0].status == "skipped"
    assert "not on the allowlist" in report.results[0].reason


def test_missing_program_is_an_error_not_stale(make_palace: MakePalace) -> None:
    toml = TOML + 'allow = ["no-such-program-xyz"]\n'
    root = make_palace(
        {**project_files(), "notes/np.md": vnote("Np", "{command: [no-such-program-xyz]}")},
        toml=toml,
    )
    report, _ = audit_and_commit(Palace.open(root), today=TODAY)
    assert report.results[0].status == "error" and report.changes == []


def test_parallel_progress_reports_every_note(palace_root: Path) -> None:
    seen: list[tuple[int, int, str]] = []
    report = run_audit(
        Palace.open(palace_root), jobs=3, today=TODAY, progress=lambda *a: seen.append(a)
    )
    assert [d for d, _, _ in seen] == [1, 2, 3, 4, 5]
    assert {t for _, t, _ in seen} == {5}
    assert sorted(r for _, _, r in seen) == sorted(r.path for r in report.results)


def test_dirty_note_commit_failure_is_reported(palace_root: Path) -> None:
    path = palace_root / "notes" / "missing.md"
    path.write_text(path.read_text() + "local edit\n")  # uncommitted: the writer refuses
    report, plan = audit_and_commit(Palace.open(palace_root), today=TODAY)
    assert plan is not None and report.commit is None and report.commit_error
    assert report.exit_code() == 2
    assert load_latest(palace_root).commit_error  # type: ignore[union-attr]
    assert "local edit" in path.read_text() and "stale" not in path.read_text()


def test_no_shell_is_ever_involved(make_palace: MakePalace) -> None:
    root = make_palace(
        {
            **project_files(),
            "notes/semi.md": vnote("Semi", "{command: [ls, 'README.md; touch HACKED']}"),
        },
        toml=TOML,
    )
    report = run_audit(Palace.open(root), today=TODAY)
    assert report.results[0].status == "fail"
    assert not (root / "project" / "HACKED").exists()
    assert (
        subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True).stdout
        == b""
    )
