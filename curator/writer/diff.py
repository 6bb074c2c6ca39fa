"""One file's change as a unified diff, the way ``git diff`` shows it (Plan.diff joins them)."""

from __future__ import annotations

import difflib
from pathlib import Path

__all__ = ["file_diff", "read_or_none"]


def read_or_none(root: Path, rel: str) -> bytes | None:
    """The file's bytes, or None when it does not exist (a new file's "before")."""
    try:
        return (root / rel).read_bytes()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def _quote_path(p: str) -> str:
    if any(ch in p for ch in '"\\\t\n') or any(ord(c) < 32 for c in p):
        return '"' + p.encode("unicode_escape").decode("ascii").replace('"', '\\"') + '"'
    return p


def _lines(data: bytes) -> list[str]:
    text = data.decode("utf-8", errors="replace")
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


def _is_binary(data: bytes | None) -> bool:
    return data is not None and b"\x00" in data[:8000]


def file_diff(a: str, b: str, old: bytes | None, new: bytes | None, *, rename: bool = False) -> str:
    qa, qb = _quote_path("a/" + a), _quote_path("b/" + b)
    head = [f"diff --git {qa} {qb}\n"]
    if rename:
        head += [f"rename from {_quote_path(a)}\n", f"rename to {_quote_path(b)}\n"]
    if old is None and new is not None:
        head.append("new file mode 100644\n")
    elif new is None and old is not None:
        head.append("deleted file mode 100644\n")
    if old == new:
        return "".join(head)
    if _is_binary(old) or _is_binary(new):
        return (
            "".join(head) + f"Binary files {qa if old is not None else '/dev/null'} and "
            f"{qb if new is not None else '/dev/null'} differ\n"
        )
    from_name = qa if old is not None else "/dev/null"
    to_name = qb if new is not None else "/dev/null"
    body = difflib.unified_diff(
        _lines(old or b""), _lines(new or b""), fromfile=from_name, tofile=to_name, n=3
    )
    return "".join(head) + "".join(body)
