"""`curator init --adopt PATH`: what adopting a folder of memory in place would write.

Pure: it reads the folder and says which layout it has, the palace.toml and .gitignore lines
to write, how many notes the layout will read, and the markdown files it will not read (so
`init` can warn with the count instead of reporting success over them). Notes are never
moved or rewritten.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from curator.config import CONFIG_NAME, render_config
from curator.errors import CuratorError
from curator.model.layouts import detect, get_layout
from curator.model.layouts.walk import outside, walk

IGNORED = ("inbox/", ".curator/")


@dataclass(frozen=True)
class AdoptPlan:
    root: Path
    layout: str
    notes: str
    reason: str  # why this layout was chosen
    files: dict[str, str]  # rel -> the text to write (palace.toml, .gitignore)
    note_count: int
    unread: tuple[str, ...]  # markdown files the layout will not read
    runner_up: str = ""  # the layout that came second in detection, and why

    def summary(self) -> list[str]:
        lines = [
            f"adopt {self.root} as a {self.layout} palace ({self.reason})",
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


def render_toml(name: str, layout: str, notes: str, taxonomy: str = "palace") -> str:
    """palace.toml for an adopted folder: curator's defaults plus the layout's lines."""
    text = render_config(name, taxonomy)
    marker = "[palace]\n"
    extra = f'layout = "{layout}"\nnotes = "{notes}"\n'
    return text.replace(marker, marker + extra, 1)


def gitignore(existing: str | None) -> str:
    """The .gitignore with curator's lines added (drafts may hold secrets; state is derived)."""
    text = existing or ""
    missing = [line for line in IGNORED if line not in text.splitlines()]
    if not missing:
        return text
    head = text + ("" if text.endswith("\n") or not text else "\n")
    return (
        head
        + "# curator: unreviewed drafts and machine state\n"
        + "".join(f"{m}\n" for m in missing)
    )


def plan_adopt(path: Path, *, layout: str | None = None, name: str | None = None) -> AdoptPlan:
    root = Path(path).resolve()
    if not root.is_dir():
        raise CuratorError("not a folder", path=str(root))
    if (root / CONFIG_NAME).exists():
        raise CuratorError(f"{root / CONFIG_NAME} already exists: this is a palace already")
    found = detect(root)
    chosen = get_layout(layout or found.layout)
    asked = layout is not None and layout != found.layout
    reason = f"as asked; detected {found.layout}: {found.reason}" if asked else found.reason
    runner_up = "" if asked else found.runner_up
    notes = chosen.notes
    read = [rel for rel, is_md in walk(root, chosen) if is_md]
    ignore_path = root / ".gitignore"
    existing = ignore_path.read_text(encoding="utf-8") if ignore_path.exists() else None
    files = {CONFIG_NAME: render_toml(name or root.name, chosen.name, notes)}
    ignore = gitignore(existing)
    if ignore != (existing or ""):
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
