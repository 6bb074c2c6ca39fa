"""requests.md: every request of the person, with its time, in their exact words.

Each entry is a heading line that gives its number, time, who recorded it and the length of
the words in bytes, a blank line, the words byte for byte, and a blank line:

    ### Request 2 · 2026-12-01T11:05:11Z · by "agent-7" · 41 bytes

    Please keep the old API; **don't** rename it.

The length makes the file read back exactly, whatever the words hold (headings, markup,
escape sequences, invalid UTF-8). Appending rewrites nothing: the new file is the old bytes
plus one entry, installed atomically, and the old bytes are checked to be a prefix of it. A
line added by hand is reported as a warning and skipped; the entries around it still read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from curator.tasks.errors import BadCheckpoint, TaskError

MAX_BYTES = 256 * 1024
_NEXT = re.compile(rb"\n### Request \d+ \xc2\xb7 ")  # where reading resumes after a hand edit
_ENTRY = re.compile(
    rb'### Request (\d+) \xc2\xb7 (\S+) \xc2\xb7 by ("(?:[^"\\\n]|\\.)*") \xc2\xb7 (\d+) bytes\n\n'
)


@dataclass(frozen=True)
class Request:
    number: int
    at: str
    by: str
    words: bytes

    @property
    def text(self) -> str:
        return self.words.decode("utf-8", errors="replace")


def title(slug: str) -> bytes:
    return f"# Requests: {slug}\n\n".encode()


def read(data: bytes, rel: str = "requests.md") -> tuple[list[Request], list[BadCheckpoint]]:
    """Every request in the file, and a warning (with its line) for each stretch that is not
    one: a line a person added by hand, or an entry cut short. Those bytes are skipped to the
    next entry heading; the requests around them are still read."""
    pos = data.find(b"\n\n") + 2 if data.startswith(b"# ") else 0
    out: list[Request] = []
    warnings: list[BadCheckpoint] = []
    while pos < len(data):
        match = _ENTRY.match(data, pos)
        size = int(match.group(4)) if match else 0
        start = match.end() if match else pos
        if match is None or data[start + size : start + size + 2] != b"\n\n":
            line = data.count(b"\n", 0, pos) + 1
            why = "not a request entry" if match is None else "a request cut short or longer"
            warnings.append(BadCheckpoint(f"{why} (edited by hand?)", path=rel, line=line))
            following = _NEXT.search(data, pos)
            pos = following.start() + 1 if following else len(data)
            continue
        words = data[start : start + size]
        out.append(
            Request(int(match.group(1)), match.group(2).decode(), json.loads(match.group(3)), words)
        )
        pos = start + size + 2
    return out, warnings


def parse(data: bytes, rel: str = "requests.md") -> list[Request]:
    """Every request in the file (see `read` for what a hand edit does)."""
    return read(data, rel)[0]


def append(old: bytes | None, slug: str, by: str, words: bytes, at: str) -> tuple[Request, bytes]:
    """The request as entry number n+1 and the new file bytes (old bytes + the entry)."""
    if not words.strip():
        raise TaskError("the request is empty: give the person's words on stdin")
    if len(words) > MAX_BYTES:
        raise TaskError(f"the request is {len(words)} bytes; at most {MAX_BYTES} are kept")
    base = old if old else title(slug)
    if not base.endswith(b"\n"):
        base += b"\n"  # a hand edit left the last line open: the entry starts on its own line
    request = Request(max((r.number for r in parse(base)), default=0) + 1, at, by, words)
    head = (
        f"### Request {request.number} · {at} · by {json.dumps(by, ensure_ascii=True)} · "
        f"{len(words)} bytes\n\n"
    ).encode()
    return request, base + head + words + b"\n\n"
