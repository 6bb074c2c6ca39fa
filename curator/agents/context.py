"""Memory packs in an agent's context file (CLAUDE.md, AGENTS.md): one managed section.

    <!-- curator:pack begin: written by `curator pack --into`; edit the palace, not this -->
    ...the pack...
    <!-- curator:pack end sha256:0123456789ab -->

`write_pack` replaces only the bytes between (and including) the two marker lines, or appends
the section to a file without them, atomically and through a symbolic link; every other byte
stays as it was. The end marker carries a digest of the section, so a hand edit inside it is
detected and refused unless forced. A file never grows past its line cap: the pack's
lowest-scored entries are cut until the file fits, and the result says how many were cut.

`context_findings(root, config)` is the `curator check` rule: the palace's always-loaded files
(palace.toml `[agents] always_loaded`, CLAUDE.md by default) must stay within the cap.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from curator.agents.service import AgentRefusal
from curator.model.finding import Finding

__all__ = ["PackWrite", "context_findings", "split_pack", "write_pack"]

BEGIN = "<!-- curator:pack begin: written by `curator pack --into`; edit the palace, not this -->"
END = "<!-- curator:pack end sha256:{digest} -->"
_BEGIN_RE = re.compile(r"^<!-- curator:pack begin\b.*-->[ \t]*\r?$", re.MULTILINE)
_END_RE = re.compile(r"^<!-- curator:pack end sha256:([0-9a-f]{12}) -->[ \t]*\r?$", re.MULTILINE)
_ENTRY = re.compile(r"^## .*\n> hint, not truth — source: ", re.MULTILINE)


@dataclass(frozen=True)
class PackWrite:
    path: Path
    kept: int  # pack entries written
    cut: int  # entries cut to keep the file under the cap
    lines: int  # lines of the file after the write
    cap: int
    created: bool


def split_pack(text: str) -> tuple[str, list[str]]:
    """(preamble, entries best first) of a `Searcher.pack` text."""
    starts = [m.start() for m in _ENTRY.finditer(text)]
    if not starts:
        return text, []
    bounds = [*starts, len(text)]
    entries = [text[a:b].rstrip("\n") + "\n" for a, b in itertools.pairwise(bounds)]
    return text[: starts[0]], entries


def _digest(body: str) -> str:
    return hashlib.sha256(body.replace("\r\n", "\n").encode("utf-8")).hexdigest()[:12]


def _section(body: str, newline: str) -> str:
    content = body.strip("\n") + "\n"
    text = f"{BEGIN}\n{content}{END.format(digest=_digest(content))}\n"
    return text.replace("\n", newline)


def _locate(text: str, path: Path, force: bool) -> tuple[int, int] | None:
    """(start, end) of the managed section in `text`, None when it has none."""
    begins = list(_BEGIN_RE.finditer(text))
    ends = list(_END_RE.finditer(text))
    if not begins and not ends:
        return None
    if len(begins) != 1 or len(ends) != 1 or ends[0].start() < begins[0].end():
        raise AgentRefusal(
            f"{path}: the curator:pack marker lines are damaged (want one begin line, then one "
            "end line); fix or remove them by hand"
        )
    start, end = begins[0].start(), ends[0].end()
    if end < len(text) and text[end] == "\r":
        end += 1
    if end < len(text) and text[end] == "\n":
        end += 1
    body = text[begins[0].end() + 1 : ends[0].start()]  # after the begin line's "\n"
    if _digest(body) != ends[0].group(1) and not force:
        raise AgentRefusal(
            f"{path}: the memory pack section was edited by hand since curator wrote it; "
            "move your text outside the markers, or pass --force to overwrite it"
        )
    return start, end


def _lines(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def write_pack(path: Path, pack: str, *, cap: int, force: bool = False) -> PackWrite:
    """Write `pack` into the managed section of `path` (see the module docstring)."""
    from curator.fsutil import write_user_file

    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raw = None
    except OSError as exc:
        raise AgentRefusal(f"cannot read {path}: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8") if raw is not None else ""
    except UnicodeDecodeError:
        raise AgentRefusal(f"{path} is not UTF-8 text; refusing to rewrite it") from None
    newline = "\r\n" if "\r\n" in text else "\n"
    where = _locate(text, path, force)
    if where is None:
        sep = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
        head, tail = text + sep.replace("\n", newline), ""
    else:
        head, tail = text[: where[0]], text[where[1] :]
    preamble, entries = split_pack(pack)
    kept = list(entries)
    while True:
        body = preamble + "".join(kept)
        if len(kept) < len(entries):
            body = body.rstrip("\n") + (
                f"\n\n_{len(entries) - len(kept)} lower-scored notes cut to keep this file "
                f"under {cap} lines._\n"
            )
        new = head + _section(body, newline) + tail
        if _lines(new) <= cap or not kept:
            break
        kept.pop()
    if _lines(new) > cap:
        raise AgentRefusal(
            f"{path} would have {_lines(new)} lines, over its cap of {cap} even without any "
            "memory: shorten the file or raise [agents] max_lines"
        )
    if new.encode("utf-8") != raw:
        write_user_file(path, new.encode("utf-8"))  # CLAUDE.md -> AGENTS.md stays a link
    return PackWrite(path, len(kept), len(entries) - len(kept), _lines(new), cap, raw is None)


def context_findings(root: Path, config: Any = None) -> list[Finding]:
    """`curator check`: always-loaded context files longer than their cap (warnings)."""
    from curator.agents.settings import load_settings

    try:
        settings = load_settings(Path(root))
    except Exception as exc:  # a bad [agents] table is reported, not raised, by check
        return [Finding("palace.toml", 0, "error", "agents.config", str(exc))]
    out: list[Finding] = []
    for rel in settings.always_loaded:
        path = Path(root) / rel
        try:
            lines = _lines(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
        if lines > settings.max_lines:
            out.append(
                Finding(
                    rel,
                    0,
                    "warning",
                    "context.too-long",
                    f"{rel} is always loaded into an agent's context and has {lines} lines, "
                    f"over the cap of {settings.max_lines}: move detail into notes",
                )
            )
    return out
