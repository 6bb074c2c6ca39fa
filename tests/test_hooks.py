"""`curator hook ...` as Claude Code runs it: a subprocess, the documented event JSON on stdin,
hook JSON on stdout, always exit 0 (missing palace, broken palace, damaged or locked index, a
timeout), one stderr line on failure, and a log line for every run."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from agenthelpers import HASH_TOML, run_hook, warm_server
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from palacehelpers import MakePalace, git, git_init_commit, note_text, run_main

from curator.agents import hooklog, hookrun, hooks, install, turns, warm

TOML = HASH_TOML + '\n[scopes.app]\nroot = "workspace/app"\n\n[scopes.vault]\nsensitive = true\n'
STALE = 'stale: {reason: "the queue moved to SQS", since: 2026-11-20}\n'


@pytest.fixture(autouse=True)
def no_warm_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CURATOR_HOOK_WARM", "0")
    monkeypatch.setenv("CURATOR_HOOK_BUDGET", "60")  # a loaded test machine; one test lowers it


@pytest.fixture
def root(make_palace: MakePalace) -> Path:
    root = make_palace(
        {
            "notes/project/queue.md": note_text(
                "Billing queue is RabbitMQ",
                body="The billing worker reads jobs from the RabbitMQ billing queue.\n",
                extra=f"scope: app\nconfidence: 0.9\n{STALE}",
            ),
            "notes/project/freeze.md": note_text(
                "Deploy freeze until filing",
                body="No deploys of the billing worker until the VAT filing.\n",
                extra="scope: app\nexpires: 2020-01-31\nconfidence: 0.9\n",
            ),
            "notes/project/other.md": note_text(
                "Other project stale",
                body="Unrelated.\n",
                extra=f"scope: vault\n{STALE}",
            ),
            "notes/feedback/retries.md": note_text(
                "Billing worker retries are idempotent",
                type="feedback",
                body="Every billing worker retry records the job id before doing anything.\n",
                extra="confidence: 0.95\n",
            ),
            "inbox/2026-01-02-draft.md": note_text(
                "A draft", body="Unreviewed.\n", extra="status: draft\n"
            ),
            "workspace/app/main.py": "print('hi')\n",
        },
        toml=TOML,
    )
    return root


def run(
    root: Path | None,
    tool: str,
    event: str,
    payload: dict[str, object] | str,
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    args = [sys.executable, "-m", "curator"]
    if root is not None:
        args += ["--palace", str(root)]
    stdin = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run(
        [*args, "hook", tool, event],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        timeout=60,
    )


def event(name: str, cwd: Path, **fields: object) -> dict[str, object]:
    """The fields Claude Code's hooks reference documents for every event, plus `fields`."""
    return {
        "session_id": "abc123",
        "transcript_path": str(cwd / "transcript.jsonl"),
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": name,
        **fields,
    }


def context(proc: subprocess.CompletedProcess[str], name: str) -> str:
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == name
    text = out["hookSpecificOutput"]["additionalContext"]
    assert len(text) <= 10_000
    return str(text)


@pytest.mark.parametrize("source", ["startup", "resume", "clear", "compact"])
def test_session_start(root: Path, source: str) -> None:
    project = root / "workspace" / "app"
    proc = run(root, "claude-code", "SessionStart", event("SessionStart", project, source=source))
    text = context(proc, "SessionStart")
    # the file lists a hidden note (other.md): the agent is pointed to the served view
    assert "index --served" in text and str(root / "INDEX.md") not in text
    assert "before working a fact out again" in text.lower()
    assert "notes/project/queue.md" in text and "stale" in text
    assert "notes/project/freeze.md" in text and "expired" in text
    assert "other.md" not in text  # another (and sensitive) scope
    assert "Inbox: 1 draft" in text
    assert "task checkpoint" in text  # the tasks area's lines (curator.agents.tasks_tools)
    assert proc.stderr == ""


