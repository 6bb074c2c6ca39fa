"""A blocking MCP client over stdio for tests and benchmarks: the SDK's own `stdio_client` and
`ClientSession`, run on an event loop in a background thread so each call is one plain call;
and a warm hook server for a test's palace."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

HASH_TOML = '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[index]\nembedder = "hash"\ndim = 64\n'


def write_palace(root: Path, files: dict[str, str], toml: str = HASH_TOML) -> Path:
    """A palace at `root` (notes/, inbox/, palace.toml and `files`), committed to git: a
    module-scoped fixture's palace, which `make_palace` (function-scoped) cannot give."""
    from palacehelpers import new_palace

    return new_palace(root, files, toml=toml)


@contextmanager
def warm_server(root: Path, env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """`curator hook serve` for `root` (with `env`, e.g. its own XDG_RUNTIME_DIR), once it
    listens: the condition the hooks themselves wait on. Ended (by its id) afterwards."""
    from curator.agents import warm

    server = subprocess.Popen(
        [sys.executable, "-m", "curator", "--palace", str(root), "hook", "serve"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        runtime = (env or {}).get("XDG_RUNTIME_DIR")
        old = os.environ.get("XDG_RUNTIME_DIR")
        if runtime:
            os.environ["XDG_RUNTIME_DIR"] = runtime
        try:
            sock = warm.socket_path(root)
        finally:
            if old is None:
                os.environ.pop("XDG_RUNTIME_DIR", None)
            else:
                os.environ["XDG_RUNTIME_DIR"] = old
        deadline = time.monotonic() + 120  # a bound for a server that never listens
        while not sock.exists():
            assert server.poll() is None, "the warm server exited"
            assert time.monotonic() < deadline, "the warm server never listened"
            time.sleep(0.05)
        yield server
    finally:
        server.terminate()
        server.wait(20)


class McpClient:
    """Starts `curator --palace ROOT mcp [extra]` (or another server's `command`) and talks
    to it with the SDK client; or, given a `server` object, talks to it in this process over
    the SDK's in-memory transport."""

    def __init__(
        self,
        root: Path,
        *extra: str,
        env: dict[str, str] | None = None,
        timeout: float = 60,
        command: list[str] | None = None,
        server: Any = None,
    ) -> None:
        from mcp.client.stdio import StdioServerParameters

        argv = command or [sys.executable, "-m", "curator", "--palace", str(root), "mcp", *extra]
        self.params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)
        self.server = server
        self.timeout = timeout
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        self._ready: asyncio.Future[Any] | None = None
        self._closing: asyncio.Event | None = None
        self.session: Any = None
        self._run(self._open())

    def _run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(self.timeout)

    async def _open(self) -> None:
        self._closing = asyncio.Event()
        ready = self.loop.create_future()
        self._task = self.loop.create_task(self._hold(ready))
        await ready

    async def _hold(self, ready: asyncio.Future[Any]) -> None:
        from mcp.client._memory import InMemoryTransport
        from mcp.client.session import ClientSession
        from mcp.client.stdio import stdio_client

        if self.server is not None:
            transport: Any = InMemoryTransport(self.server)
        else:
            transport = stdio_client(self.params)
        try:
            async with transport as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                self.session = session
                ready.set_result(None)
                assert self._closing is not None
                await self._closing.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc)
            raise

    def call(self, name: str, /, **arguments: Any) -> tuple[bool, str]:
        """(is_error, text) of a tools/call."""
        result = self._run(self.session.call_tool(name, arguments))
        text = "".join(getattr(c, "text", "") for c in result.content)
        return bool(result.is_error), text

    def json(self, name: str, /, **arguments: Any) -> Any:
        error, text = self.call(name, **arguments)
        assert not error, text
        return json.loads(text)

    def list_tools(self) -> list[Any]:
        return list(self._run(self.session.list_tools()).tools)

    def read_resource(self, uri: str) -> str:
        result = self._run(self.session.read_resource(uri))
        return "".join(getattr(c, "text", "") for c in result.contents)

    def request(self, coro_fn: Any) -> Any:
        """Run `coro_fn(session)` on the loop (for raw requests)."""
        return self._run(coro_fn(self.session))

    def close(self) -> None:
        if self._closing is not None:
            self.loop.call_soon_threadsafe(self._closing.set)
            try:
                asyncio.run_coroutine_threadsafe(asyncio.wait([self._task]), self.loop).result(20)
            except Exception:
                pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)


