"""The bubblewrap sandbox around an audited command: find bwrap, build its arguments, read its
status, and say plainly when commands run without it."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Literal

Sandbox = Literal["auto", "bwrap", "none"]
SAFE_PATH = "/usr/bin:/bin"
INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"
)

#: bwrap options before the per-run binds: read-only root, private /dev /proc /tmp, no network
BASE_ARGS: tuple[str, ...] = (
    "--ro-bind", "/", "/",
    "--dev", "/dev",
    "--proc", "/proc",
    "--tmpfs", "/tmp",
    "--unshare-all",
    "--die-with-parent",
)  # fmt: skip


def find_bwrap() -> str | None:
    """The bwrap executable on the safe PATH, or None when it is not installed."""
    return shutil.which("bwrap", path=SAFE_PATH)


def notice(mode: str, bwrap: str | None = None) -> str | None:
    """One sentence when commands would run without the sandbox; None when they would not."""
    if mode == "none":
        return 'audit commands run without the bubblewrap sandbox (sandbox = "none" in palace.toml)'
    if (bwrap or find_bwrap()) is None:
        if mode == "bwrap":
            return f'sandbox = "bwrap" but bwrap is not installed: {INSTALL_HINT}'
        return f"audit commands run without the sandbox (bwrap is not installed): {INSTALL_HINT}"
    return None


def bwrap_args(
    bwrap: str, cwd: Path, root: Path, home: str, status_fd: int, keep: tuple[str, ...]
) -> list[str]:
    """The bwrap command line up to `--`; `keep` are paths under /tmp the command needs."""
    args = [bwrap, *BASE_ARGS]
    # --tmpfs /tmp hides anything under /tmp: bring back what the command needs.
    needed = {str(root), sys.prefix, sys.base_prefix, *keep}
    for path in sorted(needed):
        if path == "/tmp" or path.startswith("/tmp/"):
            args += ["--ro-bind", path, path]
    args += ["--bind", home, home, "--chdir", str(cwd), "--json-status-fd", str(status_fd)]
    return [*args, "--"]


def read_status_fd(fd: int) -> list[dict[str, object]]:
    """bwrap's --json-status-fd lines (one JSON object per line, or pretty JSON objects)."""
    chunks = []
    os.set_blocking(fd, False)
    while True:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    text = b"".join(chunks).decode("utf-8", errors="replace")
    decoder = json.JSONDecoder()
    out: list[dict[str, object]] = []
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return out
        try:
            obj, pos = decoder.raw_decode(text, pos)
        except ValueError:
            return out
        if isinstance(obj, dict):
            out.append(obj)