def test_user_prompt_submit_packs_hints(root: Path) -> None:
    payload = event("UserPromptSubmit", root, prompt="make the billing worker retries safe")
    text = context(run(root, "claude-code", "UserPromptSubmit", payload), "UserPromptSubmit")
    assert "notes/feedback/retries.md" in text and "hint, not truth" in text
    assert "queue.md" not in text.split("left out as stale")[-1].split("\n", 1)[-1]
    records = hooklog.read(root)
    assert records[-1]["event"] == "UserPromptSubmit" and records[-1]["outcome"] == "ok"
    assert records[-1]["items"] >= 1 and records[-1]["ms"] > 0


def test_user_prompt_with_nothing_above_the_floor_gives_nothing(root: Path) -> None:
    payload = event("UserPromptSubmit", root, prompt="zyxxy quokka saxophone")
    proc = run(root, "claude-code", "UserPromptSubmit", payload)
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    assert hooklog.read(root)[-1]["outcome"] == "empty"


def test_stop_warns_when_files_changed_and_nothing_was_captured(root: Path) -> None:
    """A turn's record across hooks (what each says, not how its process runs: in this
    process, `agenthelpers.run_hook`)."""
    project = root / "workspace" / "app"
    prompt = event("UserPromptSubmit", project, prompt="billing worker retries")
    stop = event("Stop", project, stop_hook_active=False)
    assert run_hook(root, "claude-code", "UserPromptSubmit", prompt).returncode == 0
    quiet = run_hook(root, "claude-code", "Stop", stop)
    assert quiet.returncode == 0 and quiet.stdout == ""  # nothing changed this turn

    run_hook(root, "claude-code", "UserPromptSubmit", prompt)
    (project / "main.py").write_text("print('changed')\n")
    proc = run_hook(root, "claude-code", "Stop", stop)
    assert proc.returncode == 0
    out = json.loads(proc.stdout)
    # the person's part is short; the agent's part waits for the model's next prompt
    assert "nothing captured" in out["systemMessage"] and "decision" not in out
    assert len(out["systemMessage"]) < 100 and "hookSpecificOutput" not in out
    nxt = json.loads(run_hook(root, "claude-code", "UserPromptSubmit", prompt).stdout)
    context = nxt["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("curator: the last turn changed files") and "capture" in context
    again = run_hook(root, "claude-code", "UserPromptSubmit", prompt).stdout
    assert "the last turn changed files" not in again  # told once
    active = run_hook(root, "claude-code", "Stop", {**stop, "stop_hook_active": True})
    assert active.stdout == ""

    run_hook(root, "claude-code", "UserPromptSubmit", prompt)
    (project / "main.py").write_text("print('changed again')\n")
    (root / "inbox" / "2026-12-01-learnt.md").write_text(
        note_text("Learnt", body="x\n", extra="status: draft\n")
    )
    assert run_hook(root, "claude-code", "Stop", stop).stdout == ""  # captured: no warning


def test_the_warm_server_marks_a_turn_after_its_answer_is_sent(root: Path) -> None:
    """A caller that defers (the warm server) gets the prompt's answer before the turn's mark
    (a git status of the project, which on a busy machine took CPU from the pack) runs."""
    from curator.agents.service import Memory

    project = root / "workspace" / "app"
    data = event("UserPromptSubmit", project, prompt="billing worker retries")
    later: list[Callable[[], None]] = []
    memory = Memory(root)
    try:
        reply = hooks.answer(memory, {"tool": "claude-code", "event": data["hook_event_name"],
                                      "data": data}, later=later)  # fmt: skip
    finally:
        memory.close()
    assert "retries.md" in "\n".join(reply["lines"]) and len(later) == 1
    session = hooks.session_key(data)
    assert turns.read(root, session) is None  # not marked while the answer was made
    later[0]()
    marked = turns.read(root, session)
    assert marked is not None and marked["state"] == turns.project_state(project)


def test_generic_prints_markdown(root: Path) -> None:
    proc = run(root, "generic", "UserPromptSubmit", "make the billing worker retries safe")
    assert proc.returncode == 0 and proc.stdout.startswith("# Memory pack")
    proc = run(root, "generic", "session-start", {"cwd": str(root)})
    assert proc.returncode == 0 and "INDEX.md" in proc.stdout and not proc.stdout.startswith("{")


def one_line_failure(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 0 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


def test_missing_palace_exits_zero_with_one_line(tmp_path: Path) -> None:
    empty = tmp_path / "nowhere"
    empty.mkdir()
    for name in hooks.EVENTS:
        proc = run(None, "claude-code", name, event(name, empty, prompt="x"), cwd=empty)
        assert "no palace found" in one_line_failure(proc)


def test_a_failure_line_carries_no_terminal_escapes_from_the_agent(tmp_path: Path) -> None:
    """The stderr line reaches the person's terminal: an event's cwd (the agent's input)
    naming no palace is shown there without its escape sequences (a title set, colours)."""
    cwd = f"{tmp_path}/\x1b]0;pwned\x07\x1b[31mred\x9b31m"
    proc = run(None, "claude-code", "UserPromptSubmit", {"cwd": cwd, "prompt": "x"}, cwd=tmp_path)
    line = one_line_failure(proc)
    assert "no palace found" in line and "red" in line
    assert not any(ch in line for ch in "\x1b\x07\x9b"), repr(line)


def test_broken_palace_toml_exits_zero(root: Path) -> None:
    (root / "palace.toml").write_text("[palace\nname = ")
    proc = run(root, "claude-code", "SessionStart", event("SessionStart", root, source="startup"))
    assert "palace.toml" in one_line_failure(proc)
    (root / "palace.toml").write_text(TOML + "\n[agents]\npack_floor = 7\n")
    proc = run(root, "claude-code", "UserPromptSubmit", event("UserPromptSubmit", root, prompt="x"))
    assert "pack_floor" in one_line_failure(proc)


def test_broken_note_still_answers(root: Path) -> None:
    (root / "notes" / "project" / "broken.md").write_bytes(b"---\nname: [unclosed\n---\n\xff\n")
    payload = event("UserPromptSubmit", root, prompt="make the billing worker retries safe")
    assert "retries.md" in context(
        run(root, "claude-code", "UserPromptSubmit", payload), "UserPromptSubmit"
    )


def test_damaged_index_exits_zero(root: Path) -> None:
    built = run_main(root, "--palace", str(root), "reindex")  # the set-up, not what is tested
    assert built.returncode == 0, built.stderr
    index = root / ".curator" / "index"
    for path in index.rglob("*"):
        if path.is_file():
            path.write_bytes(b"\x00garbage")
    payload = event("UserPromptSubmit", root, prompt="billing worker retries")
    with warm_server(root):  # the warm server opens the damaged index
        proc = run(root, "claude-code", "UserPromptSubmit", payload, env={"CURATOR_HOOK_WARM": "1"})
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) <= 1
    assert "retries.md" in context(proc, "UserPromptSubmit")
    assert hooklog.read(root)[-1]["via"] == "warm"


def test_locked_writer_exits_zero(root: Path) -> None:
    import fcntl

    (root / ".curator").mkdir(exist_ok=True)
    with open(root / ".curator" / "writer.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        payload = event("UserPromptSubmit", root, prompt="billing worker retries")
        proc = run(
            root, "claude-code", "UserPromptSubmit", payload, env={"CURATOR_HOOK_BUDGET": "20"}
        )
        assert proc.returncode == 0 and "Traceback" not in proc.stderr


def test_timeout_exits_zero_and_logs_it(root: Path) -> None:
    payload = event("UserPromptSubmit", root, prompt="billing worker retries")
    proc = run(
        root, "claude-code", "UserPromptSubmit", payload, env={"CURATOR_HOOK_BUDGET": "0.01"}
    )
    assert "timed out" in one_line_failure(proc)  # the budget, not the search, ended it
    record = hooklog.read(root)[-1]
    assert record["outcome"] == "timeout" and record["outcome"] != "ok"


def test_unknown_event_and_garbage_stdin_exit_zero(root: Path) -> None:
    assert "unknown event" in one_line_failure(run(root, "claude-code", "Nonsense", {}))
    proc = run(root, "claude-code", "SessionStart", "\x00{not json")
    assert proc.returncode == 0 and "INDEX.md" in proc.stdout


def test_hook_log_command(root: Path) -> None:
    """What the log keeps of each run (the runs in this process, `agenthelpers.run_hook`)."""
    run_hook(root, "claude-code", "SessionStart", event("SessionStart", root, source="startup"))
    run_hook(root, "claude-code", "Nonsense", {})
    prompt = event("UserPromptSubmit", root, prompt="billing worker retries")
    run_hook(root, "claude-code", "UserPromptSubmit", prompt)
    proc = run_main(root, "--palace", str(root), "hook", "log", "--json")
    assert proc.returncode == 0, proc.stderr
    runs = json.loads(proc.stdout)["runs"]
    assert [r["event"] for r in runs] == ["SessionStart", "UserPromptSubmit"]
    assert {"at", "tool", "event", "ms", "items", "outcome"} <= set(runs[0])
    assert runs[1]["ranked"] == "palace"  # no warm server here: ranked without the index
    text = run_main(root, "--palace", str(root), "hook", "log").stdout
    assert "SessionStart" in text and "ok" in text and "process/palace" in text


def test_contributors_add_lines_and_their_failures_are_logged(root: Path) -> None:
    def extra(run: hooks.HookRun) -> list[str]:
        return [f"checkpoint for {run.event}"]

    def broken(run: hooks.HookRun) -> list[str]:
        raise RuntimeError("tasks store unreadable")

    hooks.register_context("SessionStart", extra)
    hooks.register_context("SessionStart", broken)
    try:
        payload = json.dumps({"cwd": str(root), "source": "startup"})
        text, failure = hookrun.run_hook("claude-code", "SessionStart", payload, str(root))
    finally:
        hooks.CONTRIBUTORS["SessionStart"].clear()
    context = json.loads(text)["hookSpecificOutput"]["additionalContext"]
    assert "checkpoint for SessionStart" in context and "INDEX.md" in context
    assert failure is not None and "tasks store unreadable" in failure
    assert hooklog.read(root)[-1]["outcome"] == "error"


@pytest.mark.parametrize("lines", [["x" * 80] * 500, ["y" * 50_000], ["z\n" * 9_000]])
def test_output_stays_under_the_cap(lines: list[str]) -> None:
    text = hookrun.render("claude-code", "UserPromptSubmit", lines)
    assert len(json.loads(text)["hookSpecificOutput"]["additionalContext"]) <= 10_000
    assert len(hookrun.render("generic", "UserPromptSubmit", lines)) <= 10_000


def test_warm_server_answers_hooks(root: Path, tmp_path: Path) -> None:
    warm_env = {"CURATOR_HOOK_WARM": "1"}
    with warm_server(root):
        payload = event("UserPromptSubmit", root, prompt="make the billing worker retries safe")
        proc = run(root, "claude-code", "UserPromptSubmit", payload, env=warm_env)
        assert "retries.md" in context(proc, "UserPromptSubmit")
        assert hooklog.read(root)[-1]["via"] == "warm"
        # the installed entry asking the server imports no more than it needs to ask (issue 34)
        loaded = hook_imports(root, payload, warm_env)
        assert hooklog.read(root)[-1]["via"] == "warm"
        heavy = ("curator.agents.hooks", "curator.config", "curator.model.palace", "numpy")
        assert [m for m in loaded if m in heavy or m.startswith("msgspec")] == []
        # nor the standard modules over the C ones it needs (~13 of its ~50 ms of CPU)
        assert [m for m in loaded if m in ("pathlib", "socket", "hashlib", "urllib")] == []
        # run by its path, the entry finds curator where it is installed, after the standard
        # library: a module there named like a standard one shadows nothing
        packages = tmp_path / "site-packages"
        ignore = shutil.ignore_patterns("__pycache__")
        shutil.copytree(Path(hooks.__file__).parents[1], packages / "curator", ignore=ignore)
        (packages / "json.py").write_text("raise ImportError('the standard json, shadowed')\n")
        entry = packages / "curator" / "agents" / "__main__.py"
        proc = subprocess.run(
            [sys.executable, "-S", str(entry), "--palace", str(root), "claude-code", "prompt"],
            input=json.dumps(payload), capture_output=True, text=True,
            env={**os.environ, **warm_env}, timeout=60,
        )  # fmt: skip
        assert "retries.md" in context(proc, "UserPromptSubmit"), proc.stderr
        # the server marks a turn once its answer is sent, and answers a Stop after the marks
        project = root / "workspace" / "app"
        # a session of its own: the prompts above marked theirs after answering too, and one
        # of those marks landing late must not pass for this prompt's
        turn = {"session_id": "turn-after-answer"}
        prompt = event("UserPromptSubmit", project, prompt="billing worker retries", **turn)
        stop = event("Stop", project, stop_hook_active=False, **turn)
        before = turns.read(root, hooks.session_key(prompt))
        assert "retries.md" in context(installed(root, "prompt", prompt, warm_env),
                                       "UserPromptSubmit")  # fmt: skip
        # a Stop is answered after the marks left before it (any session's): the mark is in
        other = event("Stop", project, stop_hook_active=False, session_id="another-session")
        assert installed(root, "Stop", other, warm_env).stdout == ""
        assert turns.read(root, hooks.session_key(prompt)) != before
        (project / "main.py").write_text("print('changed')\n")  # during the turn
        warned = json.loads(installed(root, "Stop", stop, warm_env).stdout)
        assert "nothing captured" in warned["systemMessage"]
        # a Stop sent the moment the prompt's answer is back (no hook process between them to
        # give the mark time) is answered after that mark: nothing changed since (not the
        # turn before's state)
        asked = {"tool": "claude-code", "event": "UserPromptSubmit", "data": prompt}
        assert "retries.md" in "\n".join(warm.ask(root, asked, 60)["lines"])
        assert warm.ask(root, {**asked, "event": "Stop", "data": stop}, 60)["lines"] == []
        assert hooklog.read(root)[-1]["via"] == "warm"
        # a new note is seen without restarting the server
        (root / "notes" / "project" / "zq.md").write_text(
            note_text(
                "Quokka saxophone rule",
                body="Quokka saxophone tuning is weekly.\n",
                extra="confidence: 0.9\n",
            )
        )
        payload = event("UserPromptSubmit", root, prompt="quokka saxophone tuning")
        deadline = time.monotonic() + 30
        while True:  # until the server's watcher has seen the note, not a fixed pause
            proc = run(root, "claude-code", "UserPromptSubmit", payload, env=warm_env)
            text = context(proc, "UserPromptSubmit") if proc.stdout else ""
            if "zq.md" in text or time.monotonic() > deadline:
                break
        assert "zq.md" in text, proc.stdout
        # from the palace alone while the server opens the index again, then from the index
        for _ in range(120):
            proc = run(root, "claude-code", "UserPromptSubmit", payload, env=warm_env)
            assert "zq.md" in context(proc, "UserPromptSubmit")
            if hooklog.read(root)[-1]["ranked"] == "index":
                break
        assert hooklog.read(root)[-1]["ranked"] == "index"


def installed(
    root: Path, name: str, payload: dict[str, object], env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """The hook command `curator hook install` writes, run for the event `name`."""
    command = shlex.split(install.command(hookrun.ALIASES.get(name, name), str(root)))
    return subprocess.run(
        command, input=json.dumps(payload), capture_output=True, text=True,
        env={**os.environ, **env}, timeout=60,
    )  # fmt: skip


def hook_imports(root: Path, payload: dict[str, object], env: dict[str, str]) -> list[str]:
    """The modules the installed hook command's process imports for one prompt (its
    `-X importtime` report), after checking that it answered with memory."""
    command = shlex.split(install.command("UserPromptSubmit", str(root)))
    proc = subprocess.run(
        [command[0], "-X", "importtime", *command[1:]],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=60,
    )
    assert "retries.md" in context(proc, "UserPromptSubmit")
    rows = [line.split("|") for line in proc.stderr.splitlines() if line.startswith("import time")]
    return [row[-1].strip() for row in rows if len(row) == 3]


def test_git_project_state_digest_changes_with_edits(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "a.txt").write_text("a\n")
    git_init_commit(project)
    first = turns.project_state(project)
    assert first is not None and first == turns.project_state(project)
    (project / "a.txt").write_text("b\n")
    second = turns.project_state(project)
    assert second != first
    before = (project / "a.txt").stat().st_mtime_ns
    (project / "a.txt").write_text("c\n")  # same size, same git status: only the time tells
    os.utime(project / "a.txt", ns=(before + 10**6, before + 10**6))  # a coarse clock's tick
    assert turns.project_state(project) != second
    git(project, "commit", "-qam", "c")
    assert turns.project_state(project) not in (first, second)
    assert turns.project_state(tmp_path / "not-a-repo") is None
    assert turns.project_state(tmp_path / "a\0path") is None  # an agent's cwd, never raises


def test_warm_socket_in_a_folder_open_to_others_is_never_used(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = tmp_path / "run"
    runtime.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    path = warm.socket_path(root)
    assert path.parent == runtime / "curator"
    path.parent.mkdir(mode=0o777)
    path.parent.chmod(0o777)
    path.write_text("not a socket")
    assert warm.ask(root, {"event": "Stop", "data": {}}, 1.0) is None
    assert warm.bind(path) is None  # the server refuses to listen there too


_untrusted = st.one_of(
    st.text(max_size=400),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40),
        lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=20), c, max_size=5),
        max_leaves=12,
    ).map(json.dumps),
    st.fixed_dictionaries(
        {},
        optional={
            "prompt": st.text(max_size=200) | st.integers(),
            "cwd": st.text(max_size=40) | st.none(),
            "session_id": st.text(max_size=20) | st.integers(),
            "source": st.text(max_size=10),
            "stop_hook_active": st.booleans() | st.text(max_size=3),
        },
    ).map(json.dumps),
)


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stdin=_untrusted, name=st.sampled_from(["SessionStart", "UserPromptSubmit", "Stop"]))
def test_any_stdin_gives_valid_output_and_never_raises(root: Path, stdin: str, name: str) -> None:
    text, failure = hookrun.run_hook("claude-code", name, stdin, str(root))
    assert failure is None or "\n" not in failure
    if text:
        out = json.loads(text)
        if name == "Stop":
            assert set(out) == {"systemMessage"}
        else:
            assert out["hookSpecificOutput"]["hookEventName"] == name
            assert len(out["hookSpecificOutput"]["additionalContext"]) <= 10_000


