"""Agents at N notes, on this machine as it is and again with a CPU hog beside it (one busy
loop per core): the MCP server (start to first answer, a warm `search` round trip, a `capture`
round trip) and the UserPromptSubmit hook as Claude Code runs it (a whole process) with the warm
server, on the first prompt right after SessionStart, and with the warm server off; each with
a baseline from the same run. With `CURATOR_BENCH_BASIC_MEMORY=/path/to/basic-memory` (and its
`_HOME`, see `_peer_rows`) the same three MCP rows run against basic-memory's server on a copy
of the same notes, and the curator rows take them as their baselines.

    python benchmarks/bench_agents.py --palace P --notes N   (or through run.py)
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from benchutil import REPO, Row, cpu_hog, main_for, percentile, process_times, row, timed
from search_floor import keyword_queries

sys.path.insert(0, str(REPO / "tests"))

AREA = "agents"
PEER_ENV = "CURATOR_BENCH_BASIC_MEMORY"
PARTS_ENV = "CURATOR_BENCH_AGENTS_PARTS"  # mcp,hooks (the default: both),warm
MODES_ENV = "CURATOR_BENCH_AGENTS_MODES"  # quiet,loaded (the default: both),niced


def _prompt_event(palace: Path, prompt: str, session: str = "bench") -> bytes:
    return json.dumps(
        {
            "session_id": session,
            "transcript_path": str(palace / "t.jsonl"),
            "cwd": str(palace),
            "permission_mode": "default",
            "hook_event_name": "UserPromptSubmit",
            "prompt": prompt,
        }
    ).encode()


# -- MCP -------------------------------------------------------------------------------------------
def _mcp(command: list[str] | None, root: Path, env: dict[str, str] | None = None) -> Any:
    from agenthelpers import McpClient

    return McpClient(root, command=command, env=env, timeout=300)


def _mcp_figures(
    command: list[str] | None,
    root: Path,
    queries: list[str],
    search: Callable[[Any, str], None],
    capture: Callable[[Any, int], None],
    env: dict[str, str] | None = None,
) -> tuple[list[float], list[float], list[float]]:
    """(start to first answer, warm search, capture) seconds for one server."""
    starts = []
    for _ in range(3):
        began = time.perf_counter()
        client = _mcp(command, root, env)
        search(client, queries[0])
        starts.append(time.perf_counter() - began)
        client.close()
    client = _mcp(command, root, env)
    try:
        search(client, "warm up")
        rounds = []
        for q in queries:
            began = time.perf_counter()
            search(client, q)
            rounds.append(time.perf_counter() - began)
        captures = []
        for i in range(10):
            began = time.perf_counter()
            capture(client, i)
            captures.append(time.perf_counter() - began)
    finally:
        client.close()
    return starts, rounds, captures


def _curator_search(client: Any, query: str) -> None:
    error, text = client.call("search", query=query, limit=10)
    assert not error, text


def _curator_capture(client: Any, i: int) -> None:
    error, text = client.call(
        "capture",
        name=f"Bench capture {time.time_ns()} {i}",
        description="A lesson from the benchmark",
        type="project",
        body=f"The benchmark learnt lesson {i} at {time.time_ns()}.",
    )
    assert not error, text


def _peer_search(client: Any, query: str) -> None:
    error, text = client.call("search_notes", query=query, page_size=10)
    assert not error, text


def _peer_capture(client: Any, i: int) -> None:
    error, text = client.call(
        "write_note",
        title=f"Bench capture {time.time_ns()} {i}",
        content=f"The benchmark learnt lesson {i} at {time.time_ns()}.",
        directory="bench",
    )
    assert not error, text


def _mcp_rows(palace: Path, queries: list[str], mode: str, pass_ms: float) -> list[Row]:
    from curator.agents.service import Memory

    starts, rounds, captures = _mcp_figures(
        None, palace, queries, _curator_search, _curator_capture
    )
    memory = Memory(palace)
    memory.search("warm up")
    inproc = [timed(lambda q=q: memory.search(q, limit=10), 1)[0] for q in queries]  # type: ignore[misc]
    caps = [
        timed(
            lambda i=i: memory.capture(  # type: ignore[misc]
                name=f"In-process capture {time.time_ns()} {i}",
                description="A lesson from the benchmark",
                type="project",
                body=f"In-process lesson {i} at {time.time_ns()}.",
            ),
            1,
        )[0]
        for i in range(10)
    ]
    memory.close()
    peer = _peer_rows(palace, queries, mode)
    by = {r.metric.split(": ", 1)[1]: r for r in peer}

    def against(metric: str, fallback: str, fallback_ms: float) -> dict[str, Any]:
        found = by.get(metric)
        if found is not None:
            return {"baseline": f"basic-memory {metric}", "baseline_ms": found.median_ms}
        return {"baseline": fallback, "baseline_ms": fallback_ms}

    return [
        row(
            AREA,
            f"[{mode}] mcp: start to first answer",
            starts,
            target_ms=2000.0,
            **against("start to first answer", "python -c pass", pass_ms),
        ),
        row(
            AREA,
            f"[{mode}] mcp: warm search round trip",
            rounds,
            target_ms=50.0,
            **against(
                "warm search round trip",
                "Memory.search in-process",
                statistics.median(inproc) * 1000,
            ),
            note=f"in-process Memory.search {statistics.median(inproc) * 1000:.1f} ms",
        ),
        row(
            AREA,
            f"[{mode}] mcp: capture round trip",
            captures,
            **against(
                "capture round trip", "Memory.capture in-process", statistics.median(caps) * 1000
            ),
            note=f"in-process Memory.capture {statistics.median(caps) * 1000:.1f} ms",
        ),
        *peer,
    ]


def _peer_rows(palace: Path, queries: list[str], mode: str) -> list[Row]:
    """basic-memory's server on the same notes: `CURATOR_BENCH_BASIC_MEMORY` names its command
    and `CURATOR_BENCH_BASIC_MEMORY_HOME` a HOME whose default project holds a copy of this
    palace's notes/, indexed beforehand (`basic-memory project add`, then `project index`)."""
    exe, home = os.environ.get(PEER_ENV), os.environ.get(PEER_ENV + "_HOME")
    if not exe or not home:
        return []
    env = {**os.environ, "HOME": home}
    starts, rounds, captures = _mcp_figures(
        [exe, "mcp"], Path(home), queries, _peer_search, _peer_capture, env=env
    )
    return [
        row(AREA, f"[{mode}] basic-memory: start to first answer", starts),
        row(AREA, f"[{mode}] basic-memory: warm search round trip", rounds),
        row(AREA, f"[{mode}] basic-memory: capture round trip", captures),
    ]


