"""Which layout a folder of memory already has, for `curator init --adopt`: every signal is
weighed, and the answer says why it won and what came second.

A tool's own marker (`.obsidian/`, `.basic-memory`, Claude Code's MEMORY.md, curator's notes/
with INDEX.md, or basic-memory's config naming the folder as a project) is strong evidence; the
notes themselves are weaker evidence, by the share of a sample that shows each tool's
syntax: wikilinks and embeds for Obsidian, `## Observations` / `## Relations` for basic-memory.
A `permalink:` counts little: Obsidian Publish writes it too (Obsidian's own help vault has one
in every note).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from curator.model.layouts.claude_code import INDEX as MEMORY_INDEX
from curator.model.note import FENCE

SCAN_LIMIT = 200  # notes sampled
_READ = 8192  # bytes read of each
MARKER = 10.0  # a tool's own file or folder
_WIKI = re.compile(r"!?\[\[[^\[\]\n]+\]\]")
_BM_SECTION = re.compile(r"^##[ \t]+(Observations|Relations)[ \t]*$", re.MULTILINE)
_PERMALINK = re.compile(r"^permalink:", re.MULTILINE)


@dataclass(frozen=True)
class Detected:
    layout: str
    notes: str
    reason: str
    runner_up: str = ""  # the layout that came second, with its reason ("" when none did)


def _sample(root: Path) -> list[str]:
    found: list[str] = []
    for where, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.lower().endswith(".md") and name != MEMORY_INDEX:
                try:
                    with open(os.path.join(where, name), "rb") as handle:
                        found.append(handle.read(_READ).decode("utf-8", "replace"))
                except OSError:
                    continue
            if len(found) >= SCAN_LIMIT:
                return found
    return found


def basic_memory_projects(home: Path | None = None) -> dict[str, Path]:
    """basic-memory's projects (name -> folder) from its config in the home folder."""
    path = (home or Path.home()) / ".basic-memory" / "config.json"
    try:
        projects = json.loads(path.read_text(encoding="utf-8")).get("projects", {})
    except (OSError, ValueError, AttributeError):
        return {}
    if not isinstance(projects, dict):
        return {}
    out: dict[str, Path] = {}
    for name, value in projects.items():
        where = value.get("path") if isinstance(value, dict) else value
        if isinstance(where, str):
            out[str(name)] = Path(where).expanduser()
    return out


def scores(root: Path) -> dict[str, tuple[float, list[str]]]:
    """layout -> (score, the reasons for it), for every layout some signal points at."""
    root = Path(root)
    found: dict[str, tuple[float, list[str]]] = {}

    def add(layout: str, weight: float, reason: str) -> None:
        if weight <= 0:
            return
        score, reasons = found.get(layout, (0.0, []))
        found[layout] = (score + weight, [*reasons, reason])

    if (root / ".obsidian").is_dir():
        add("obsidian", MARKER, "it has an .obsidian/ folder")
    if (root / ".basic-memory").exists():
        add("basic-memory", MARKER, "it has a .basic-memory marker")
    resolved = root.resolve()
    for name, where in basic_memory_projects().items():
        if where.resolve() == resolved:
            add("basic-memory", MARKER, f"basic-memory's config lists it as project {name!r}")
    if (root / MEMORY_INDEX).is_file():
        add("claude-code", MARKER, f"it has {MEMORY_INDEX}, Claude Code's index")
    if (root / "notes").is_dir() and (root / "INDEX.md").is_file():
        add("curator", MARKER, "it has notes/ and INDEX.md")
    notes = _sample(root)
    if notes:
        count = len(notes)
        wiki = sum(bool(_WIKI.search(n)) for n in notes)
        sections = sum(bool(_BM_SECTION.search(n)) for n in notes)
        permalinks = sum(
            bool(_PERMALINK.search(n[:2048])) for n in notes if FENCE.match(n) is not None
        )
        add("obsidian", 4 * wiki / count, f"{wiki} of {count} notes use [[wikilinks]] or embeds")
        add(
            "basic-memory",
            6 * sections / count,
            f"{sections} of {count} notes have ## Observations or ## Relations",
        )
        add("basic-memory", permalinks / count, f"{permalinks} of {count} notes have a permalink")
    add("folder", 0.5, "a folder of markdown")
    return found


def detect(root: Path) -> Detected:
    """The layout with the most weight; ties go to the stronger marker's order above."""
    ranked = sorted(scores(root).items(), key=lambda item: -item[1][0])
    layout, (_, reasons) = ranked[0]
    notes = "notes" if layout == "curator" else "."
    runner = ""
    if len(ranked) > 1:
        second, (_, why) = ranked[1]
        runner = f"{second}: {'; '.join(why)}"
    return Detected(layout, notes, "; ".join(reasons), runner)