def test_turn_records_of_old_sessions_are_swept(root: Path) -> None:
    turns.mark(root, "old", root, time.time())
    old = root / turns.TURN_DIR / "old.json"
    os.utime(old, (time.time() - 30 * 86400,) * 2)
    turns.mark(root, "new", root, time.time())
    assert not old.exists() and (root / turns.TURN_DIR / "new.json").exists()
    assert turns.read(root, "new") is not None and turns.read(root, "old") is None


def test_the_log_keeps_its_last_runs(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hooklog, "MAX_RECORDS", 10)
    monkeypatch.setattr(hooklog, "_MAX_BYTES", 2000)
    for i in range(40):
        hooklog.append(root, {"event": "Stop", "items": i, "outcome": "empty"})
    records = hooklog.read(root, limit=0)
    assert 10 <= len(records) < 40 and records[-1]["items"] == 39
    (root / hooklog.LOG_REL).write_text("not json\n" + json.dumps({"event": "x"}) + "\n[1]\n")
    assert hooklog.read(root) == [{"event": "x"}]


def test_a_busy_warm_server_means_a_timeout_not_a_second_index_open(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setenv("CURATOR_HOOK_WARM", "1")
    monkeypatch.setenv("CURATOR_HOOK_BUDGET", "1")
    path = warm.socket_path(root)
    path.parent.mkdir(mode=0o700)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)  # accepts, never answers: a server still opening a big index
    try:
        payload = json.dumps({"cwd": str(root), "prompt": "billing worker retries"})
        text, failure = hookrun.run_hook("claude-code", "UserPromptSubmit", payload, str(root))
    finally:
        listener.close()
    assert text == "" and failure is not None and "timed out" in failure
    record = hooklog.read(root)[-1]
    assert record["outcome"] == "timeout" and record["via"] == "warm"
    assert not (root / ".curator" / "index").exists()  # no index opened beside the server


