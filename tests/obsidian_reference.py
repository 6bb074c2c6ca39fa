"""A reference resolver for Obsidian links, written from Obsidian's help pages (Internal links,
Link to a heading/block, Properties, Aliases, Templates, Accepted file formats, Advanced
formatting syntax), the CommonMark spec for markdown links, and the link resolution observed
on Obsidian 1.13.7 through `app.metadataCache` (recorded in pvliesdonk/markdown-vault-mcp's
Obsidian reference page, 2026-09-07). It shares no code with curator and uses no markdown
parser library, so a test can compare the two on generated vaults (tests/obsidian_vault.py);
its scanner handles the shapes that generator writes, not every CommonMark corner.

What it does:
- The vault is every file under its folder; files and folders whose name starts with a dot
  are not part of it. The Templates plugin's folder (`.obsidian/templates.json`) holds
  templates: files a link can reach, but not notes.
- Links: `[[target#heading|text]]` and `![[target]]` (an embed), in the body and in text or
  list properties (`up: "[[Note]]"`); CommonMark links and images in the body: inline
  (`[t](dest "title")`, `<dest with spaces>`, balanced parentheses), full, collapsed and
  shortcut reference links with their `[label]: dest` definitions (a `[^1]` is a footnote).
  A markdown destination is percent-decoded; one with a scheme (`https:`) or only `#anchor`
  is not a link to a file. `[[#heading]]` names a place in the note itself: skipped.
- Nothing inside code is a link: fenced code (``` or ~~~, also indented inside a list item),
  indented code (4 spaces after a blank line, outside a list), code spans; nor inside math:
  `$$` blocks, `$$...$$`, and `$...$` whose `$` touch no space and whose closing `$` is not
  followed by a digit.
- Resolution, the same for a wikilink and a decoded markdown destination: a path starting
  `./` or `../` is read from the linking note's folder; otherwise the exact path from the
  vault root wins, then the linking note's own folder, then any file whose path ends with
  the name, the shortest path string first (alphabetical among equals; Obsidian's own order
  there is not stable). Names compare without regard to case. A link to a note may leave
  out `.md`; a link to any other file must give its extension: `.md` is tried after the
  name as written when its last part has a dot, and before it otherwise.
- Aliases are for search and autocomplete: a raw `[[Alias]]` reaches nothing.
- `#heading` matches a heading of the target once both have the characters a link cannot
  hold (and markdown punctuation) replaced by spaces; `#^id` matches a block id.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

import yaml

WIKILINK = re.compile(r"!?\[\[([^\[\]|]*?)(?:\|[^\[\]]*)?\]\]")
HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$")
BLOCK = re.compile(r"\s\^([A-Za-z0-9-]+)\s*$")
PUNCTUATION = set('!"#$%&()*+,.:;<=>?@^`{|}~/[]\\')
LIST_ITEM = re.compile(r"^( *)(?:[-*+]|\d{1,9}[.)])( +|$)")
DEFINITION = re.compile(r"^ {0,3}\[([^\]]+)\]:[ \t]*(<[^>\n]*>|\S+)")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass(frozen=True)
class Answer:
    text: str  # the link's path and anchor, decoded (`Notes/My Note.md#Part`)
    target: str | None  # the file it reaches (vault-relative), None: nothing
    anchor_ok: bool  # its heading or block exists (True when it names none or no note)


def normal_heading(text: str) -> str:
    kept = "".join(" " if ch in PUNCTUATION else ch for ch in text)
    return " ".join(kept.split()).lower()


# -- what is text --------------------------------------------------------------------------
def text_lines(body: str) -> list[tuple[int, str, bool]]:
    """(line index, line, starts a block) for the lines outside code and math blocks."""
    out: list[tuple[int, str, bool]] = []
    fence: str | None = None
    math = False
    blank = True
    indented_code = False
    item_column: int | None = None  # where the current list item's content starts
    for number, line in enumerate(body.split("\n")):
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        if fence is not None:
            if stripped.startswith(fence) and not stripped.rstrip().strip(fence[0]):
                fence = None
            continue
        if math:
            math = "$$" not in line
            continue
        if not stripped.strip():
            blank = True
            continue
        item = LIST_ITEM.match(line)
        if item:
            item_column = len(item.group(0))
            rest = line[item_column:]
        elif item_column is not None and indent >= item_column:
            rest = line[item_column:]
        else:
            if blank:
                item_column = None
            rest = line
        inner = rest.lstrip(" ")
        inner_indent = len(rest) - len(inner)
        if inner_indent <= 3 and inner[:3] in ("```", "~~~"):
            fence = re.match(r"`+|~+", inner).group(0)  # type: ignore[union-attr]
            blank = False
            continue
        if inner_indent <= 3 and inner.startswith("$$"):
            math = inner.count("$$") < 2
            blank = False
            continue
        if not item and item_column is None and indent >= 4 and (blank or indented_code):
            indented_code = True
            continue
        indented_code = False
        out.append((number, line, blank or bool(item)))
        blank = False
    return out


def _code_or_math_end(line: str, i: int) -> int:
    """Where a code span or math starting at `i` ends (i itself when none starts there)."""
    if line[i] == "`":
        run = len(re.match(r"`+", line[i:]).group(0))  # type: ignore[union-attr]
        for later in re.finditer(r"`+", line[i + run :]):
            if len(later.group(0)) == run:
                return i + run + later.end()
        return i
    if line.startswith("$$", i):
        k = line.find("$$", i + 2)
        return k + 2 if k >= 0 else i
    if line[i] == "$":
        if i + 1 >= len(line) or line[i + 1] in " \t$":
            return i
        k = i + 1
        while (k := line.find("$", k + 1)) >= 0:
            if line[k - 1] not in " \t\\" and not (k + 1 < len(line) and line[k + 1].isdigit()):
                return k + 1
    return i


def _bracket_end(line: str, i: int) -> int:
    """The `]` closing the `[` at i (nested pairs allowed), or -1."""
    depth = 0
    j = i
    while j < len(line):
        ch = line[j]
        if ch == "\\":
            j += 2
            continue
        if ch == "`" and (end := _code_or_math_end(line, j)) > j:
            j = end
            continue
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return -1


def _destination(line: str, i: int) -> tuple[str, int] | None:
    """A link destination at i, then an optional title, up to the `)`: (dest, after `)`)."""
    while i < len(line) and line[i] == " ":
        i += 1
    if line.startswith("<", i):
        k = line.find(">", i)
        if k < 0:
            return None
        dest, i = line[i + 1 : k], k + 1
    else:
        start, depth = i, 0
        while i < len(line) and line[i] != " ":
            if line[i] == "(":
                depth += 1
            elif line[i] == ")":
                if depth == 0:
                    break
                depth -= 1
            i += 1
        if depth:
            return None
        dest = line[start:i]
    while i < len(line) and line[i] == " ":
        i += 1
    if i < len(line) and line[i] in "\"'":
        k = line.find(line[i], i + 1)
        if k < 0:
            return None
        i = k + 1
        while i < len(line) and line[i] == " ":
            i += 1
    if i < len(line) and line[i] == ")":
        return dest, i + 1
    return None


def _label(text: str) -> str:
    return " ".join(text.split()).casefold()


def body_links(body: str) -> list[tuple[str, bool]]:
    """The body's links in order as (path#anchor as written, is a markdown link)."""
    lines = text_lines(body)
    definitions: dict[str, str] = {}
    kept: list[str] = []
    for _, line, starts in lines:
        match = DEFINITION.match(line)
        if match and (starts or not kept or kept[-1] == "\0def"):
            definitions.setdefault(_label(match.group(1)), match.group(2).strip("<>"))
            kept.append("\0def")
        else:
            kept.append(line)
    found: list[tuple[str, bool]] = []
    for line in kept:
        if line != "\0def":
            found += _line_links(line, definitions)
    return found


