"""A reference resolver for Obsidian links, written from Obsidian's help pages alone (Internal
links, Link to a heading/block, Properties, Aliases, Templates, Accepted file formats) and
sharing no code with curator, so a test can compare the two on generated vaults.

What the pages say, and this module does:
- The vault is every file under its folder; files and folders whose name starts with a dot
  are not part of it. The Templates plugin's folder (`.obsidian/templates.json`) holds
  templates: files a link can reach, but not notes.
- `[[target#heading|text]]` and `![[target]]` (an embed) link the same way. Names compare
  without regard to case. A link to a note may leave out `.md`; a link to any other file must
  give its extension. So `.md` is tried after the name as written when its last part has a
  dot, and before it otherwise.
- A name is looked up as a path from the vault root, then from the linking note's folder,
  then as the file name (or path ending) anywhere in the vault, the shortest path winning.
- Aliases are for search and autocomplete: a raw `[[Alias]]` reaches nothing.
- `#heading` matches a heading of the target once both have the characters a link cannot
  hold (and markdown punctuation) replaced by spaces; `#^id` matches a block id.
- A text or list property whose value is `"[[Note]]"` is a link like one in the body.
- A Markdown link `[text](Three%20laws%20of%20motion)` links the same way as the wikilink
  `[[Three laws of motion]]`: its destination is URL-encoded (`%20` for a space) and may
  leave out `.md` (Internal links: "Both formats link to the same note"). Being a markdown
  path, it is read from the linking note's folder first, then from the vault root.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

import yaml

WIKILINK = re.compile(r"!?\[\[([^\[\]|]*?)(?:\|[^\[\]]*)?\]\]")
# a markdown link to a file in the vault (not an image, no scheme such as https:)
MARKDOWN = re.compile(r"(?<!!)\[[^\[\]]*\]\((?![A-Za-z][A-Za-z0-9+.-]*:)([^()\s#][^()\s]*)\)")
BODY_LINK = re.compile(f"{WIKILINK.pattern}|{MARKDOWN.pattern}")
HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$")
BLOCK = re.compile(r"\s\^([A-Za-z0-9-]+)\s*$")
PUNCTUATION = set('!"#$%&()*+,.:;<=>?@^`{|}~/[]\\')


@dataclass(frozen=True)
class Answer:
    text: str  # the link as written, between the brackets
    target: str | None  # the file it reaches (vault-relative), None: nothing
    anchor_ok: bool  # its heading or block exists (True when it names none or no note)


def normal_heading(text: str) -> str:
    kept = "".join(" " if ch in PUNCTUATION else ch for ch in text)
    return " ".join(kept.split()).lower()


class Vault:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.files: list[str] = []
        for folder, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            for name in names:
                if not name.startswith("."):
                    rel = os.path.relpath(os.path.join(folder, name), root)
                    self.files.append(rel.replace(os.sep, "/"))
        self.files.sort()
        self.templates = self._templates_folder()
        self.lower = {f.lower(): f for f in self.files}

    def _templates_folder(self) -> str | None:
        try:
            settings = json.loads((self.root / ".obsidian" / "templates.json").read_text())
        except (OSError, ValueError):
            return None
        folder = settings.get("folder") if isinstance(settings, dict) else None
        return folder.strip("/") if isinstance(folder, str) and folder.strip("/") else None

    def notes(self) -> list[str]:
        """The markdown files that are notes (not templates), vault-relative."""
        out = []
        for rel in self.files:
            if not rel.lower().endswith(".md"):
                continue
            if self.templates and rel.lower().startswith(self.templates.lower() + "/"):
                continue
            out.append(rel)
        return out

    def _split(self, rel: str) -> tuple[dict[str, object], str]:
        text = (self.root / rel).read_text(encoding="utf-8")
        if not text.startswith("---\n"):
            return {}, text
        end = text.find("\n---\n", 3)
        if end < 0:
            return {}, text
        try:
            data = yaml.safe_load(text[4 : end + 1])
        except yaml.YAMLError:
            return {}, text[end + 5 :]
        return (data if isinstance(data, dict) else {}), text[end + 5 :]

    def links(self, rel: str) -> list[tuple[str, bool]]:
        """The links of a note as (text, is a markdown link): its properties' in order, then
        its body's."""
        props, body = self._split(rel)
        found: list[tuple[str, bool]] = []
        for value in props.values():
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, str):
                    found += [(m.group(1), False) for m in WIKILINK.finditer(item)]
        for match in BODY_LINK.finditer(_without_code(body)):
            wiki = match.group(1)
            found.append((wiki, False) if wiki is not None else (match.group(2), True))
        return [(f, md) for f, md in found if f.split("#", 1)[0].strip()]

    def _anchors(self, rel: str) -> tuple[set[str], set[str]]:
        _, body = self._split(rel)
        headings, blocks = set(), set()
        for line in _without_code(body, spans=False).splitlines():
            match = HEADING.match(line)
            if match:
                headings.add(normal_heading(match.group(1)))
            elif block := BLOCK.search(line):
                blocks.add(block.group(1).lower())
        return headings, blocks

    def _lookup(self, source: str, name: str, markdown: bool = False) -> str | None:
        folder = source.rsplit("/", 1)[0] if "/" in source else ""
        paths = [name, f"{folder}/{name}" if folder else name]
        for path in reversed(paths) if markdown else paths:
            found = self.lower.get(os.path.normpath(path).replace(os.sep, "/").lower())
            if found:
                return found
        return None

    def _anywhere(self, name: str) -> str | None:
        wanted = "/" + name.lower().strip("/")
        hits = [f for f in self.files if ("/" + f.lower()).endswith(wanted)]
        hits.sort(key=lambda f: (f.count("/"), len(f), f))
        return hits[0] if hits else None

    def resolve_link(self, source: str, text: str, markdown: bool) -> Answer:
        """What a link as written reaches: a markdown link's parts are URL-decoded first."""
        if not markdown:
            return self.resolve(source, text)
        path, hash_, anchor = text.partition("#")
        answer = self.resolve(source, unquote(path) + hash_ + unquote(anchor), markdown=True)
        return Answer(text, answer.target, answer.anchor_ok)

    def resolve(self, source: str, text: str, markdown: bool = False) -> Answer:
        path, _, anchor = text.partition("#")
        path = path.strip()
        last = path.rsplit("/", 1)[-1]
        if path.lower().endswith(".md"):
            names = [path]
        elif "." in last:
            names = [path, path + ".md"]
        else:
            names = [path + ".md", path]
        target = next((t for n in names if (t := self._lookup(source, n, markdown))), None)
        if target is None:
            target = next((t for n in names if (t := self._anywhere(n))), None)
        if target is None or not anchor or target not in self.notes():
            return Answer(text, target, True)
        headings, blocks = self._anchors(target)
        anchor = anchor.strip()
        if anchor.startswith("^"):
            return Answer(text, target, anchor[1:].lower() in blocks)
        return Answer(text, target, normal_heading(anchor.split("#")[-1]) in headings)


def _without_code(body: str, *, spans: bool = True) -> str:
    """The body without fenced code blocks and (with `spans`) inline code: links there are
    text. A heading keeps its inline code, whose text it matches."""
    out, fenced = [], False
    for line in body.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            out.append(re.sub(r"`[^`]*`", "", line) if spans else line)
    return "\n".join(out)