def test_the_warm_server_ends_when_its_palace_is_removed(root: Path) -> None:
    """A deleted palace (a scratch copy, a test's temp folder) ends its server within a
    second or so, instead of it idling on for IDLE_SECONDS."""
    with warm_server(root) as server:
        sock = warm.socket_path(root)
        deadline = time.monotonic() + 60
        while root.exists():  # as `rm -rf` run again: the server may finish a write meanwhile
            assert time.monotonic() < deadline, "the palace could not be removed"
            shutil.rmtree(root, ignore_errors=True)
        server.wait(60)  # raises when it still serves; a loaded machine, checked every second
        assert not sock.exists(), "the server left its socket behind"


def test_the_warm_server_ends_when_its_palace_comes_back_as_a_bare_folder(root: Path) -> None:
    """A palace removed while its server still builds the index can come back as a bare
    folder (the build's late write makes its path again): that folder is not the palace, and
    the server ends as it would for the palace gone."""
    with warm_server(root) as server:
        deadline = time.monotonic() + 60
        while root.exists():
            assert time.monotonic() < deadline, "the palace could not be removed"
            shutil.rmtree(root, ignore_errors=True)
        (root / ".curator").mkdir(parents=True)  # as a late write of the index makes it
        server.wait(60)  # raises when it still serves
        assert not warm.socket_path(root).exists(), "the server left its socket behind"


