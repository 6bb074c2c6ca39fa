"""`curator init --adopt PATH`: what adopting a folder of memory in place would write.

Pure: it reads the folder and says which layout it has, the palace.toml and .gitignore lines
to write, how many notes the layout will read, and the markdown files it will not read (so
`init` can warn with the count instead of reporting success over them). Notes are never
moved or rewritten. curator keeps its unreviewed drafts in a folder of their own, git-ignored:
where the default name already holds the user's things (a GTD inbox, Obsidian's "Inbox"),
`free_inbox` picks another, palace.toml names it (`[palace] inbox`) and the plan says so.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from curator.config import CONFIG_NAME, name_text, render_config
from curator.config.schema import DEFAULT_INBOX
from curator.errors import CuratorError
from curator.model.discovery import STATE_DIR
from curator.model.layouts import detect, get_layout
from curator.model.layouts.walk import outside, walk
from curator.model.text import with_article

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
    inbox: str = DEFAULT_INBOX  # the drafts folder palace.toml names
    theirs: str = ""  # the vault's own folder of the default's name, when it has one

    def summary(self) -> list[str]:
        lines = [
            f"adopt {self.root} as {with_article(self.layout)} palace ({self.reason})",
            f"  notes: {self.notes!r}, {self.note_count} markdown file(s) read in place",
        ]
        if self.runner_up:
            lines.append(f"  runner-up: {self.runner_up}")
        if self.theirs:
            lines.append(
                f"  drafts: {self.inbox}/ ({self.theirs}/ is the vault's own: its files stay "
                "yours, read as the layout reads them)"
            )
        lines += [f"  write  {rel}" for rel in self.files]
        if self.unread:
            lines.append(f"  warning: {len(self.unread)} markdown file(s) outside it, not read:")
            lines += [f"    {rel}" for rel in self.unread[:10]]
            if len(self.unread) > 10:
                lines.append(f"    ... and {len(self.unread) - 10} more")
        return lines


def ignored(inbox: str) -> tuple[str, ...]:
    """curator's .gitignore lines: the drafts folder and machine state, anchored to the
    palace root (a folder of that name deeper down is the user's, not drafts)."""
    return (f"/{inbox}/", f"/{STATE_DIR}/")


def _present(line: bytes, ours_lines: tuple[str, ...]) -> str | None:
    """Which of curator's ignore lines a .gitignore line already covers (None: neither)."""
    bare = line.strip().rstrip(b"/").lstrip(b"/")
    for ours in ours_lines:
        if bare == ours.strip("/").encode():
            return ours
    return None


def gitignore(existing: bytes | None, inbox: str) -> bytes:
    """The .gitignore with curator's lines added (`inbox`: the drafts folder): bytes, so a
    file in any encoding keeps every byte, and its line ends."""
    data = existing or b""
    ours = ignored(inbox)
    have = {_present(line, ours) for line in data.splitlines()}
    missing = [line for line in ours if line not in have]
    if not missing:
        return data
    nl = b"\r\n" if b"\r\n" in data else b"\n"
    head = data + (b"" if data.endswith(b"\n") or not data else nl)
    return head + nl.join([IGNORE_COMMENT.encode(), *(m.encode() for m in missing)]) + nl


def taken_by_vault(root: Path) -> str:
    """The vault's own entry named as curator's default drafts folder ("" when none)."""
    with os.scandir(root) as entries:
        return next((e.name for e in entries if e.name.casefold() == DEFAULT_INBOX.casefold()), "")


def free_inbox(root: Path) -> str:
    """A drafts folder that holds nothing of the user's: the default when it is free (absent,
    or an empty folder), else the first free of `curator-<default>`, `curator-<default>-2`...
    Names are compared case-folded: on a case-insensitive disk `Inbox/` is `inbox/`."""
    try:
        names = {entry.name.casefold(): entry for entry in os.scandir(root)}
    except OSError as exc:
        raise CuratorError(f"cannot list folder: {exc.strerror}", path=str(root)) from None

    def free(name: str) -> bool:
        entry = names.get(name.casefold())
        if entry is None:
            return True
        if entry.is_symlink() or not entry.is_dir():
            return False
        try:
            return not any(os.scandir(entry.path))
        except OSError:
            return False

    candidates = (DEFAULT_INBOX, f"curator-{DEFAULT_INBOX}")
    for name in candidates:
        if free(name):
            return name
    n = 2
    while not free(f"{candidates[-1]}-{n}"):
        n += 1
    return f"{candidates[-1]}-{n}"


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
    inbox = free_inbox(root)
    found = detect(root)
    chosen = get_layout(layout or found.layout, inbox=inbox)
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
    toml = render_config(palace_name, "palace", layout=chosen.name, notes=notes, inbox=inbox)
    files = {CONFIG_NAME: toml.encode("utf-8")}
    ignore = gitignore(existing, inbox)
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
        inbox,
        taken_by_vault(root) if inbox != DEFAULT_INBOX else "",
    )
