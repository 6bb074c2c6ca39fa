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
import textwrap
from pathlib import Path

import pytest

from tests.conftest import RunCli, git, git_init_commit

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


def curator(root: Path, *args: str, env: dict[str, str] | None = None, stdin: str = "",
            ) -> subprocess.CompletedProcess[str]:
    """`curator ARGS` as a separate process (stdin is a pipe, not a TTY)."""
    return subprocess.run(
        [sys.executable, "-m", "curator", *args], cwd=root, input=stdin, capture_output=True,
        text=True, timeout=60, env=env or curator_env(),
    )


@pytest.fixture
def palace(sample_palace: Path, run_cli: RunCli) -> Path:
    """The sample palace with a current INDEX.md committed (so `index --check` starts at 0)."""
    code, _, stderr = run_cli("--palace", sample_palace, "index", "--yes")
    assert code == 0, stderr
    return sample_palace


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
    code, stdout, _ = run_cli("--palace", palace, "promote", STRIPE, "--confidence", "0.8",
                              "--dry-run")
    assert code == 0
    assert "promote: Stripe keeps retrying" in stdout
    assert f"rename {STRIPE} -> .curator/promoted/" in stdout
    assert "+++ b/notes/reference/stripe-keeps-retrying" in stdout
    assert "INDEX.md" in stdout
    code, stdout, _ = run_cli("--palace", palace, "retire", DEPLOY, "--reason", "x",
                              "--dry-run", "--json")
    data = json.loads(stdout)
    assert code == 0 and data["dry_run"] is True and data["action"] == "retire"
    assert DEPLOY in data["paths"] and "Curator-Action: retire" in data["message"]
    assert "+status: superseded" in data["diff"]
    assert state(palace) == before


# --------------------------------------------------------------------------- concurrency


def test_two_processes_promoting_different_drafts_both_commit(palace: Path,
                                                               run_cli: RunCli) -> None:
    head = git(palace, "rev-parse", "HEAD").stdout.strip()
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "curator", "promote", draft, "--confidence", "0.8", "--yes",
             "--json"],
            cwd=palace, env=curator_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
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