def test_the_first_prompt_answers_without_the_index_and_starts_the_warm_server(
    root: Path,
) -> None:
    import signal

    payload = event("UserPromptSubmit", root, prompt="make the billing worker retries safe")
    try:
        warm_env = {"CURATOR_HOOK_WARM": "1"}
        proc = run(root, "claude-code", "UserPromptSubmit", payload, env=warm_env)
        assert "retries.md" in context(proc, "UserPromptSubmit")
        first = hooklog.read(root)[-1]
        assert (first["via"], first["ranked"]) == ("process", "palace")  # no index opened
        deadline = time.monotonic() + 60
        while not warm.pid_path(root).exists() and time.monotonic() < deadline:
            time.sleep(0.1)  # the server this prompt started comes up
        again = run(
            root, "claude-code", "UserPromptSubmit", payload, env={"CURATOR_HOOK_WARM": "1"}
        )
        assert "retries.md" in context(again, "UserPromptSubmit")
        assert hooklog.read(root)[-1]["via"] == "warm"
    finally:
        deadline = time.monotonic() + 10
        while not warm.pid_path(root).exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        pid = int(warm.pid_path(root).read_text())
        os.kill(pid, signal.SIGTERM)  # the server this test started, by its id
        while warm.socket_path(root).exists() and time.monotonic() < deadline:
            time.sleep(0.1)
    assert not warm.socket_path(root).exists() and not warm.pid_path(root).exists()


