"""`curator capture`: an agent drops a draft into inbox/ (body on stdin).

Agents and hooks call this, so it never waits on a terminal, never waits forever on a pipe,
never prints a traceback and never leaves a half-written file. Exit codes: 0 the draft was
written; 2 refused (one line on stderr says why); 3 internal error (also one line).
"""

from __future__ import annotations

import argparse
import os
import select
import sys
import threading
import time
from typing import IO, Any

from curator.cli.common import Subcommands, err, out, print_json
from curator.errors import CuratorError
from curator.fsutil import split_bom
from curator.model.note import MAX_BYTES
from curator.model.text import one_line

STDIN_TIMEOUT = 10.0  # seconds to wait for the body on a pipe before giving up


class StdinError(CuratorError):
    """The body could not be read from stdin (a terminal, a hang, too big, not UTF-8)."""


def register(sub: Subcommands) -> None:
    p = sub.add_parser(
        "capture",
        help="write a new draft into the inbox (body on stdin); for agents and hooks",
        description="Write a draft into the inbox ([palace] inbox in palace.toml) for review: "
        "the body is read from stdin. Prints the draft's path and the most similar notes and "
        "drafts; flags secret-looking text. "
        "Exit 0 written, 2 refused, 3 internal error.",
    )
    p.add_argument("--type", required=True, help="the note type (one of the palace's taxonomy)")
    p.add_argument("--name", required=True, help="a one-line title for the memory")
    p.add_argument("--description", default="", help="one line: what the memory says")
    p.add_argument(
        "--source", help="where it came from: text, or key=value,key=value (e.g. session=s1)"
    )
    p.add_argument("--scope", help="the project scope (default: shared across projects)")
    p.add_argument("--tags", default="", help="comma-separated tags (at most 8)")
    p.add_argument(
        "--context",
        help="the text the fact came from (conversation turns, file and lines); searched, "
        "never the fact itself",
    )
    p.add_argument(
        "--stdin-timeout",
        type=float,
        default=STDIN_TIMEOUT,
        metavar="SECONDS",
        help=f"give up waiting for the body on stdin after this long (default {STDIN_TIMEOUT:g})",
    )
    p.set_defaults(handler=cmd_capture)


def cmd_capture(args: argparse.Namespace) -> int:
    """Errors end as every command's do (curator.cli.common.run_handler): one line, exit 2
    refused or 3 internal, nothing half-written."""
    from curator.model.palace import find_palace
    from curator.model.text import not_utf8
    from curator.writer.capture import capture

    for flag in ("type", "name", "description", "source", "scope", "tags", "context"):
        bad = not_utf8(getattr(args, flag, None) or "")
        if bad is not None:  # its bytes were not UTF-8: Python kept them as surrogates
            raise CuratorError(f"--{flag} is not valid UTF-8 text (it holds {bad}); refused")
    root = find_palace(getattr(args, "palace", None))
    body = read_body(sys.stdin, timeout=args.stdin_timeout)
    tags = [t for t in (args.tags or "").split(",") if t.strip()]
    result = capture(
        root,
        type=args.type,
        name=args.name,
        body=body,
        description=args.description or "",
        source=args.source,
        scope=args.scope,
        tags=tags,
        context=args.context,
    )
    if args.json:
        print_json(result.to_json())
    else:
        out(result.path)
        if result.similar:
            out("similar:")
            for s in result.similar:
                out(f"  {s.score:>3}  {s.path}  {one_line(s.name, 100)}")
    for hit in result.secrets:
        err(f"curator: warning: possible secret ({hit.kind}) on line {hit.line}: {hit.preview}")
    for warning in result.warnings:
        err(f"curator: warning: {warning}")
    return 0


# -- stdin ---------------------------------------------------------------------------------------
def read_body(stream: IO[Any] | None, *, timeout: float = STDIN_TIMEOUT) -> str:
    """The body from stdin: refuses a terminal, waits at most `timeout`, reads at most 1 MiB."""
    if stream is None:
        raise StdinError("no stdin: pipe the body on stdin")
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        fd = None
    if fd is not None and os.isatty(fd):
        raise StdinError("stdin is a terminal: pipe the body on stdin")
    data = _read_fd(fd, timeout) if fd is not None else _read_stream(stream, timeout)
    if len(data) > MAX_BYTES:
        raise StdinError("the body on stdin is over the 1 MiB limit")
    data = split_bom(data)[1]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StdinError(f"the body is not UTF-8 (byte {exc.start})") from None


def _read_fd(fd: int, timeout: float) -> bytes:
    """Up to MAX_BYTES + 1 bytes, until EOF; StdinError when the writer stalls past the deadline."""
    deadline = time.monotonic() + timeout
    chunks: list[bytes] = []
    size = 0
    while size <= MAX_BYTES:
        left = deadline - time.monotonic()
        if left <= 0:
            raise _timeout(timeout)
        try:
            ready, _, _ = select.select([fd], [], [], left)
        except (OSError, ValueError):  # not selectable (rare): fall back to a reader thread
            return b"".join(chunks) + _read_in_thread(lambda: os.read(fd, MAX_BYTES + 1), left)
        if not ready:
            raise _timeout(timeout)
        chunk = os.read(fd, min(1 << 16, MAX_BYTES + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _read_stream(stream: IO[Any], timeout: float) -> bytes:
    """A stream without a file descriptor (tests, embedding): read it in a thread, bounded."""

    def read() -> bytes:
        source = getattr(stream, "buffer", stream)
        data = source.read(MAX_BYTES + 1)
        return data.encode("utf-8") if isinstance(data, str) else bytes(data or b"")

    return _read_in_thread(read, timeout)


def _read_in_thread(read: Any, timeout: float) -> bytes:
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["data"] = read()
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=run, name="curator-stdin", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise _timeout(timeout)
    if "error" in box:
        raise StdinError(f"cannot read stdin: {box['error']}")
    return bytes(box.get("data", b""))


def _timeout(timeout: float) -> StdinError:
    return StdinError(
        f"no end of input on stdin after {timeout:g} s: pipe the body and close stdin"
    )