# -- hooks -----------------------------------------------------------------------------------------
def _hook(argv: list[str], env: dict[str, str], stdin: bytes) -> tuple[float, bool]:
    """(seconds, whether the hook gave memory) of one whole hook process."""
    began = time.perf_counter()
    proc = subprocess.run(argv, env={**os.environ, **env}, input=stdin, capture_output=True)
    seconds = time.perf_counter() - began
    if proc.returncode != 0:
        raise RuntimeError(f"{argv} exited {proc.returncode}: {proc.stderr.decode()[-500:]}")
    return seconds, b"hint, not truth" in proc.stdout


def _last_log(palace: Path) -> dict[str, Any]:
    from curator.agents import hooklog

    records = hooklog.read(palace)
    return records[-1] if records else {}


def _hook_rows(palace: Path, prompts: list[str], mode: str, pass_ms: float) -> list[Row]:
    from curator.agents.service import Memory

    hook = [sys.executable, "-m", "curator.agents", "--palace", str(palace), "claude-code"]
    warm_env = {"CURATOR_HOOK_WARM": "1"}
    cold_env = {"CURATOR_HOOK_WARM": "0"}
    start_event = json.dumps({"cwd": str(palace), "source": "startup"}).encode()

    # the first prompt right after SessionStart, with no server running before it
    firsts, first_memory, first_ranked = [], 0, []
    for i, prompt in enumerate(prompts[:5]):
        _stop_server(palace)
        _hook([*hook, "SessionStart"], warm_env, start_event)
        took, gave = _hook([*hook, "UserPromptSubmit"], warm_env, _prompt_event(palace, prompt))
        firsts.append(took)
        first_memory += gave
        last = _last_log(palace)
        first_ranked.append(f"{last.get('via')}/{last.get('ranked', last.get('outcome'))}")
        del i

    # the warm server with its index open
    _wait_for_index(palace, hook, warm_env, prompts[0])
    warm, warm_memory = [], 0
    for prompt in prompts:
        took, gave = _hook([*hook, "UserPromptSubmit"], warm_env, _prompt_event(palace, prompt))
        warm.append(took)
        warm_memory += gave
    _stop_server(palace)

    # the warm server off: each prompt answered in its own process
    cold, cold_memory = [], 0
    for prompt in prompts[:8]:
        took, gave = _hook([*hook, "UserPromptSubmit"], cold_env, _prompt_event(palace, prompt))
        cold.append(took)
        cold_memory += gave

    memory = Memory(palace)
    memory.pack(prompts[0])
    packs = [timed(lambda p=p: memory.pack(p), 1)[0] for p in prompts]  # type: ignore[misc]
    memory.close()
    pack_ms = statistics.median(packs) * 1000
    return [
        row(
            AREA,
            f"[{mode}] hook UserPromptSubmit (warm server, index open), whole process",
            warm,
            target_ms=300.0,
            baseline="python -c pass",
            baseline_ms=pass_ms,
            note=f"memory given {warm_memory}/{len(warm)}; in-process pack {pack_ms:.0f} ms",
        ),
        row(
            AREA,
            f"[{mode}] hook UserPromptSubmit, first prompt right after SessionStart",
            firsts,
            target_ms=4000.0,
            baseline="python -c pass",
            baseline_ms=pass_ms,
            note=f"memory given {first_memory}/{len(firsts)}; answered {', '.join(first_ranked)}",
        ),
        row(
            AREA,
            f"[{mode}] hook UserPromptSubmit (warm server off), whole process",
            cold,
            target_ms=4000.0,
            baseline="python -c pass",
            baseline_ms=pass_ms,
            note=f"memory given {cold_memory}/{len(cold)} (budget 4 s)",
        ),
    ]