@pytest.mark.parametrize(
    ("prompt", "given"),
    [("make the billing worker retries safe", True), ("zyxxy quokka saxophone", False)],
)
def test_a_prompt_is_answered_by_one_index_query(
    root: Path, monkeypatch: pytest.MonkeyPatch, prompt: str, given: bool
) -> None:
    """The pack and the check that a note it may hold shares a word with the prompt come from
    one LanceDB query (two, one of each, were most of the warm server's answer; issue 34)."""
    from curator.agents.service import Memory
    from curator.search.store import IndexStore

    memory = Memory(root)
    try:
        assert memory.searcher.indexed  # the index open, as the warm server holds it
        queries: list[str] = []
        real = IndexStore.hybrid

        def counted(self: IndexStore, text: str, *args: object, **kwargs: object) -> object:
            queries.append(text)
            return real(self, text, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(IndexStore, "hybrid", counted)
        request = {"event": "UserPromptSubmit", "data": {"cwd": str(root), "prompt": prompt}}
        reply = hooks.answer(memory, request)
    finally:
        memory.close()
    assert len(queries) == 1
    assert ("notes/feedback/retries.md" in "\n".join(reply["lines"])) is given
    assert (reply["items"] >= 1) is given and reply["ranked"] == "index"


@pytest.mark.parametrize(
    "argv",
    [
        ["hook", "claude-code", "UserPromptSubmit"],
        ["--palace", "/p", "hook", "generic", "Stop"],
        ["--palace=/p", "hook", "claude-code", "SessionStart"],
        ["hook", "claude-code", "prompt", "--palace", "/q"],
        ["hook", "claude-code", "Stop", "--palace=/q"],
    ],
)
def test_the_hook_command_line_is_read_as_the_parser_reads_it(argv: list[str]) -> None:
    """`curator hook` runs without building the parser of every command (issue 34): what it
    reads from a plain hook command line is what the whole parser reads."""
    from curator.cli import build_parser, hook_run

    args = build_parser().parse_args(argv)
    assert hook_run(argv) == (args.tool, args.event, args.palace)


@pytest.mark.parametrize(
    "argv",
    [
        ["hook", "claude-code", "Stop", "--json"],
        ["--palace", "/p", "hook", "claude-code", "Stop", "--palace", "/q"],
        ["hook", "log"],
        ["hook", "install", "claude-code"],
        ["hook", "claude-code", "-h"],
        ["--palace", "hook", "claude-code", "Stop"],
        ["list"],
    ],
)
def test_other_command_lines_go_to_the_parser(argv: list[str]) -> None:
    from curator.cli import hook_run

    assert hook_run(argv) is None


def test_curator_hook_loads_no_command_module(root: Path) -> None:
    """The `curator hook` entry answers a prompt without importing the command modules, nor
    argparse to build their parser."""
    code = (
        "import contextlib, io, json, sys\n"
        "from curator.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        f"    main(['--palace', {str(root)!r}, 'hook', 'claude-code', 'UserPromptSubmit'])\n"
        "cli = [m for m in sys.modules if m.startswith('curator.cli.') or m == 'argparse']\n"
        "loaded = sorted(cli)\n"
        "print(json.dumps({'out': out.getvalue(), 'loaded': loaded}))\n"
    )
    payload = json.dumps(
        event("UserPromptSubmit", root, prompt="make the billing worker retries safe")
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], input=payload, capture_output=True, text=True, timeout=60
    )
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result["loaded"] == []
    assert "notes/feedback/retries.md" in result["out"]


