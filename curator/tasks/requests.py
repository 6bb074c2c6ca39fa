"""requests.md: every request of the person, with its time, in their exact words.

Each entry is a heading line that gives its number, time, who recorded it and the length of
the words in bytes, a blank line, the words byte for byte, and a blank line:

    ### Request 2 · 2026-12-01T11:05:11Z · by "agent-7" · 41 bytes

    Please keep the old API; **don't** rename it.

The length makes the file read back exactly, whatever the words hold (headings, markup,
escape sequences, invalid UTF-8). Appending rewrites nothing: the new file is the old bytes
plus one entry, installed atomically, and the old bytes are checked to be a prefix of it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from curator.tasks.errors import BadCheckpoint, TaskError

MAX_BYTES = 256 * 1024
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


def parse(data: bytes, rel: str = "requests.md") -> list[Request]:
    """Every request in the file; BadCheckpoint (with the line) when it was edited by hand."""
    pos = data.find(b"\n\n") + 2 if data.startswith(b"# ") else 0
    out: list[Request] = []
    while pos < len(data):
        match = _ENTRY.match(data, pos)
        if match is None:
            line = data.count(b"\n", 0, pos) + 1
            raise BadCheckpoint("not a request entry (edited by hand?)", path=rel, line=line)
        size = int(match.group(4))
        start = match.end()
        words = data[start : start + size]
        if len(words) != size or data[start + size : start + size + 2] != b"\n\n":
            line = data.count(b"\n", 0, pos) + 1
            raise BadCheckpoint(
                "a request is cut short or longer than it says", path=rel, line=line
            )
        out.append(
            Request(int(match.group(1)), match.group(2).decode(), json.loads(match.group(3)), words)
        )
        pos = start + size + 2
    return out


def append(old: bytes | None, slug: str, by: str, words: bytes, at: str) -> tuple[Request, bytes]:
    """The request as entry number n+1 and the new file bytes (old bytes + the entry)."""
    if not words.strip():
        raise TaskError("the request is empty: give the person's words on stdin")
    if len(words) > MAX_BYTES:
        raise TaskError(f"the request is {len(words)} bytes; at most {MAX_BYTES} are kept")
    base = old if old else title(slug)
    count = len(parse(base))
    request = Request(count + 1, at, by, words)
    head = (
        f"### Request {request.number} · {at} · by {json.dumps(by, ensure_ascii=True)} · "
        f"{len(words)} bytes\n\n"
    ).encode()
    return request, base + head + words + b"\n\n"