def server_env(base: Path) -> dict[str, str]:
    """A server's home and caches in `base` (module fixtures run before conftest's
    isolated_env, so the worker's own home would be the server's)."""
    (base / "home").mkdir(exist_ok=True)
    return {
        "HOME": str(base / "home"),
        "CURATOR_CACHE_HOME": str(base / "cache"),
        "GIT_CONFIG_NOSYSTEM": "1",
    }


@contextmanager
def served(root: Path, base: Path, *extra: str) -> Iterator[McpClient]:
    """`curator mcp [extra]` for `root` (`server_env(base)`), closed afterwards: one server
    for a module's tests, as each start pays curator's, the SDK's and LanceDB's imports."""
    client = McpClient(root, *extra, env=server_env(base))
    try:
        yield client
    finally:
        client.close()


@contextmanager
def served_here(root: Path, base: Path, *, include_sensitive: bool = False) -> Iterator[McpClient]:
    """The server `curator mcp` runs (`build_server` over a `Memory` as `serve` makes it), in
    this process, the SDK's client talking to it over the SDK's in-memory transport, with
    the home and caches in `base` (module fixtures run before conftest's isolated_env): for
    a module's tests of what the server answers, not of its process (tests/test_mcp.py runs
    the process, as an agent starts it). A process of its own pays curator's, the SDK's and
    LanceDB's imports again (~3 CPU-s)."""
    from palacehelpers import isolate

    from curator.agents.mcp import build_server
    from curator.agents.service import Memory

    with pytest.MonkeyPatch.context() as m:
        isolate(m, base)
        memory = Memory(root, include_sensitive=include_sensitive, watch=True)
        client = McpClient(root, server=build_server(memory))
        try:
            yield client
        finally:
            client.close()
            memory.close()


def run_hook(
    root: Path | None,
    tool: str,
    event: str,
    payload: dict[str, Any] | str,
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`curator [--palace ROOT] hook TOOL EVENT` fed `payload`, with `env` set: what its
    process writes (`hookrun.main`, in this process: a process of its own pays curator's
    imports for the same answer; tests/test_hooks.py runs the real processes, as Claude Code
    starts them). A hook that runs out of its time ends its process (os._exit): the tests'
    budget is a minute."""
    from curator.agents import hookrun

    stdin = payload if isinstance(payload, str) else json.dumps(payload)
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as m:
        for key, value in (env or {}).items():
            m.setenv(key, value)
        if cwd is not None:
            m.chdir(cwd)
        m.setattr(sys, "stdin", io.StringIO(stdin))
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = hookrun.main(tool, event, None if root is None else str(root))
    args = ["curator", "hook", tool, event]
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


def hook(
    root: Path, event: str, env: dict[str, str] | None = None, **fields: Any
) -> tuple[str, str]:
    """The claude-code hook for `event` in a session in `root`: (stdout, stderr)."""
    payload = {
        "session_id": "s",
        "transcript_path": str(root / "t.jsonl"),
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": event,
        **fields,
    }
    proc = run_hook(root, "claude-code", event, payload, env=env)
    return proc.stdout, proc.stderr


def hook_context(root: Path, event: str, **fields: Any) -> str:
    """What the hook for `event` (the warm server off) puts in front of the agent."""
    cold = {"CURATOR_HOOK_WARM": "0", "CURATOR_HOOK_BUDGET": "60"}
    text, failure = hook(root, event, cold, **fields)
    assert not failure, failure
    return str(json.loads(text)["hookSpecificOutput"]["additionalContext"])