def _warm_rows(palace: Path, prompts: list[str], mode: str, pass_ms: float) -> list[Row]:
    """The prompt hook with the warm server's index open, spawned as Claude Code spawns it
    (the command line through a shell), alternating with its floors: the command install
    writes, `curator hook` (the console script), `python -c pass` spawned the same way, and
    the server's round trip alone (this process asking it). Three rounds of the prompts."""
    import shlex

    from curator.agents import install, warm

    configured = install.command("UserPromptSubmit", str(palace))
    script = Path(sys.executable).with_name("curator")
    cli = shlex.join([str(script), "--palace", str(palace), "hook", "claude-code"])
    cli += " UserPromptSubmit"
    bare = shlex.join([sys.executable, "-c", "pass"])
    hook = [sys.executable, "-m", "curator.agents", "--palace", str(palace), "claude-code"]
    env = {"CURATOR_HOOK_WARM": "1"}
    _wait_for_index(palace, hook, env, prompts[0])
    # the installed command without its process's quick exit and its client's C modules
    # (curator.runtime's table)
    untuned = f"CURATOR_NO_TUNING=exit,client {configured}"
    commands = {"configured": configured, "untuned": untuned, "cli": cli, "pass": bare}
    times: dict[str, list[float]] = {name: [] for name in (*commands, "round trip")}
    cpu: dict[str, list[float]] = {name: [] for name in commands}  # user + system, with the shell
    gave = {"configured": 0, "untuned": 0, "cli": 0}
    served = {"configured": 0, "untuned": 0, "cli": 0}
    root = palace.resolve()
    for _ in range(3):
        for prompt in prompts:
            event = _prompt_event(palace, prompt)
            for name, command in commands.items():
                used = _children_cpu()
                began = time.perf_counter()
                proc = subprocess.run(
                    command, shell=True, env={**os.environ, **env}, input=event,
                    capture_output=True,
                )  # fmt: skip
                times[name].append(time.perf_counter() - began)
                cpu[name].append(_children_cpu() - used)
                if proc.returncode != 0:
                    raise RuntimeError(f"{command} exited {proc.returncode}: {proc.stderr!r}")
                if name in gave:
                    gave[name] += b"hint, not truth" in proc.stdout
                    served[name] += _last_log(palace).get("ranked") == "index"
            request = {"tool": "claude-code", "event": "UserPromptSubmit"}
            began = time.perf_counter()
            warm.ask(root, {**request, "data": json.loads(event)}, 30.0)
            times["round trip"].append(time.perf_counter() - began)
    _stop_server(palace)
    floors = {k: (statistics.median(times[k]), percentile(times[k], 0.95)) for k in times}
    (p_med, p_p95), (r_med, r_p95) = floors["pass"], floors["round trip"]
    floor_note = (
        f"floors: `python -c pass` through a shell {p_med * 1000:.0f} / {p_p95 * 1000:.0f} ms, "
        f"the server's round trip alone {r_med * 1000:.0f} / {r_p95 * 1000:.0f} ms "
        f"(median / p95); CPU of the process (median): `python -c pass` "
        f"{statistics.median(cpu['pass']) * 1000:.1f} ms"
    )
    out = []
    u_med, u_p95 = floors["untuned"]
    untuned_note = (
        f"without the exit and client tricks: CPU "
        f"{statistics.median(cpu['untuned']) * 1000:.1f} ms, "
        f"{u_med * 1000:.0f} / {u_p95 * 1000:.0f} ms; "
    )
    for name, what in (("configured", "the installed command"), ("cli", "curator hook")):
        runs = len(times[name])
        p95 = floors[name][1]
        out.append(
            row(
                AREA,
                f"[{mode}] hook UserPromptSubmit, warm server's index open: {what}, whole process",
                times[name],
                target_ms=300.0,
                baseline="python -c pass through a shell, same run",
                baseline_ms=p_med * 1000,
                note=f"CPU {statistics.median(cpu[name]) * 1000:.1f} ms; "
                + (untuned_note if name == "configured" else "")
                + f"p95 {p95 * 1000:.0f} ms ({p95 / p_p95:.2f}x the pass p95, "
                f"{p95 / r_p95:.2f}x the round trip's); {floor_note}; memory given "
                f"{gave[name]}/{runs}; from the index {served[name]}/{runs}",
            )
        )
    return out


