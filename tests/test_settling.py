"""A long-lived server's palace kept out of the collector's scans (curator.agents.settling):
settled once the server has been quiet, and every MCP call and read counted as a request, so
the settling's full collection waits for a pause between them (issue 34)."""

from __future__ import annotations

import gc
import threading
import time
from pathlib import Path

import anyio
import pytest
from agenthelpers import write_palace
from palacehelpers import note_text

from curator.agents.mcp import build_server
from curator.agents.service import Memory
from curator.agents.settling import Quiet, keep_settled

NOTE = "notes/project/deploy.md"


@pytest.fixture
def memory(tmp_path: Path):
    root = write_palace(tmp_path / "palace", {NOTE: note_text("Deploy on Fridays")})
    memory = Memory(root)
    try:
        yield memory
    finally:
        gc.unfreeze()
        memory.close()


def test_a_quiet_server_settles_its_palace_and_a_reload_again(memory: Memory) -> None:
    gc.unfreeze()
    quiet, stop = Quiet(), threading.Event()
    worker = threading.Thread(target=keep_settled, args=(memory, quiet, stop), kwargs={"idle": 0})
    worker.start()
    try:
        palace = memory.palace
        deadline = time.monotonic() + 60
        while gc.get_freeze_count() == 0:
            assert time.monotonic() < deadline, "the loaded palace was never settled"
            stop.wait(0.01)
        assert memory.session.loaded is palace
        assert not any(note.held for note in palace.notes)  # read from the files when asked
        gc.unfreeze()
        memory.session.reload()  # a new palace: settled again after one collection
        while gc.get_freeze_count() == 0:
            assert time.monotonic() < deadline, "the reloaded palace was never settled"
            stop.wait(0.01)
    finally:
        stop.set()
        worker.join(30)
    assert not worker.is_alive()


def test_a_server_that_is_never_quiet_never_settles(memory: Memory) -> None:
    gc.unfreeze()
    quiet, stop = Quiet(), threading.Event()
    memory.palace  # noqa: B018
    worker = threading.Thread(
        target=keep_settled, args=(memory, quiet, stop), kwargs={"idle": 3600}
    )
    worker.start()
    try:
        for _ in range(5):  # the loop looks at the clock every idle or second, whichever first
            quiet.stamp()
            assert not stop.wait(0.0)
    finally:
        stop.set()
        worker.join(30)
    assert gc.get_freeze_count() == 0


def test_every_mcp_call_and_read_counts_as_a_request(memory: Memory) -> None:
    quiet = Quiet(since=time.monotonic() - 1000)
    server = build_server(memory, quiet)

    async def call() -> None:
        await server.call_tool("list_inbox", {})

    anyio.run(call)
    assert quiet.seconds() < 500, "a tool call left the server looking quiet"

    quiet = Quiet(since=time.monotonic() - 1000)
    server = build_server(memory, quiet)

    async def read() -> None:
        await server.read_resource(f"curator://notes/{NOTE}")

    anyio.run(read)
    assert quiet.seconds() < 500, "a resource read left the server looking quiet"

    quiet = Quiet(since=time.monotonic() - 1000)
    server = build_server(memory, quiet)

    async def refused() -> None:
        with pytest.raises(Exception, match="no_such_tool"):
            await server.call_tool("no_such_tool", {})

    anyio.run(refused)
    assert quiet.seconds() < 500, "a refused call left the server looking quiet"