def test_asking_the_warm_server_reads_no_palace_toml(root: Path) -> None:
    """What a hook does before the warm server answers (find the palace, ask it) loads neither
    the palace nor palace.toml's schema: the answer's process is the server's (issue 34)."""
    code = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from curator.agents import hooks, warm\n"
        "from curator.model.discovery import find_palace\n"
        f"root = find_palace({str(root)!r})\n"
        "warm.ask(root, {'event': 'UserPromptSubmit', 'data': {}}, 1.0)\n"
        "heavy = ('msgspec', 'curator.config', 'curator.model.palace', 'curator.cli')\n"
        "print(json.dumps(sorted(m for m in sys.modules if m in heavy)))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert json.loads(proc.stdout) == [], proc.stderr


def test_the_warm_server_keeps_what_it_holds_out_of_the_collectors_scans(root: Path) -> None:
    """The server's palace is frozen out of the cyclic collector's scans once loaded (a full
    scan of a big palace landed inside some prompt's answer; issue 34), and settled again,
    after one collection, only when the palace was reloaded."""
    import gc

    from curator.agents.service import Memory
    from curator.agents.settling import settle

    memory = Memory(root)
    try:
        assert settle(memory, None) is None  # nothing loaded yet: nothing to settle
        palace = memory.palace
        settled = settle(memory, None)
        assert settled is not None and settled() is palace and gc.get_freeze_count() > 0
        gc.unfreeze()
        assert settle(memory, settled) is settled and gc.get_freeze_count() == 0
        memory.session.reload()
        again = settle(memory, settled)
        assert again is not None and again() is memory.palace and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        memory.close()
