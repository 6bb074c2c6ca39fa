"""A warm hook server: one background process per palace that keeps the index open, so a hook
(a whole short process) answers in the time of a query instead of an index open.

A hook first asks the server over a unix socket (in a private per-user folder, named by a hash
of the palace root). When none listens, SessionStart or a prompt starts one and does its own
work without the index (a prompt's pack from `Searcher.over_palace`: importing LanceDB alone takes
longer than the budget on a busy machine). The server answers as soon as the palace is loaded,
from the palace alone until its index is open, then from the index. It reloads the palace when
its files change (see `Memory`), exits after IDLE_SECONDS without a request, and never holds a
lock a writer waits on. Set `CURATOR_HOOK_WARM=0` to never start one.

Protocol: one JSON line each way, {"tool", "event", "data"} -> {"lines", "items", "problems"}.
A hook process that asks imports this module and the standard library's socket and json only
(see `hookrun`): the server's answer is the whole of its work.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys

from curator.runtime import tuned

# The C modules under `socket` and `hashlib`: asking is a connect, a send and a read, and a
# hook process pays for every import (`socket` builds its enums and loads `selectors`,
# `hashlib` loads OpenSSL: ~5 ms of a prompt's ~30 ms of CPU). The full modules elsewhere, and
# with the trick off (`client` in curator.runtime's table).
if tuned("client"):
    try:
        import _socket as sockets
    except ImportError:  # pragma: no cover - an interpreter without it
        import socket as sockets  # type: ignore[no-redef]
    try:
        if sys.version_info >= (3, 12):
            from _sha2 import sha256
        else:
            from _sha256 import sha256
    except ImportError:  # pragma: no cover - built without its own hashes: OpenSSL's
        from hashlib import sha256
else:
    import socket as sockets  # type: ignore[no-redef]
    from hashlib import sha256

TYPE_CHECKING = False  # typing.TYPE_CHECKING without loading typing: a hook process imports this
if TYPE_CHECKING:  # nor pathlib (see curator.model.discovery)
    import socket
    import subprocess
    from pathlib import Path
    from typing import Any

__all__ = ["EVENTS", "ask", "bind", "socket_path", "start"]

#: the events a request names (the agent tools' hook points curator answers)
EVENTS = ("SessionStart", "UserPromptSubmit", "Stop")

IDLE_SECONDS = 1800.0
CONNECT_TIMEOUT = 0.2
MAX_LINE = 4_000_000


def socket_path(root: str | Path) -> Path:
    """In $XDG_RUNTIME_DIR (private to the user) when set, else a per-user folder in $TMPDIR
    or /tmp (the folder is checked to be the user's own and closed to others before use)."""
    from pathlib import Path

    return Path(_socket_file(root))


def _socket_file(root: str | Path) -> str:
    """`socket_path` as a string: what a hook process asking the server uses."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        folder = os.path.join(runtime, "curator")
    else:
        tmp = os.environ.get("TMPDIR")
        base = tmp if tmp and os.path.isdir(tmp) else "/tmp"
        folder = os.path.join(base, f"curator-{os.getuid()}")
    digest = sha256(os.path.realpath(root).encode()).hexdigest()[:16]
    return os.path.join(folder, f"{digest}.sock")


def _private(folder: str | Path) -> bool:
    """Ours and closed to others: a folder someone else made could hand the agent their text."""
    try:
        st = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077


def enabled() -> bool:
    return os.environ.get("CURATOR_HOOK_WARM", "1") not in ("0", "false", "no", "")


def ask(root: str | Path, request: dict[str, Any], timeout: float) -> dict[str, Any] | None:
    """The server's answer; None when no server listens (the caller does the work); {} when
    one listens but did not answer in time (busy opening the index: the caller must not
    start the same work beside it)."""
    path = _socket_file(root)
    if not os.path.exists(path) or not _private(os.path.dirname(path)):
        return None
    sock = sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM)
    try:
        try:
            sock.settimeout(CONNECT_TIMEOUT)
            sock.connect(path)
        except OSError:
            return None
        try:
            sock.settimeout(timeout)
            sock.sendall(json.dumps(request).encode() + b"\n")
            line = _line(sock)
        except TimeoutError:
            return {}
        except (OSError, ValueError):
            return None
    finally:
        sock.close()
    with contextlib.suppress(ValueError):
        value = json.loads(line)
        if isinstance(value, dict):
            return value
    return None


def _line(sock: sockets.socket) -> bytes:
    """The server's one line (at most MAX_LINE bytes: a longer one is cut, and not JSON)."""
    got = bytearray()
    while len(got) < MAX_LINE:
        chunk = sock.recv(min(1 << 16, MAX_LINE - len(got)))
        got += chunk
        if not chunk or b"\n" in chunk:
            break
    return bytes(got)


def start(root: str | Path) -> subprocess.Popen[bytes] | None:
    """Start a server for `root` in the background (detached; its output goes nowhere)."""
    if not enabled():
        return None
    import subprocess  # only here: a hook that asks never starts a process

    try:
        return subprocess.Popen(
            [sys.executable, "-m", "curator.agents.warm_server", str(root)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
    except OSError:
        return None


def pid_path(root: str | Path) -> Path:
    return socket_path(root).with_suffix(".pid")


def bind(path: Path) -> socket.socket | None:
    """A listening socket at `path`, or None when a live server already holds it."""
    import socket  # the server's side

    path.parent.mkdir(mode=0o700, exist_ok=True)
    if not _private(path.parent):
        return None  # not ours, or open to others: serve nothing rather than be spoofed
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(path))
    except OSError:
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(str(path))
            sock.close()
            return None  # alive: leave it serving
        except OSError:
            path.unlink(missing_ok=True)  # a dead server's leftover
            sock.bind(str(path))
        finally:
            probe.close()
    sock.listen(8)
    return sock
