"""The warm server: one process per palace that keeps the index open and answers the hooks
over a unix socket (agents/warm.py is the client side: where the socket is, ask, start)."""

from __future__ import annotations

import contextlib
import json
import os
import socketserver
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from curator.agents.hooks import answer
from curator.agents.service import Memory
from curator.agents.settling import SETTLE_IDLE, Quiet, settle
from curator.agents.warm import IDLE_SECONDS, MAX_LINE, bind, pid_path, socket_path

STOP_WAIT = 2.0  # at most this long a Stop waits for the turn marks before it (budget 3 s)


def palace_mark(root: Path) -> tuple[tuple[int, int], ...] | None:
    """Which folder `root` is: the (device, inode) of it and of its `.git` when it has one;
    None once it is gone. A palace removed while its server was still building the index
    can come back as a bare folder (the build's late write makes its path again): that is
    not the palace the server serves, and its mark differs."""
    marks = []
    for path in (root, root / ".git"):
        try:
            stat = path.stat()
        except OSError:
            if path == root:
                return None
            continue
        marks.append((stat.st_dev, stat.st_ino))
    return tuple(marks)


class Deferred:
    """The work answers leave for after their reply is sent (`hooks.answer`'s `later`), and
    a wait for it: a Stop compares the project with the state its prompt marked."""

    def __init__(self) -> None:
        self._done = threading.Condition()
        self._running = 0

    @contextlib.contextmanager
    def counted(self, work: list[Callable[[], None]]) -> Iterator[None]:
        """Count `work` as running from now (before the reply leaves), run it after the
        block (the reply sent), then wake whoever waits for it."""
        with self._done:
            self._running += bool(work)
        try:
            yield
        finally:
            for job in work:
                with contextlib.suppress(Exception):  # a mark never raises; nothing may stop us
                    job()
            with self._done:
                self._running -= bool(work)
                self._done.notify_all()

    def wait(self, timeout: float) -> None:
        """Until no deferred work runs, or `timeout` seconds."""
        with self._done:
            self._done.wait_for(lambda: self._running == 0, timeout)


def serve(root: Path) -> int:
    """Serve hook requests for `root` until idle for IDLE_SECONDS."""
    import signal

    # marked before it listens, so a palace removed once its socket is there is seen gone
    served = palace_mark(root)
    if served is None:
        return 0
    path = socket_path(root)
    listener = bind(path)
    if listener is None:
        return 0
    stopping = threading.Event()

    def terminate(*_: object) -> None:
        stopping.set()  # heeded even when the SystemExit lands in code that swallows it
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, terminate)  # clean up the socket on terminate
    pid_path(root).write_text(f"{os.getpid()}\n")
    memory = Memory(root, watch=True)
    quiet = Quiet()
    deferred = Deferred()

    class Handler(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            quiet.stamp()
            later: list[Callable[[], None]] = []
            try:
                request = json.loads(self.rfile.readline(MAX_LINE))
                if isinstance(request, dict) and request.get("event") == "Stop":
                    deferred.wait(STOP_WAIT)

                def reply_to() -> dict[str, Any]:
                    later.clear()  # a retried answer's work is queued once
                    return answer(memory, request, later=later)

                reply = memory.fresh(reply_to)()
            except Exception as exc:  # one bad request never stops the server
                reply = {"lines": [], "items": 0, "problems": [f"warm server: {exc}"]}
            with deferred.counted(later), contextlib.suppress(OSError):
                self.wfile.write(json.dumps(reply).encode() + b"\n")
            quiet.stamp()

    server = socketserver.ThreadingUnixStreamServer(str(path), Handler, bind_and_activate=False)
    server.socket.close()
    server.socket = listener
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(0.5,), daemon=True).start()
    try:
        with contextlib.suppress(Exception):
            memory.palace  # noqa: B018 - the palace first: prompts are answered from it meanwhile
            memory.searcher  # noqa: B018 - then the index, not on the first prompt

        def busy() -> bool:  # a request came: the searcher's `prepare` waits for quiet
            return quiet.seconds() <= SETTLE_IDLE

        settled = settle(memory, None, busy)
        # a palace removed (a scratch copy deleted) ends its server, not half an hour later
        while quiet.seconds() < IDLE_SECONDS and path.exists() and palace_mark(root) == served:
            if stopping.wait(1.0):
                break
            if quiet.seconds() > SETTLE_IDLE:  # a reload's collection waits for quiet
                settled = settle(memory, settled, busy)
    finally:
        server.shutdown()
        memory.close()
        with contextlib.suppress(OSError):
            path.unlink()
            pid_path(root).unlink()
    return 0


if __name__ == "__main__":  # `python -m curator.agents.warm_server ROOT`, as warm.start runs it
    sys.exit(serve(Path(sys.argv[1])))
