"""The auditor's command runner against hostile verify commands, with real processes.

Each hostile test runs with and without bubblewrap (when bwrap is installed), because the
rlimits, clean environment and process-group kill must hold on their own.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import threading
import uuid
from pathlib import Path

import pytest

from curator.audit import policy
from curator.audit.policy import DEFAULT_ALLOW, check
from curator.audit.runner import RunLimits, RunResult, Sandbox, clean_output, run_command

HAVE_BWRAP = shutil.which("bwrap", path="/usr/bin:/bin") is not None
SANDBOXES: list[Sandbox] = ["none", "bwrap"] if HAVE_BWRAP else ["none"]
FAST = RunLimits(wall_seconds=3.0, cpu_seconds=1)

pytestmark = pytest.mark.slow


def _procs_with(marker: str) -> list[int]:
    """Live processes whose command line contains `marker`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline:
            found.append(int(entry))
    return found


# --- policy ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["rm", "-rf", "/"],
        ["sh", "-c", "rm -rf ~"],
        ["python", "-c", "import os; os.system('id')"],
        ["/bin/ls"],
        ["./ls"],
        ["git", "-c", "core.pager=touch pwned", "log"],
        ["git", "-ccore.pager=x", "log"],
        ["git", "log", "-c", "core.pager=x"],
        ["git", "--config-env=core.pager=X", "log"],
        ["git", "-C", "/", "status"],
        ["git", "--git-dir=/etc", "log"],
        ["git", "--work-tree", "/", "status"],
        ["git", "--exec-path=/tmp", "status"],
        ["git", "-p", "log"],
        ["git", "--paginate", "log"],
        ["git", "push"],
        ["git", "commit", "-m", "x"],
        ["git", "log", "--output=/tmp/x"],
        ["git", "log", "--outp=/tmp/x"],  # git accepts abbreviated long options
        ["git", "log", "--output", "/tmp/x"],
        ["git", "diff", "--ext-diff"],
        ["git", "show", "--textconv", "HEAD"],
        ["git", "diff", "--no-index", "/etc/passwd", "/etc/group"],
        ["git", "log", "--pager=less"],
        ["git"],
        ["find", ".", "-exec", "rm", "{}", ";"],
        ["find", ".", "-execdir", "sh", ";"],
        ["find", ".", "-ok", "rm", ";"],
        ["find", ".", "-delete"],
        ["find", ".", "-fprint", "/tmp/x"],
        ["find", ".", "-fls", "/tmp/x"],
        ["rg", "--pre", "sh", "x"],
        ["rg", "--pre=sh", "x"],
        ["rg", "--pre-glob=*", "x"],
        ["grep", "-r", "x", "/"],
        ["grep", "-rn", "x", "."],
        ["grep", "--recursive", "x"],
        ["ls", "--output=x"],
        ["ls", "bad\0arg"],
    ],
)
def test_policy_refuses(argv: list[str]) -> None:
    decision = check(argv, DEFAULT_ALLOW)
    assert not decision.allowed
    assert decision.reason


@pytest.mark.parametrize(
    "argv",
    [
        ["test", "-f", "README.md"],
        ["ls", "-la"],
        ["stat", "pyproject.toml"],
        ["grep", "-n", "curator", "README.md"],
        ["grep", "-e", "-r", "README.md"],  # -r here is the pattern, not an option
        ["grep", "-ferr", "README.md"],
        ["rg", "--search-zip", "x"],
        ["git", "status", "--porcelain"],
        ["git", "--no-pager", "log", "--oneline", "-n", "3", "-p"],
        ["git", "show", "--stat", "HEAD"],
        ["git", "diff", "--no-ext-diff", "--no-textconv", "--exit-code"],
        ["git", "ls-files", "--exclude-standard"],
        ["git", "rev-parse", "HEAD"],
        ["find", ".", "-name", "*.md", "-print"],
    ],
)
def test_policy_allows_read_only(argv: list[str]) -> None:
    assert check(argv, DEFAULT_ALLOW) == policy.PolicyDecision(True, "allowed")


def test_policy_reason_names_the_problem() -> None:
    assert check(["find", ".", "-exec", "x", ";"], DEFAULT_ALLOW).reason == (
        "find -exec is not allowed"
    )
    assert "not on the allowlist" in check(["rm", "-rf", "/"], DEFAULT_ALLOW).reason


