"""A basic-memory project: one entity per file, its `title` the name, a `permalink` to link by.

Relations (`- relation [[Target]]`) are links like any other; one to a note that does not
exist yet is a warning, because basic-memory keeps forward references by design.
Observations (`- [category] text #tag (context)`) stay in the body as written, so search
finds them like any other text.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from curator.model.layouts.base import (
    Entry,
    Layout,
    Severity,
    stem,
    title_stem,
)


def permalink_of(rel: str) -> str:
    """basic-memory's generated permalink: the path without .md, lower case, words joined by -."""
    path = rel[:-3] if rel.lower().endswith(".md") else rel
    parts = [re.sub(r"[^a-z0-9]+", "-", p.lower()).strip("-") for p in path.split("/")]
    return "/".join(p for p in parts if p)


def project_prefix(notes: Iterable[tuple[str, str]], default: str = "") -> str:
    """The prefix the project's notes put before the path in their permalinks, given
    (rel, permalink) of each: basic-memory writes `<project>/<path>` when its config says
    permalinks include the project (its default in current versions) and `<path>` otherwise,
    so the notes already there say which. The prefix most notes share, or "" when most have
    none; `default` (`configured_prefix`) when there are no notes to ask."""
    votes: Counter[str] = Counter()
    for rel, permalink in notes:
        generated = permalink_of(rel)
        permalink = permalink.strip("/")
        if not generated or permalink.casefold() == generated.casefold():
            votes[""] += 1
        elif permalink.casefold().endswith("/" + generated.casefold()):
            votes[permalink[: -len(generated) - 1]] += 1
    if not votes:
        return default
    (prefix, count), *_ = votes.most_common(1)
    return prefix if count > votes[""] else ""


def configured_prefix(root: Path) -> str:
    """The prefix basic-memory's own config gives the project at `root`: its name as a
    permalink when `permalinks_include_project` holds (its default; the environment's
    BASIC_MEMORY_PERMALINKS_INCLUDE_PROJECT first), "" when it is false or when no project
    of the config (`~/.basic-memory/config.json`, or BASIC_MEMORY_CONFIG_DIR's) is this
    folder. A config that cannot be read gives ""."""
    folder = os.environ.get("BASIC_MEMORY_CONFIG_DIR") or os.path.join("~", ".basic-memory")
    try:
        with open(os.path.expanduser(os.path.join(folder, "config.json")), "rb") as handle:
            config = json.loads(handle.read(1 << 20))
    except (OSError, ValueError):
        return ""
    if not isinstance(config, dict):
        return ""
    include = os.environ.get("BASIC_MEMORY_PERMALINKS_INCLUDE_PROJECT")
    wanted = config.get("permalinks_include_project", True) if include is None else (
        include.strip().lower() in ("1", "true", "yes", "on")
    )  # fmt: skip
    projects = config.get("projects")
    if wanted is not True or not isinstance(projects, dict):
        return ""
    here = os.path.realpath(root)
    for name, entry in projects.items():
        path = entry.get("path") if isinstance(entry, dict) else entry
        if isinstance(path, str) and os.path.realpath(os.path.expanduser(path)) == here:
            return permalink_of(f"{name}.md")
    return ""


def unique_permalink(desired: str, taken: Iterable[str]) -> str:
    """`desired`, or `desired-1`, `desired-2`, ... when a note holds it, as basic-memory
    makes one unique (permalinks compare without case)."""
    held = {p.casefold() for p in taken}
    permalink, suffix = desired, 1
    while permalink.casefold() in held:
        permalink = f"{desired}-{suffix}"
        suffix += 1
    return permalink


@dataclass(frozen=True)
class BasicMemory(Layout):
    name: str = "basic-memory"
    notes: str = "."
    lenient: bool = True
    default_confidence: float | None = 0.75
    dangling: Severity = "warning"
    rooms_by_folder: bool = True
    # basic-memory's own front matter (and the identity fields curator reads from it): every
    # other curator field lives under `curator:`, and a top-level one is the project's own
    tool_properties: bool = True
    native: frozenset[str] | None = frozenset(
        {"title", "name", "description", "type", "tags", "permalink"}
    )

    def dangling_problem(self, target: str, written: str = "") -> tuple[Severity, str, str]:
        return (
            "warning",
            "link.forward",
            f"{target!r} does not exist yet (a forward reference basic-memory keeps)",
        )

    def file_stem(self, name: str, type: str) -> str:
        return title_stem(name)  # basic-memory writes "<title>.md"

    def new_header(self, rel: str, header: Mapping[str, Any]) -> dict[str, Any]:
        """basic-memory's fields first: title (its name) and a permalink to link by."""
        fields = super().new_header(rel, header)
        title = fields.pop("name", None) or stem(rel)
        return {"title": title, **fields, "permalink": permalink_of(rel)}

    def permalink(self, rel: str, header: Mapping[str, Any]) -> str:
        value = header.get("permalink")
        return value.strip().strip("/") if isinstance(value, str) and value.strip() else ""

    def entry(
        self, rel: str, view: Mapping[str, Any], header: Mapping[str, Any], body: str
    ) -> Entry:
        entry = super().entry(rel, view, header, body)
        if entry.permalink:
            return entry
        return Entry(entry.rel, entry.name, entry.aliases, permalink_of(rel), entry.body)

    def keys(self, entry: Entry) -> Iterator[str]:
        yield stem(entry.rel)
        yield entry.name
        yield entry.permalink
        yield posixpath.basename(entry.permalink)

    def find(self, table: Any, source_rel: str, target: str, kind: str) -> str | None:
        if target.startswith("memory://"):
            target = target[len("memory://") :]
        target = target.strip("/")
        found = super().find(table, source_rel, target, kind)
        if found is None and kind != "md" and not target.lower().endswith(".md"):
            # basic-memory keeps every other file as an entity titled by its file name, so
            # `![[pic.png]]` reaches attachments/pic.png (the shortest path first)
            attachment = table.shortest(target)
            if attachment is not None and not attachment.lower().endswith(".md"):
                return str(attachment)
        return found


LAYOUT = BasicMemory()
