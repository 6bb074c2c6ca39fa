"""Curation actions through the CLI: --yes/--dry-run/--json, refusals, identity, editor, crash,
concurrency.

Real git repositories in tmp_path (copies of sample_palace), real files, real subprocesses.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from palacehelpers import IDENTITY_VARS, RunCli, git, installed, isolate, listed, run_main

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLE = REPO_ROOT / "sample_palace"
STRIPE = "inbox/2026-11-24-stripe-retries-webhooks-three-days.md"
LINT = "inbox/2026-11-25-make-lint-runs-mypy-on-billing.md"
SECRET = "inbox/2026-11-26-rotate-stripe-restricted-key.md"
VAT = "inbox/2026-11-27-invoice-pdf-shows-customer-vat-id.md"
DEPLOY = "notes/project/deploy-on-version-tags.md"


def committed(root: Path, rev: str = "HEAD") -> set[str]:
    out = git(root, "-c", "core.quotepath=off", "show", "--name-only", "--format=", rev).stdout
    return {line for line in out.splitlines() if line}


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file outside .git and the loading cache, with its bytes."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
        and ".git" not in p.relative_to(root).parts
        and "cache" not in p.relative_to(root).parts
        and p.name != "writer.lock"
        and p.relative_to(root).as_posix() != ".curator/.gitignore"  # machine state, ignored
    }


def state(root: Path) -> tuple[dict[str, bytes], str, str]:
    status = git(root, "status", "--porcelain", "--ignored", "--untracked-files=all").stdout
    status = "\n".join(line for line in status.splitlines() if "/cache/" not in line)
    return snapshot(root), status, git(root, "rev-parse", "HEAD").stdout


def curator_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO_ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def curator(
    root: Path,
    *args: str,
    env: dict[str, str] | None = None,
    stdin: str = "",
) -> subprocess.CompletedProcess[str]:
    """`curator ARGS` (stdin not a TTY): in this process (`run_main`), or with `env` (the
    process's whole environment) a separate process."""
    if env is None:
        return run_main(root, *args, stdin=stdin)
    return subprocess.run(
        [sys.executable, "-m", "curator", *args],
        cwd=root,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=env or curator_env(),
    )


@pytest.fixture(scope="module")
def built(sample_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample palace with a current INDEX.md committed by a curator `index` action (so
    `index --check` starts at 0 and there is one curator action to undo), made once."""
    base = tmp_path_factory.mktemp("built")
    root = Path(shutil.copytree(sample_repo, base / "palace", symlinks=True))
    with pytest.MonkeyPatch.context() as m:
        isolate(m, base)
        index = root / "INDEX.md"
        index.write_text(index.read_text(encoding="utf-8") + "- a stale line\n", encoding="utf-8")
        git(root, "commit", "-q", "--no-verify", "-m", "stale index", "--", "INDEX.md")
        proc = run_main(root, "--palace", str(root), "index", "--yes")
        assert proc.returncode == 0, proc.stderr
    return root


@pytest.fixture
def palace(built: Path, tmp_path: Path) -> Path:
    """A copy of `built`, git's index refreshed for its files' new inodes."""
    root = Path(shutil.copytree(built, tmp_path / "palace", symlinks=True))
    git(root, "update-index", "-q", "--refresh")
    return root


def check_index(run_cli: RunCli, root: Path) -> None:
    code, stdout, stderr = run_cli("--palace", root, "index", "--check")
    assert code == 0, stdout + stderr


# --------------------------------------------------------------------------- confirmation


def test_without_yes_and_no_tty_the_cli_refuses_and_changes_nothing(palace: Path) -> None:
    before = state(palace)
    for args in (
        ["promote", STRIPE, "--confidence", "0.8"],
        ["reject", LINT, "--reason", "dup"],
        ["retire", DEPLOY, "--reason", "old"],
        ["review", DEPLOY],
        ["undo"],
    ):
        proc = curator(palace, *args)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert "--yes" in proc.stderr
        assert state(palace) == before, args


def test_dry_run_prints_the_plan_and_diff_and_changes_nothing(
    palace: Path, run_cli: RunCli
) -> None:
    before = state(palace)
    code, stdout, _ = run_cli(
        "--palace", palace, "promote", STRIPE, "--confidence", "0.8", "--dry-run"
    )
    assert code == 0
    assert "promote: Stripe keeps retrying" in stdout
    assert f"rename {STRIPE} -> .curator/promoted/" in stdout
    assert "+++ b/notes/reference/stripe-keeps-retrying" in stdout
    assert "INDEX.md" in stdout
    code, stdout, _ = run_cli(
        "--palace", palace, "retire", DEPLOY, "--reason", "x", "--dry-run", "--json"
    )
    data = json.loads(stdout)
    assert code == 0 and data["dry_run"] is True and data["action"] == "retire"
    assert DEPLOY in data["paths"] and "Curator-Action: retire" in data["message"]
    assert "+status: retired" in data["diff"]
    assert state(palace) == before


# --------------------------------------------------------------------------- concurrency


def test_two_processes_promoting_different_drafts_both_commit(
    palace: Path, run_cli: RunCli
) -> None:
    head = git(palace, "rev-parse", "HEAD").stdout.strip()
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "curator",
                "promote",
                draft,
                "--confidence",
                "0.8",
                "--yes",
                "--json",
            ],
            cwd=palace,
            env=curator_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for draft in (STRIPE, LINT)
    ]
    results = [(p.wait(timeout=60), *p.communicate()) for p in procs]
    for code, stdout, stderr in results:
        assert code == 0, stderr
        assert json.loads(stdout)["action"] == "promote"
    log = git(palace, "log", "--format=%s", f"{head}..HEAD").stdout.splitlines()
    assert sorted(log) == [
        "promote: Stripe keeps retrying a failed webhook for three days",
        "promote: make lint runs mypy only on the billing package",
    ]
    assert not (palace / STRIPE).exists() and not (palace / LINT).exists()
    index = (palace / "INDEX.md").read_text()
    assert "Stripe keeps retrying" in index and "make lint runs mypy" in index
    check_index(run_cli, palace)
    assert git(palace, "status", "--porcelain").stdout == ""


def test_a_plan_made_between_another_actions_files_and_its_commit_renders_index_again(
    palace: Path,
) -> None:
    """Another writer had installed its files but not yet committed them when this promote was
    planned (apply's steps 5 and 6; the plan takes no lock): the plan's INDEX.md, rendered
    from what HEAD held then, must not land over the other action's once that one commits,
    though INDEX.md's bytes are the ones the plan expected."""
    from curator.model.palace import Palace
    from curator.writer.actions.promote import plan_promote
    from curator.writer.session import commit

    other = plan_promote(Palace.open(palace), LINT, confidence=0.8)
    written = installed(palace, other.effects(palace))  # the other writer's files
    plan = plan_promote(Palace.open(palace), STRIPE, confidence=0.8)
    git(palace, "add", "--", *(rel for rel in written if not rel.startswith(".curator/")))
    git(palace, "commit", "-q", "-m", other.message)  # ...and now committed
    commit(palace, plan)
    index = (palace / "INDEX.md").read_text()
    assert "Stripe keeps retrying" in index and "make lint runs mypy" in index
    assert git(palace, "status", "--porcelain").stdout == ""


# --------------------------------------------------------------------------- every action


def test_every_action_with_yes_and_json_then_history(palace: Path, run_cli: RunCli) -> None:
    def act(*args: str) -> dict:
        code, stdout, stderr = run_cli("--palace", palace, *args, "--yes", "--json")
        assert code == 0, (args, stderr)
        data = json.loads(stdout)
        assert data["commit"] == git(palace, "rev-parse", "HEAD").stdout.strip()
        assert data["action"] == args[0]
        return data

    promoted = act("promote", STRIPE, "--confidence", "0.8", "--reason", "Seen in prod.")
    assert committed(palace) == {promoted["notes"][0], "INDEX.md"}
    act("reject", LINT, "--reason", "Duplicate.")
    act("merge", VAT, "--into-note", "notes/project/stripe-webhook-handler.md")
    act(
        "supersede",
        "notes/project/deploy-freeze-until-vat-filing.md",
        "--by",
        "notes/project/stripe-tax-handles-vat.md",
        "--relink",
    )
    act(
        "merge",
        "notes/feedback/never-force-push-main.md",
        "notes/feedback/one-concern-per-pull-request.md",
        "--into",
        "Git hygiene",
    )
    act("retire", DEPLOY, "--reason", "Render deploys now.")
    act("review", "notes/user/maya-works-lisbon-hours.md")
    act("undo")
    check_index(run_cli, palace)
    assert git(palace, "status", "--porcelain").stdout == ""

    code, stdout, _ = run_cli("--palace", palace, "history", "--json")
    entries = json.loads(stdout)
    assert code == 0
    assert [e["action"] for e in entries] == [
        "undo",
        "review",
        "retire",
        "merge",
        "supersede",
        "merge",
        "reject",
        "promote",
        "index",
    ]
    first = entries[-2]
    assert first["notes"] == promoted["notes"] and first["reason"] == "Seen in prod."
    assert first["author"] == "Test <test@example.com>" and first["commit"] == promoted["commit"]
    assert {"action", "notes", "reason", "author", "date", "commit"} <= set(first)
    code, stdout, _ = run_cli("--palace", palace, "history")
    assert code == 0 and "promote" in stdout and "Seen in prod." in stdout


def test_reject_without_reason_is_a_usage_error(palace: Path, run_cli: RunCli) -> None:
    before = state(palace)
    code, _, stderr = run_cli("--palace", palace, "reject", LINT, "--yes")
    assert code == 2 and "--reason" in stderr
    assert state(palace) == before


@pytest.mark.parametrize(
    ("args", "wanted", "unwanted"),
    [
        (("--type", "banana"), "unknown type 'banana'", "confidence"),
        (("--type", "banana", "--confidence", "0.8"), "unknown type 'banana'", "confidence"),
        (("--confidence", "7"), "confidence", "type"),
    ],
)
def test_promote_names_only_the_true_problem(
    palace: Path, run_cli: RunCli, args: tuple[str, ...], wanted: str, unwanted: str
) -> None:
    """A problem that follows from another (no default confidence for a type the palace does
    not know) is not reported beside it."""
    before = state(palace)
    code, _, stderr = run_cli("--palace", palace, "promote", STRIPE, *args, "--yes")
    assert code == 2 and wanted in stderr and unwanted not in stderr.split(":", 2)[-1], stderr
    assert state(palace) == before


def test_promote_of_a_secret_needs_allow_secret(palace: Path, run_cli: RunCli) -> None:
    before = state(palace)
    code, _, stderr = run_cli("--palace", palace, "promote", SECRET, "--confidence", "0.8", "--yes")
    assert code == 2 and "--allow-secret" in stderr and SECRET in stderr
    assert state(palace) == before
    code, _, stderr = run_cli(
        "--palace", palace, "promote", SECRET, "--confidence", "0.8", "--yes", "--allow-secret"
    )
    assert code == 0, stderr


def test_undo_refused_when_a_later_edit_touched_the_file(
    palace: Path, run_cli: RunCli, tmp_path: Path
) -> None:
    text = (palace / DEPLOY).read_text()
    shas = []
    for word in ("ship", "publish"):
        new = tmp_path / f"{word}.md"
        new.write_text(text.replace("To release:", f"To {word}:"))
        code, stdout, stderr = run_cli("--palace", palace, "edit", DEPLOY, "--from", new, "--json")
        assert code == 0, stderr
        shas.append(json.loads(stdout)["commit"])
    before = state(palace)
    code, _, stderr = run_cli("--palace", palace, "undo", shas[0], "--yes")
    assert code == 2
    assert "later commits touched the same files" in stderr and DEPLOY in stderr
    assert state(palace) == before


def test_undo_loads_the_palace_once(palace: Path, run_cli: RunCli) -> None:
    """Issue 34: `curator undo` loaded the palace, then undo loaded it again to be sure it
    was not older than HEAD (at 100k notes a second walk and lookups, ~1.5 s of CPU)."""
    code, _, stderr = run_cli("--palace", palace, "promote", STRIPE, "--confidence", "0.8", "--yes")
    assert code == 0, stderr
    with listed() as folders:
        code, stdout, stderr = run_cli("--palace", palace, "undo", "--yes")
    assert code == 0 and "undo: promote" in stdout, stderr
    assert folders.count(str(palace / "notes")) == 1
    assert (palace / STRIPE).is_file()
    check_index(run_cli, palace)


def test_dirty_file_is_named_and_nothing_changes(palace: Path, run_cli: RunCli) -> None:
    with (palace / DEPLOY).open("a") as handle:
        handle.write("uncommitted\n")
    before = state(palace)
    code, _, stderr = run_cli("--palace", palace, "retire", DEPLOY, "--reason", "x", "--yes")
    assert code == 2 and DEPLOY in stderr and "uncommitted changes" in stderr
    assert state(palace) == before


# --------------------------------------------------------------------------- $EDITOR

EDITOR = """\
import sys
from pathlib import Path
path = Path(sys.argv[1])
path.write_text(path.read_text().replace({old!r}, {new!r}))
"""


def editor(tmp_path: Path, old: str, new: str) -> str:
    script = tmp_path / "editor.py"
    script.write_text(EDITOR.format(old=old, new=new))
    return f"{sys.executable} {script}"


def test_edit_in_editor_validates_and_commits(
    palace: Path, run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", editor(tmp_path, "To release:", "To ship:"))
    code, stdout, stderr = run_cli(
        "--palace", palace, "edit", DEPLOY, "--reason", "wording", "--json"
    )
    assert code == 0, stderr
    assert "To ship:" in (palace / DEPLOY).read_text()
    assert committed(palace) <= {DEPLOY, "INDEX.md"} and DEPLOY in committed(palace)
    assert json.loads(stdout)["action"] == "edit"
    check_index(run_cli, palace)


def test_edit_that_fails_validation_is_kept_aside(
    palace: Path, run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", editor(tmp_path, "type: project", "type: opinion"))
    before = state(palace)
    code, _, stderr = run_cli("--palace", palace, "edit", DEPLOY, "--yes")
    assert code == 2 and "does not validate" in stderr and ".curator/edits/" in stderr
    kept = list((palace / ".curator/edits").glob("deploy-on-version-tags*.md"))
    assert any("type: opinion" in p.read_text() for p in kept)
    files, _, head = state(palace)
    files = {k: v for k, v in files.items() if not k.startswith(".curator/edits/")}
    assert (files, head) == (before[0], before[2])
    assert git(palace, "status", "--porcelain").stdout == ""


# --------------------------------------------------------------------------- identity


def test_commits_with_a_default_identity_when_git_has_none(palace: Path, tmp_path: Path) -> None:
    home = tmp_path / "empty-home"
    home.mkdir()
    env = curator_env(
        HOME=str(home),
        GIT_CONFIG_GLOBAL="/dev/null",
        GIT_CONFIG_NOSYSTEM="1",
        XDG_CONFIG_HOME=str(home / ".config"),
    )
    for var in IDENTITY_VARS:
        env.pop(var, None)
    assert (
        subprocess.run(
            ["git", "config", "--local", "--get", "user.name"], cwd=palace, capture_output=True
        ).returncode
        == 1
    )  # no repo-level identity
    proc = curator(palace, "promote", STRIPE, "--confidence", "0.8", "--yes", env=env)
    assert proc.returncode == 0, proc.stderr
    assert git(palace, "log", "-1", "--format=%an <%ae>").stdout.strip() == (
        "curator <curator@localhost>"
    )
    proc = curator(palace, "history", "--json", env=env)
    assert json.loads(proc.stdout)[0]["author"] == "curator <curator@localhost>"


# --------------------------------------------------------------------------- crash

KILL_PROMOTE = """
import os, signal, sys
from pathlib import Path
sys.path.insert(0, {repo!r})
from curator.model.palace import Palace
from curator.writer.apply import apply_plan
from curator.writer.actions.promote import plan_promote

root = Path(sys.argv[1])
plan = plan_promote(Palace.open(root), sys.argv[2], confidence=0.8)
print(plan.notes[0], flush=True)

renames = []

def audit(event, args):  # killed at a real moment of the work, found by audit events
    stage = sys.argv[3]
    if event == "os.rename" and "/.curator/" not in str(args[1]):
        renames.append(args[1])
        if stage == "file-done" and len(renames) == 2:
            os.kill(os.getpid(), signal.SIGKILL)
    elif event == "subprocess.Popen" and stage == "files-done" and "commit" in args[1]:
        os.kill(os.getpid(), signal.SIGKILL)

sys.addaudithook(audit)
apply_plan(root, plan)
"""


@pytest.mark.parametrize(
    ("stage", "outcome"), [("files-done", "completed"), ("file-done", "rolled back")]
)
def test_promote_killed_mid_apply_is_recovered_and_the_draft_never_lost(
    palace: Path, run_cli: RunCli, stage: str, outcome: str
) -> None:
    draft = (palace / STRIPE).read_bytes()
    head = git(palace, "rev-parse", "HEAD").stdout.strip()
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            KILL_PROMOTE.format(repo=str(REPO_ROOT)),
            str(palace),
            STRIPE,
            stage,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == -9, proc.stderr
    note = proc.stdout.strip()
    code, stdout, stderr = run_cli("--palace", palace, "recover")
    assert code == 0, stderr
    assert outcome in stdout and "promote" in stdout
    parked = palace / ".curator/promoted" / Path(STRIPE).name
    if outcome == "completed":
        assert parked.read_bytes() == draft and (palace / note).exists()
        assert not (palace / STRIPE).exists()
        assert committed(palace) == {note, "INDEX.md"}
        check_index(run_cli, palace)
    else:
        assert (palace / STRIPE).read_bytes() == draft
        assert not (palace / note).exists() and not parked.exists()
        assert git(palace, "rev-parse", "HEAD").stdout.strip() == head
    assert git(palace, "status", "--porcelain").stdout == ""
    code, stdout, _ = run_cli("--palace", palace, "recover")
    assert "Nothing to recover" in stdout