def _line_links(line: str, definitions: dict[str, str]) -> list[tuple[str, bool]]:
    found: list[tuple[str, bool]] = []
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\":
            i += 2
            continue
        if ch in "`$":
            end = _code_or_math_end(line, i)
            i = end if end > i else i + 1
            continue
        wiki = WIKILINK.match(line, i)
        if wiki:  # in a table, `[[Note\\|text]]`: the backslash escapes the pipe
            found.append((wiki.group(1), False))
            i = wiki.end()
            continue
        start = i + 1 if line.startswith("![", i) else i
        if line[start] != "[":
            i += 1
            continue
        close = _bracket_end(line, start)
        if close < 0:
            i += 1
            continue
        text = line[start + 1 : close]
        after = close + 1
        dest: str | None = None
        if line.startswith("(", after) and (parsed := _destination(line, after + 1)):
            dest, after = parsed
        elif line.startswith("[", after) and (end := line.find("]", after)) >= 0:
            dest = definitions.get(_label(line[after + 1 : end] or text))
            after = end + 1
        elif not text.startswith("^"):
            dest = definitions.get(_label(text))
        if dest is None:
            i = start + 1
            continue
        if dest and not dest.startswith("#") and not SCHEME.match(dest):
            path, hash_, anchor = dest.partition("#")
            found.append((unquote(path) + hash_ + unquote(anchor), True))
        i = after
    return found


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
        """The links of a note as (path#anchor, is a markdown link): its properties' in
        order, then its body's."""
        props, body = self._split(rel)
        found: list[tuple[str, bool]] = []
        for value in props.values():
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, str):
                    found += [(m.group(1), False) for m in WIKILINK.finditer(item)]
        found += body_links(body)
        return [(f, md) for f, md in found if f.split("#", 1)[0].strip()]

    def _anchors(self, rel: str) -> tuple[set[str], set[str]]:
        _, body = self._split(rel)
        headings, blocks = set(), set()
        for _, line, _ in text_lines(body):
            match = HEADING.match(line)
            if match:
                headings.add(normal_heading(match.group(1)))
            elif block := BLOCK.search(line):
                blocks.add(block.group(1).lower())
        return headings, blocks

    def _file(self, path: str) -> str | None:
        return self.lower.get(posixpath.normpath(path).lower())

    def _ending_with(self, name: str) -> str | None:
        wanted = "/" + name.lower().strip("/")
        hits = [f for f in self.files if ("/" + f.lower()).endswith(wanted)]
        hits.sort(key=lambda f: (len(f), f))
        return hits[0] if hits else None

    def resolve(self, source: str, text: str) -> Answer:
        path, _, anchor = text.partition("#")
        path = path.strip().rstrip("\\")
        last = path.rsplit("/", 1)[-1]
        if path.lower().endswith(".md"):
            names = [path]
        elif "." in last:
            names = [path, path + ".md"]
        else:
            names = [path + ".md", path]
        folder = posixpath.dirname(source)
        target: str | None = None
        if path.startswith(("./", "../")):
            target = next((t for n in names if (t := self._file(posixpath.join(folder, n)))), None)
        else:
            names = [n.lstrip("/") for n in names]
            for base in ("", folder):
                target = target or next(
                    (t for n in names if (t := self._file(posixpath.join(base, n)))), None
                )
            target = target or next((t for n in names if (t := self._ending_with(n))), None)
        if target is None or not anchor or target not in self.notes():
            return Answer(text, target, True)
        headings, blocks = self._anchors(target)
        anchor = anchor.strip()
        if anchor.startswith("^"):
            return Answer(text, target, anchor[1:].lower() in blocks)
        return Answer(text, target, normal_heading(anchor.split("#")[-1]) in headings)
