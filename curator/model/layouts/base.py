"""What every layout shares: where notes are, what is excluded, how a link resolves, and the
lenient header view a foreign file is read through.

A layout is a set of pure rules. `Layout.view(rel, header)` gives the header as curator reads
it (name from the title or file name, the type the layout implies) without touching the
file; `Layout.resolver(...)` builds the link table for one palace; `Resolver.resolve` answers
for one link with the file it reaches and, when it reaches nothing or a missing anchor, the
finding the layout gives (a broken link is an error in curator's layout, a warning where the
owning tool treats it as fine).
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from curator.config.schema import DEFAULT_INBOX
from curator.model.header import DELETE
from curator.model.links import RawLink, shown, text_lines
from curator.model.schema import BY_NAME

Severity = Literal["error", "warning"]
CURATOR_KEY = "curator"  # where a layout without a field for it keeps curator's fields

# curator's fields that are not also a note's identity: in a layout whose tool owns its header
# (`Layout.native`), these live under `curator:` and a top-level one is the tool's own property
STATE_FIELDS = frozenset(BY_NAME) - {"name", "description", "type", "tags"}
_HEADING = re.compile(r"^[ \t]{0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_BLOCK_ID = re.compile(r"(?:^|[ \t])\^([A-Za-z0-9-]+)[ \t]*$")


@dataclass(frozen=True, slots=True)
class Resolved:
    """Where a link goes. `target` is the rel of the note or file it reaches (None: nowhere);
    `problem` is (severity, code, message) when the layout reports it."""

    target: str | None
    problem: tuple[Severity, str, str] | None = None


@dataclass(frozen=True, slots=True)
class Entry:
    """One note as the resolver knows it."""

    rel: str
    name: str
    aliases: tuple[str, ...] = ()
    permalink: str = ""
    body: str = ""  # read for headings and block ids only when a link names one


def code_free_lines(body: str) -> Iterator[tuple[int, str]]:
    """(0-based line number, line) for every line outside code and math blocks."""
    return text_lines(body)


def heading_key(text: str) -> str:
    """How a heading is compared: case-insensitive, whitespace collapsed."""
    return " ".join(text.replace("\\", "").split()).casefold()


def headings_and_blocks(
    body: str, key: Callable[[str], str] = heading_key
) -> tuple[frozenset[str], frozenset[str]]:
    headings: set[str] = set()
    blocks: set[str] = set()
    for _, line in code_free_lines(body):
        heading = _HEADING.match(line)
        if heading:
            headings.add(key(heading.group(2)))
            continue
        block = _BLOCK_ID.search(line)
        if block:
            blocks.add(block.group(1).casefold())
    return frozenset(headings), frozenset(blocks)


def str_list(value: Any) -> list[str]:
    """A list property as tools write it: a YAML list, or one string of comma-separated items."""
    if isinstance(value, str):
        return [v.strip().lstrip("#") for v in value.split(",") if v.strip()]
    if isinstance(value, list):
        return [str(v).strip().lstrip("#") for v in value if isinstance(v, (str, int, float))]
    return []


def title_stem(name: str) -> str:
    """A title as a file name (Obsidian, basic-memory): what a link or a path cannot hold goes."""
    cleaned = re.sub(r'[\\/:*?"<>|#^\[\]\x00-\x1f]+', " ", name)
    return " ".join(cleaned.split())[:120].strip(" .") or "Untitled"


def stem(rel: str) -> str:
    name = posixpath.basename(rel)
    return name[:-3] if name.lower().endswith(".md") else name


def clean_target(link: RawLink) -> tuple[str, str]:
    """The target and anchor as meant: `\\|` in a table leaves a backslash before the pipe
    (a markdown link's are percent-decoded when read)."""
    return link.target.rstrip("\\").strip(), link.heading.rstrip("\\").strip()


@dataclass
class Resolver:
    """The link table of one palace under one layout's rules (case-insensitive)."""

    layout: Layout
    entries: dict[str, Entry]
    files: dict[str, str]  # casefolded rel -> rel, every file under the notes root
    by_key: dict[str, list[str]] = field(default_factory=dict)  # name/stem/alias -> rels
    root: str = ""  # the notes root as a prefix ("" or "vault/"): paths in links start there
    by_base: dict[str, list[str]] = field(default_factory=dict)  # file name -> rels, shortest first
    anchor_cache: dict[str, tuple[frozenset[str], frozenset[str]]] = field(default_factory=dict)

    def add_key(self, key: str, rel: str) -> None:
        rels = self.by_key.setdefault(key.casefold(), [])
        if rel not in rels:
            rels.append(rel)

    def resolve(self, source_rel: str, link: RawLink) -> Resolved:
        target, anchor = clean_target(link)
        rel = self.layout.find(self, source_rel, target, link.kind)
        if rel is None:
            return Resolved(None, self.layout.unresolved(self, target, shown(link)))
        if anchor and rel in self.entries:
            return Resolved(rel, self._anchor_problem(rel, anchor))
        return Resolved(rel)

    def anchors(self, rel: str) -> tuple[frozenset[str], frozenset[str]]:
        """(headings, block ids) of a note, read on first use."""
        found = self.anchor_cache.get(rel)
        if found is None:
            body = self.entries[rel].body
            found = self.anchor_cache[rel] = headings_and_blocks(body, self.layout.heading_key)
        return found

    def _anchor_problem(self, rel: str, anchor: str) -> tuple[Severity, str, str] | None:
        headings, blocks = self.anchors(rel)
        if anchor.startswith("^"):
            if anchor[1:].casefold() in blocks:
                return None
            return ("warning", "link.block", f"{rel} has no block ^{anchor[1:]}")
        last = anchor.split("#")[-1]
        if self.layout.heading_key(last) in headings:
            return None
        return ("warning", "link.heading", f"{rel} has no heading {last!r}")

    def file(self, rel: str) -> str | None:
        return self.files.get(posixpath.normpath(rel).casefold())

    def shortest(self, name: str) -> str | None:
        """The file whose path ends with `name`, the shortest path first (then alphabetical)."""
        candidates = self.ending_with(name)
        return candidates[0] if candidates else None

    def ending_with(self, name: str) -> list[str]:
        """Every file whose path ends with `name`, the shortest path first."""
        key = name.casefold().strip("/")
        candidates = self.by_base.get(posixpath.basename(key), [])
        if "/" in key:
            candidates = [r for r in candidates if ("/" + r.casefold()).endswith("/" + key)]
        return candidates


@dataclass(frozen=True)
class Layout:
    """curator's own layout; the other layouts override what differs."""

    name: str = "curator"
    notes: str = "notes"  # the notes root, relative to the palace root
    index_name: str = "INDEX.md"
    lenient: bool = False  # name, description and type may be absent
    default_type: str | None = None
    default_confidence: float | None = None  # for notes that state none and have no type
    dangling: Severity = "error"
    excludes: tuple[str, ...] = ()  # extra names or paths (relative to the notes root)
    inbox: str = DEFAULT_INBOX  # the palace's drafts folder (`Config.inbox`), never notes
    # header fields the owning tool defines; curator's other fields go under `curator:`
    # (None: the tool keeps any field, so they are written as they are)
    native: frozenset[str] | None = None
    # the note's own properties are the owning tool's, which accepts any (Obsidian,
    # basic-memory): curator's schema judges only what sits under `curator:`
    tool_properties: bool = False
    # a header strict YAML refuses only for an unquoted `: ` in a one-line value is read as
    # the tool reads it, with a warning (`curator.model.layouts.loose`: Claude Code)
    loose_headers: bool = False
    property_links: bool = False  # `[[links]]` in header values are links, as body ones are
    # a markdown link may leave out `.md` (`[x](Three%20laws)`), as `[[links]]` may
    bare_md_links: bool = False
    # rooms are the top-level folders (the tool groups notes by folder), not curator's types
    rooms_by_folder: bool = False

    def dangling_problem(self, target: str, written: str = "") -> tuple[Severity, str, str]:
        """The finding for a link to `target` that reaches nothing; `written` is the link as
        the note wrote it (`[[Name]]`, `[text](Name.md)`)."""
        return (self.dangling, "link.broken", f"link to {target!r} matches no note or file")

    def unresolved(
        self, table: Resolver, target: str, written: str = ""
    ) -> tuple[Severity, str, str]:
        """The finding for a link that reaches nothing (`table` says what it nearly matched)."""
        return self.dangling_problem(target, written)

    def heading_key(self, text: str) -> str:
        """How a heading in a link is compared with the headings of its target."""
        return heading_key(text)

    # -- files ------------------------------------------------------------------------------
    def excluded(self, rel: str, config_excludes: Iterable[str] = ()) -> bool:
        """Whether a path relative to the notes root is outside what the layout reads."""
        parts = rel.split("/")
        # no layout reads a file or folder whose name starts with a dot (.git, .obsidian, .trash,
        # .github): Obsidian leaves them out of the vault, as curator's own walk does
        if any(part.startswith(".") for part in parts):
            return True
        # the layout's own (the drafts folder) are anchored at the notes root; a folder of
        # that name deeper down holds the user's notes. palace.toml's match at any depth.
        drafts = (self.inbox,) if self.notes in ("", ".") else ()  # at the palace root
        for pattern, anywhere in (*((p, False) for p in (*self.excludes, *drafts)),
                                  *((p, True) for p in config_excludes)):  # fmt: skip
            pattern = pattern.strip("/")
            if rel == pattern or rel.startswith(pattern + "/"):
                return True
            if anywhere and pattern in parts[:-1]:
                return True
        return rel == self.index_name

    def templates_folder(self, vault: Path) -> str | None:
        """The folder (relative to the notes root) whose files are the tool's templates."""
        return None

    # -- headers ----------------------------------------------------------------------------
    def view(self, rel: str, header: Mapping[str, Any], types: Iterable[str]) -> dict[str, Any]:
        """The header as curator reads it. Strict layouts read it as written."""
        if not self.lenient:
            return dict(header)
        ours = header.get(CURATOR_KEY)
        if self.native is not None:  # the tool's own properties are not curator's fields
            header = {k: v for k, v in header.items() if k in self.native or k not in STATE_FIELDS}
        view = dict(header)
        if isinstance(ours, dict):
            for key, value in ours.items():
                view.setdefault(str(key), value)
        name = header.get("name") or header.get("title")
        view["name"] = name if isinstance(name, str) and name.strip() else stem(rel)
        kind = self.type_of(rel, header)
        if kind in set(types):
            view["type"] = kind
        else:
            view.pop("type", None)  # a foreign type curator does not know: Unfiled
        if "tags" in header or "tag" in header:  # `- ` alone is an empty tag, read as none
            view["tags"] = str_list(header.get("tags")) or str_list(header.get("tag"))
        return view

    def route(self, header: Mapping[str, Any], updates: Mapping[str, Any]) -> dict[str, Any]:
        """Header updates as this layout stores them: fields the owning tool does not define
        go under `curator:` (merged with what is there; DELETE removes one)."""
        if self.native is None:
            return dict(updates)
        out: dict[str, Any] = {}
        ours = (
            dict(header.get(CURATOR_KEY) or {}) if isinstance(header.get(CURATOR_KEY), dict) else {}
        )
        touched = False
        for key, value in updates.items():
            if key in self.native:
                out[key] = value
                continue
            touched = True
            if value is DELETE:
                ours.pop(key, None)
            else:
                ours[key] = value
        if touched:
            out[CURATOR_KEY] = ours if ours else DELETE
        return out

    def type_of(self, rel: str, header: Mapping[str, Any]) -> str | None:
        kind = header.get("type")
        return kind.strip().lower() if isinstance(kind, str) else self.default_type

    def aliases(self, header: Mapping[str, Any]) -> tuple[str, ...]:
        return ()

    def permalink(self, rel: str, header: Mapping[str, Any]) -> str:
        return ""

    # -- new notes --------------------------------------------------------------------------
    def file_stem(self, name: str, type: str) -> str:
        """The file name (without .md) a new note gets: a slug of its name."""
        ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
        return re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")[:80].rstrip("-") or "note"

    def new_header(self, rel: str, header: Mapping[str, Any]) -> dict[str, Any]:
        """A promoted note's header in the layout's own format (its tool's fields first)."""
        fields = {k: v for k, v in header.items() if v is not None and v is not DELETE}
        return self.route({}, fields) if self.native is not None else fields

    # -- links ------------------------------------------------------------------------------
    def entry(
        self, rel: str, view: Mapping[str, Any], header: Mapping[str, Any], body: str
    ) -> Entry:
        name = view.get("name")
        return Entry(
            rel,
            name if isinstance(name, str) else stem(rel),
            self.aliases(header),
            self.permalink(rel, header),
            body,
        )

    def resolver(self, entries: Iterable[Entry], files: Iterable[str], root: str = "") -> Resolver:
        """The link table: `entries` are the notes, `files` every file under the notes root
        (rels from the palace root, like the notes'); `root` is the notes root."""
        prefix = "" if root in ("", ".") else root.strip("/") + "/"
        table = Resolver(
            self, {e.rel: e for e in entries}, {f.casefold(): f for f in files}, root=prefix
        )
        for entry in table.entries.values():
            for key in self.keys(entry):
                table.add_key(key, entry.rel)
        for rel in table.files.values():
            table.by_base.setdefault(posixpath.basename(rel).casefold(), []).append(rel)
        for index in (table.by_key, table.by_base):
            for rels in index.values():
                rels.sort(key=_shortest_first)
        return table

    def keys(self, entry: Entry) -> Iterator[str]:
        """The words a wikilink may use for a note."""
        yield stem(entry.rel)
        yield entry.name
        yield from entry.aliases
        if entry.permalink:
            yield entry.permalink

    def find(self, table: Resolver, source_rel: str, target: str, kind: str) -> str | None:
        """The rel a link target reaches: a relative path first, then names."""
        if kind == "md":
            return table.file(posixpath.join(posixpath.dirname(source_rel), target))
        folder = posixpath.dirname(source_rel)
        plain = target.removesuffix(".md") if target.lower().endswith(".md") else target
        root = table.root
        same_folder = posixpath.join(folder, f"{plain}.md")
        for candidate in (root + target, f"{root}{plain}.md", same_folder):
            found = table.file(candidate)
            if found is not None:
                return found
        matches = table.by_key.get(plain.casefold(), [])
        return matches[0] if len(matches) == 1 else None


def _shortest_first(rel: str) -> tuple[int, str]:
    """Obsidian's order among files a name matches: the shortest path (as a string: not
    the fewest folders), then alphabetical (Obsidian's own order among equals is not stable)."""
    return (len(rel), rel)
