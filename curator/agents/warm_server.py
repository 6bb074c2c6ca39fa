"""The warm server: one process per palace that keeps the index open and answers the hooks
over a unix socket (agents/warm.py is the client side: where the socket is, ask, start)."""

from __future__ import annotations

import contextlib
import json
import os
import socketserver
import sys
import threading
import time
from pathlib import Path

from curator.agents.hooks import answer
from curator.agents.service import Memory
from curator.agents.warm import IDLE_SECONDS, MAX_LINE, bind, pid_path, socket_path


def serve(root: Path) -> int:
    """Serve hook requests for `root` until idle for IDLE_SECONDS."""
    import signal

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
    last = [time.monotonic()]

    class Handler(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            last[0] = time.monotonic()
            try:
                request = json.loads(self.rfile.readline(MAX_LINE))
                reply = answer(memory, request)
            except Exception as exc:  # one bad request never stops the server
                reply = {"lines": [], "items": 0, "problems": [f"warm server: {exc}"]}
            with contextlib.suppress(OSError):
                self.wfile.write(json.dumps(reply).encode() + b"\n")
            last[0] = time.monotonic()

    server = socketserver.ThreadingUnixStreamServer(str(path), Handler, bind_and_activate=False)
    server.socket.close()
    server.socket = listener
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(0.5,), daemon=True).start()
    try:
        with contextlib.suppress(Exception):
            memory.palace  # noqa: B018 - the palace first: prompts are answered from it meanwhile
            memory.searcher  # noqa: B018 - then the index, not on the first prompt
        while time.monotonic() - last[0] < IDLE_SECONDS and path.exists():
            if stopping.wait(1.0):
                break
    finally:
        server.shutdown()
        memory.close()
        with contextlib.suppress(OSError):
            path.unlink()
            pid_path(root).unlink()
    return 0


if __name__ == "__main__":  # `python -m curator.agents.warm_server ROOT`, as warm.start runs it
    sys.exit(serve(Path(sys.argv[1])))