@pytest.mark.parametrize("bad", [None, "ls -la", ("ls",), [], ["ls", 3], [b"ls"]])
def test_malformed_argv_is_a_programmer_error(bad: object, tmp_path: Path) -> None:
    with pytest.raises((TypeError, ValueError)):
        check(bad, DEFAULT_ALLOW)  # type: ignore[arg-type]
    with pytest.raises((TypeError, ValueError)):
        run_command(bad, tmp_path, allow=DEFAULT_ALLOW)  # type: ignore[arg-type]


# --- refused commands never run ----------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["touch", "{m}"],
        ["sh", "-c", "echo x > {m}"],
        ["python3", "-c", "open('{m}', 'w').write('x')"],
        ["git", "-c", "core.pager=touch {m}", "log"],
        ["find", ".", "-exec", "touch", "{m}", ";"],
    ],
)
def test_refused_command_is_skipped_not_run(argv: list[str], tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    argv = [a.replace("{m}", str(marker)) for a in argv]
    result = run_command(argv, tmp_path, allow=DEFAULT_ALLOW)
    assert result.status == "skipped"
    assert result.reason.startswith("skipped by policy: ")
    assert result.exit_code is None
    assert not marker.exists()


# --- hostile commands that are allowed ---------------------------------------------------------


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_cannot_write_a_file(sandbox: Sandbox, tmp_path: Path) -> None:
    src = tmp_path / "src.txt"
    src.write_text("secret content\n" * 100)
    dst = tmp_path / "dst.txt"
    result = run_command(["cp", str(src), str(dst)], tmp_path, allow=["cp"], sandbox=sandbox)
    assert result.status in ("killed", "fail"), result
    assert not dst.exists() or dst.stat().st_size == 0
    if sandbox == "none":  # RLIMIT_FSIZE=0 alone: SIGXFSZ on the first write
        assert result.status == "killed"
        assert "writing a file" in result.reason


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_sleep_forever_is_killed_at_wall_limit(sandbox: Sandbox, tmp_path: Path) -> None:
    limits = RunLimits(wall_seconds=1.0)
    result = run_command(
        ["sleep", "1000"], tmp_path, allow=["sleep"], limits=limits, sandbox=sandbox
    )
    assert result.status == "timeout"
    assert result.reason == "killed after 1 s wall-clock limit"


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_children_that_outlive_the_program_are_killed(sandbox: Sandbox, tmp_path: Path) -> None:
    marker = f"1000.{uuid.uuid4().int % 10**9}"  # a unique `sleep` argument to find in /proc
    script = f"sleep {marker} & sleep {marker} & echo started"
    result = run_command(["sh", "-c", script], tmp_path, allow=["sh"], sandbox=sandbox)
    assert result.status == "pass"
    assert result.output == "started\n"
    assert _procs_with(marker) == []


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_children_are_killed_with_a_hung_parent(sandbox: Sandbox, tmp_path: Path) -> None:
    marker = f"1000.{uuid.uuid4().int % 10**9}"
    script = f"sleep {marker} & sleep {marker} & sleep {marker}"
    limits = RunLimits(wall_seconds=1.0)
    result = run_command(
        ["sh", "-c", script], tmp_path, allow=["sh"], limits=limits, sandbox=sandbox
    )
    assert result.status == "timeout"
    assert _procs_with(marker) == []


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_big_output_is_capped(sandbox: Sandbox, tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_bytes(b"0123456789abcdef" * (10_000_000 // 16))
    result = run_command(["cat", str(big)], tmp_path, allow=["cat"], sandbox=sandbox)
    assert result.status == "pass"  # drained, so the real exit code survives
    assert result.truncated
    assert len(result.output) == 64 * 1024
    assert result.duration < 3.0


def test_endless_output_is_killed_quickly(tmp_path: Path) -> None:
    limits = RunLimits(output_bytes=1024, drain_bytes=1024 * 1024)
    result = run_command(["yes"], tmp_path, allow=["yes"], limits=limits)
    assert result.status == "killed"
    assert "output" in result.reason
    assert result.truncated
    assert len(result.output) <= 1024
    assert result.duration < 3.0


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_escape_sequences_are_stripped(sandbox: Sandbox, tmp_path: Path) -> None:
    fmt = r"\033]0;pwned title\007\033[31mred\033[0m\033P1;2q\033\\ ok\r\n\033(B\xc2\x9b2J\tz\n"
    result = run_command(["printf", fmt], tmp_path, allow=["printf"], sandbox=sandbox)
    assert result.status == "pass"
    assert result.output == "red ok\n\tz\n"


def test_clean_output_unit() -> None:
    raw = b"a\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\b\x07\x08c\xc2\x9b31md\xe2\x80\xaee\x1b"
    # the same cleaning as everywhere else: escapes dropped, bidi overrides shown as markers
    assert clean_output(raw) == "alinkbcd<RLO>e"


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_environment_does_not_leak_secrets(
    sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-do-not-leak-12345")
    monkeypatch.setenv("PYTHONPATH", "/nowhere")
    result = run_command(["env"], tmp_path, allow=["env"], sandbox=sandbox)
    assert result.status == "pass"
    assert "sk-test" not in result.output
    names = {line.split("=", 1)[0] for line in result.output.splitlines()}
    names.discard("PWD")  # bwrap --chdir sets it; harmless
    assert names == {
        "PATH", "HOME", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL", "GIT_TERMINAL_PROMPT", "LC_ALL",
        "GIT_OPTIONAL_LOCKS", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0",
    }  # fmt: skip
    home = next(line for line in result.output.splitlines() if line.startswith("HOME="))[5:]
    assert not Path(home).exists()  # the temporary HOME is removed afterwards
    leak = run_command(["printenv", "OPENAI_API_KEY"], tmp_path, allow=["printenv"])
    assert leak.status == "fail"
    assert "sk-test" not in leak.output


def test_repo_config_cannot_make_git_run_programs(tmp_path: Path) -> None:
    """A hostile .git/config (fsmonitor, external diff, textconv) must not run anything."""
    repo = tmp_path / "repo"
    repo.mkdir()
    marker = tmp_path / "pwned"
    evil = f"touch {marker}; false"

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)

    git("init", "-q")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x")
    (repo / "a.txt").write_text("one\n")
    git("add", "a.txt")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "a")
    (repo / "a.txt").write_text("two\n")
    (repo / ".gitattributes").write_text("*.txt diff=evil\n")
    git("config", "core.fsmonitor", evil)
    git("config", "diff.external", evil)
    git("config", "diff.evil.textconv", evil)
    argvs = (["git", "status"], ["git", "diff"], ["git", "log", "-p"], ["git", "show"])
    for argv, sandbox in itertools.product(argvs, SANDBOXES):
        result = run_command(argv, repo, allow=DEFAULT_ALLOW, sandbox=sandbox)
        assert result.status == "pass", (argv, result)
        assert not marker.exists(), argv
    shown = run_command(["git", "diff"], repo, allow=DEFAULT_ALLOW, sandbox="none")
    assert "+two" in shown.output
    assert shown.argv == ["git", "diff"]  # the report shows the note's command as written


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_cpu_hog_is_killed_by_cpu_limit(sandbox: Sandbox, tmp_path: Path) -> None:
    limits = RunLimits(wall_seconds=5.0, cpu_seconds=1)
    result = run_command(
        ["sha256sum", "/dev/zero"], tmp_path, allow=["sha256sum"], limits=limits, sandbox=sandbox
    )
    assert result.status == "killed"
    assert "CPU limit" in result.reason  # not the 5 s wall limit (no timing asserted: flaky)


@pytest.mark.skipif(shutil.which("python3", path="/usr/bin:/bin") is None, reason="no python3")
def test_memory_hog_is_stopped(tmp_path: Path) -> None:
    result = run_command(
        ["python3", "-c", "x = bytearray(1 << 30); print('allocated')"],
        tmp_path,
        allow=["python3"],
        limits=FAST,
    )
    assert result.status in ("fail", "killed")
    assert "allocated" not in result.output


def test_stdin_is_closed(tmp_path: Path) -> None:
    result = run_command(["cat"], tmp_path, allow=["cat"], limits=FAST)
    assert result.status == "pass"
    assert result.duration < 2.0


# --- ordinary results --------------------------------------------------------------------------


def test_pass_fail_and_expect(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("hello\n")
    ok = run_command(["ls"], tmp_path, allow=DEFAULT_ALLOW, expect="notes.md")
    assert (ok.status, ok.exit_code, ok.reason) == ("pass", 0, "exited 0")
    assert ok.argv == ["ls"]
    missing = run_command(["ls"], tmp_path, allow=DEFAULT_ALLOW, expect="other.md")
    assert missing.status == "fail"
    assert missing.reason == "output did not contain 'other.md'"
    bad = run_command(["test", "-f", "nope.md"], tmp_path, allow=DEFAULT_ALLOW)
    assert (bad.status, bad.exit_code, bad.reason) == ("fail", 1, "exited 1")


def test_program_not_found_is_an_error(tmp_path: Path) -> None:
    result = run_command(["no-such-program-xyz"], tmp_path, allow=["no-such-program-xyz"])
    assert result.status == "error"
    assert "not found" in result.reason


def test_runs_from_a_thread(tmp_path: Path) -> None:
    results: list[RunResult] = []

    def work() -> None:
        results.append(run_command(["ls"], tmp_path, allow=DEFAULT_ALLOW))
        results.append(run_command(["sleep", "100"], tmp_path, allow=["sleep"],
                                   limits=RunLimits(wall_seconds=0.5)))  # fmt: skip

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert sorted(r.status for r in results) == ["pass"] * 3 + ["timeout"] * 3


# --- sandbox -----------------------------------------------------------------------------------


def test_required_bwrap_missing_is_a_loud_error(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    missing = str(tmp_path / "no-bwrap-here")
    result = run_command(
        ["touch", str(marker)], tmp_path, allow=["touch"], sandbox="bwrap", bwrap=missing
    )
    assert result.status == "error"
    assert "sandbox failed" in result.reason
    assert not marker.exists()  # no silent fallback to running unsandboxed


@pytest.mark.skipif(HAVE_BWRAP, reason="bwrap is installed")
def test_required_bwrap_not_installed(tmp_path: Path) -> None:
    result = run_command(["ls"], tmp_path, allow=["ls"], sandbox="bwrap")
    assert result.status == "error"
    assert "sandbox failed" in result.reason


@pytest.mark.skipif(not HAVE_BWRAP, reason="bwrap is not installed")
@pytest.mark.parametrize("sandbox", ["auto", "bwrap"])
def test_bwrap_setup_failure_is_a_loud_error(sandbox: Sandbox, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    # the real bwrap, asked to bind a folder that does not exist: its setup fails
    broken = tmp_path / "bwrap-broken"
    real = shutil.which("bwrap")
    broken.write_text(f'#!/bin/sh\nexec {real} --ro-bind /no/such/dir/curator /mnt "$@"\n')
    broken.chmod(0o755)
    result = run_command(
        ["touch", str(marker)], tmp_path, allow=["touch"], sandbox=sandbox, bwrap=str(broken)
    )
    assert result.status == "error"
    assert "sandbox failed" in result.reason
    assert not marker.exists()


@pytest.mark.skipif(not HAVE_BWRAP, reason="bwrap is not installed")
def test_bwrap_root_is_read_only(tmp_path: Path) -> None:
    # touch creates an empty file, which RLIMIT_FSIZE does not stop; the read-only bind does.
    marker = tmp_path / "created"
    result = run_command(["touch", str(marker)], tmp_path, allow=["touch"], sandbox="bwrap")
    assert result.status == "fail"
    assert "Read-only file system" in result.output
    assert not marker.exists()


def test_bad_sandbox_setting_is_a_programmer_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        run_command(["ls"], tmp_path, allow=["ls"], sandbox="docker")  # type: ignore[arg-type]


def test_sandbox_notice_says_when_commands_run_unsandboxed() -> None:
    from curator.audit.sandbox import notice

    assert "sandbox" in (notice("none") or "")
    if HAVE_BWRAP:
        assert notice("auto") is None
        assert notice("bwrap") is None
    else:
        assert "apt-get install bubblewrap" in (notice("auto") or "")
        assert "not installed" in (notice("bwrap") or "")