def _children_cpu() -> float:
    """Seconds of CPU (user + system) of this process's waited-for children so far."""
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _wait_for_index(palace: Path, hook: list[str], env: dict[str, str], prompt: str) -> None:
    """Prompts (untimed) until the warm server answers from its open index."""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        _hook([*hook, "UserPromptSubmit"], env, _prompt_event(palace, prompt))
        if _last_log(palace).get("ranked") == "index":
            return
        time.sleep(0.5)
    raise RuntimeError("the warm server never opened its index")


def _stop_server(palace: Path) -> None:
    """End the warm server a hook started, by the pid it wrote."""
    import signal

    from curator.agents import warm

    try:
        pid = int(warm.pid_path(palace).read_text())
        os.kill(pid, signal.SIGTERM)
    except (OSError, ValueError):
        pid = 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if pid:
                os.kill(pid, 0)  # still there
                time.sleep(0.1)
                continue
        if not warm.socket_path(palace).exists():
            return
        time.sleep(0.1)
    raise RuntimeError(f"the warm server {pid} did not stop")


@contextlib.contextmanager
def _mode(name: str) -> Iterator[None]:
    """quiet; loaded: a busy loop per core beside it; niced: the same loops at nice 10 (a
    build in the background)."""
    hog = {"loaded": lambda: cpu_hog(), "niced": lambda: cpu_hog(niceness=10)}.get(name)
    with hog() if hog is not None else contextlib.nullcontext():
        yield


def run(palace: Path, notes: int) -> list[Row]:
    queries = keyword_queries(30)
    prompts = [f"fix the {q} before the release" for q in keyword_queries(15)]
    parts = os.environ.get(PARTS_ENV, "mcp,hooks").split(",")
    modes = os.environ.get(MODES_ENV, "quiet,loaded").split(",")
    rows: list[Row] = []
    for mode in modes:
        with _mode(mode):
            load = os.getloadavg()[0]
            pass_ms = statistics.median(process_times([sys.executable, "-c", "pass"], 10)) * 1000
            got = [
                *(_mcp_rows(palace, queries, mode, pass_ms) if "mcp" in parts else []),
                *(_hook_rows(palace, prompts, mode, pass_ms) if "hooks" in parts else []),
                *(_warm_rows(palace, prompts, mode, pass_ms) if "warm" in parts else []),
            ]
            for r in got:
                r.note = f"load {load:.1f}; {r.note}" if r.note else f"load {load:.1f}"
            rows += got
    return rows


if __name__ == "__main__":
    main_for(run)
