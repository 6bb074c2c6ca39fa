"""`curator init --adopt PATH`: what adopting a folder of memory in place would write.

Pure: it reads the folder and says which layout it has, the palace.toml and .gitignore lines
to write, how many notes the layout will read, and the markdown files it will not read (so
`init` can warn with the count instead of reporting success over them). Notes are never
moved or rewritten, and a folder whose `inbox/` already holds notes is refused: curator keeps
its unreviewed drafts there and git-ignores it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from curator.config import CONFIG_NAME, name_text, render_config
from curator.errors import CuratorError
from curator.model.discovery import INBOX_DIR, STATE_DIR
from curator.model.layouts import detect, get_layout
from curator.model.layouts.walk import outside, walk
from curator.model.text import with_article

# anchored to the palace root: a folder called inbox deeper down is the user's, not drafts
IGNORED = (f"/{INBOX_DIR}/", f"/{STATE_DIR}/")
IGNORE_COMMENT = "# curator: unreviewed drafts (they may hold secrets) and machine state"


@dataclass(frozen=True)
class AdoptPlan:
    root: Path
    layout: str
    notes: str
    reason: str  # why this layout was chosen
    files: dict[str, bytes]  # rel -> the bytes to write (palace.toml, .gitignore)
    note_count: int
    unread: tuple[str, ...]  # markdown files the layout will not read
    runner_up: str = ""  # the layout that came second in detection, and why

    def summary(self) -> list[str]:
        lines = [
            f"adopt {self.root} as {with_article(self.layout)} palace ({self.reason})",
            f"  notes: {self.notes!r}, {self.note_count} markdown file(s) read in place",
        ]
        if self.runner_up:
            lines.append(f"  runner-up: {self.runner_up}")
        lines += [f"  write  {rel}" for rel in self.files]
        if self.unread:
            lines.append(f"  warning: {len(self.unread)} markdown file(s) outside it, not read:")
            lines += [f"    {rel}" for rel in self.unread[:10]]
            if len(self.unread) > 10:
                lines.append(f"    ... and {len(self.unread) - 10} more")
        return lines


def _present(line: bytes) -> str | None:
    """Which of curator's ignore lines a .gitignore line already covers (None: neither)."""
    bare = line.strip().rstrip(b"/").lstrip(b"/")
    for ours in IGNORED:
        if bare == ours.strip("/").encode():
            return ours
    return None


def gitignore(existing: bytes | None) -> bytes:
    """The .gitignore with curator's lines added: bytes, so a file in any encoding keeps
    every byte, and its line ends."""
    data = existing or b""
    have = {_present(line) for line in data.splitlines()}
    missing = [line for line in IGNORED if line not in have]
    if not missing:
        return data
    nl = b"\r\n" if b"\r\n" in data else b"\n"
    head = data + (b"" if data.endswith(b"\n") or not data else nl)
    return head + nl.join([IGNORE_COMMENT.encode(), *(m.encode() for m in missing)]) + nl


def drafts_in_the_way(root: Path) -> list[str]:
    """Markdown files already in the palace's inbox/ folder (drafts go there, git-ignored)."""
    found = []
    for folder, _dirs, files in os.walk(Path(root) / INBOX_DIR):
        for name in files:
            if name.lower().endswith(".md"):
                rel = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
                found.append(rel)
    return sorted(found)


def plan_adopt(
    path: Path,
    *,
    layout: str | None = None,
    name: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> AdoptPlan:
    """The plan to adopt `path`; `progress` is told the running count of files walked."""
    root = Path(path).resolve()
    if not root.is_dir():
        raise CuratorError("not a folder", path=str(root))
    if (root / CONFIG_NAME).exists():
        raise CuratorError(f"{root / CONFIG_NAME} already exists: this is a palace already")
    in_the_way = drafts_in_the_way(root)
    if in_the_way:
        raise CuratorError(
            f"{INBOX_DIR}/ already holds {len(in_the_way)} markdown file(s) (first: "
            f"{in_the_way[0]}); curator keeps its unreviewed drafts in {INBOX_DIR}/ and keeps "
            "that folder out of git: rename it, then adopt",
            path=str(root / INBOX_DIR),
        )
    found = detect(root)
    chosen = get_layout(layout or found.layout)
    asked = layout is not None and layout != found.layout
    reason = f"as asked; detected {found.layout}: {found.reason}" if asked else found.reason
    runner_up = "" if asked else found.runner_up
    notes = chosen.notes
    read = []
    for rel, is_md in walk(root, chosen):
        if is_md:
            read.append(rel)
            if progress is not None:
                progress(len(read))
    try:
        existing = (root / ".gitignore").read_bytes()
    except FileNotFoundError:
        existing = None
    except OSError as exc:
        raise CuratorError(f"cannot read: {exc.strerror}", path=str(root / ".gitignore")) from None
    palace_name = name_text(name) if name else name_text(root.name)
    toml = render_config(palace_name, "palace", layout=chosen.name, notes=notes)
    files = {CONFIG_NAME: toml.encode("utf-8")}
    ignore = gitignore(existing)
    if ignore != (existing or b""):
        files[".gitignore"] = ignore
    return AdoptPlan(
        root,
        chosen.name,
        notes,
        reason,
        files,
        len(read),
        tuple(outside(root, chosen)),
        runner_up,
    )
