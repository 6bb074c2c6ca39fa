"""Links in note bodies, read as Obsidian reads them: `[[wikilinks]]` and `![[embeds]]`
(`|alias`, `#heading`, `#^block`), and CommonMark links and images: inline
(`[x](Cross-Site%20Scripting%20(XSS).md "title")`, `[x](<a b.md>)`) and by reference
(`[x][ref]`, `[ref]` with a `[ref]: dest` definition).

The markdown is parsed by markdown-it (CommonMark's block and inline rules, so fences at any
indentation a list item allows, indented code, code spans, balanced parentheses, escapes and
percent-encoding are CommonMark's) with mdit-py-plugins' dollarmath for `$...$` and `$$...$$`:
a link inside code or math is text. Wikilinks are one more inline rule, tried before
CommonMark's link rule. HTML is read as text (a link inside `<details>` still counts), and a
`[^1]` footnote is not a reference link.

A full parse costs about ten times a scan, so a body with nothing that could hide a link
or make a markdown link (no backtick, `~~~`, `$`, escaped `[`, indented line, `](` or `]:`)
is scanned for wikilinks with the same pattern the inline rule uses. A file's links are read
once, by `parse_note`, and kept in the palace cache.
"""

from __future__ import annotations

import bisect
import posixpath
import re
import sys
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any, Literal, NamedTuple
from urllib.parse import quote, unquote

from markdown_it import MarkdownIt
from markdown_it.common.utils import normalizeReference
from markdown_it.helpers import parseLinkDestination, parseLinkLabel
from markdown_it.rules_inline import StateInline
from mdit_py_plugins.dollarmath import dollarmath_plugin

# `[[target#heading|alias]]`: a single `]` may sit inside (Obsidian reads `[[Sq]uare]]` as
# `Sq]uare`), a `[` or a line break may not; the first `]]` ends it (written unrolled: no
# backtracking)
_WIKI = re.compile(r"!?\[\[([^\[\]\r\n]*(?:\](?!\])[^\[\]\r\n]*)*)\]\]")
# what makes a full parse necessary: code, math, an escaped bracket, a line indented as code
# (a tab, 4 spaces: after a line break, CR or LF), or markdown link syntax. Substring tests:
# one pass of memchr each, a fraction of one regex over the body.
_NEEDS_PARSE = ("`", "$", "~~~", "\\[", "](", "]:", "\n    ", "\r    ", "\t")
# in a block's text, what only the inline rules read right: a code span, math, an escape, an
# autolink, a markdown link (a shortcut reference needs a definition: checked apart)
_INLINE_NEEDS_WALK = ("`", "$", "\\", "<", "](", "][")

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_NEWLINE = re.compile(r"\r\n|\r|\n")
_SPACE = re.compile(r"[ \t\r\n]")


def _needs(text: str, marks: tuple[str, ...]) -> bool:
    return any(mark in text for mark in marks)


class RawLink(NamedTuple):
    """A link as written (a tuple: cheap to cache for thousands of notes). The target is
    interned: the notes that link to one note share one string (a palace holds ~2 links a
    note). A markdown link's target and heading are percent-decoded; `written` keeps its
    destination as the note wrote it."""

    target: str  # slug, name or path (decoded)
    kind: Literal["wiki", "md"]
    line: int  # 1-based line in the file
    heading: str = ""
    alias: str = ""  # a wikilink's `|alias`, a markdown link's text
    written: str = ""  # a markdown link's destination as written (`My%20Note.md#Part`)


def shown(link: RawLink) -> str:
    """The link as the note wrote it, for a message: `[[name#heading]]` or `[text](dest)`."""
    if link.kind == "md":
        return f"[{link.alias}]({link.written or link.target})"
    heading = f"#{link.heading}" if link.heading else ""
    return f"[[{link.target}{heading}]]"


# -- the parser ------------------------------------------------------------------------------
class _Found(NamedTuple):
    start: int  # offset in the block's inline text where the link starts
    link: RawLink  # line 0: set once the block is known
    span: tuple[int, int] | None  # what a rename rewrites: a destination, a whole wikilink
    ref: str = ""  # a reference link's normalized label


def _wiki_link(text: str, line: int = 0) -> RawLink | None:
    inner, _, alias = text.partition("|")
    target, hashed, heading = inner.partition("#")
    target = target.strip()
    if not target:  # `[[#Heading]]`: a place in this note
        return None
    return RawLink(sys.intern(target), "wiki", line, heading.strip() if hashed else "",
                   alias.strip())  # fmt: skip


def _wikilinks(found: list[_Found], text: str, offset: int) -> None:
    for match in _WIKI.finditer(text):
        link = _wiki_link(match.group(1))
        if link is not None:
            start = offset + match.start() + (1 if text[match.start()] == "!" else 0)
            found.append(_Found(start, link, (start, offset + match.end())))


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    if src[pos] not in "[!":
        return False
    match = _WIKI.match(src, pos, state.posMax)
    if match is None:
        return False
    if state.level == 1:  # read by `_walk`, not while a link's text is scanned
        _wikilinks(state.env["found"], match.group(0), pos)
    state.pos = match.end()
    return True


def _recording(rule: Callable[[StateInline, bool], bool], image: bool) -> Any:
    """CommonMark's link (or image) rule, recording what it reads at the top level."""

    def recorded(state: StateInline, silent: bool) -> bool:
        start = state.pos
        if not rule(state, silent):
            return False
        if state.level == 1:
            _md_link(state, start, state.pos, image)
        return True

    return recorded


def _md_link(state: StateInline, start: int, end: int, image: bool) -> None:
    """Record the CommonMark link or image the rule just read at `start:end`, and the
    wikilinks in its text."""
    src, found = state.src, state.env["found"]
    label_start = start + (2 if image else 1)
    old = state.pos
    label_end = _bounded_label(state, label_start - 1, not image)
    state.pos = old
    if label_end < 0:
        return
    text = src[label_start:label_end]
    _wikilinks(found, text, label_start)
    span: tuple[int, int] | None = None
    ref = ""
    if src[end - 1] == ")":  # inline: [text](dest "title")
        pos = label_end + 2
        while pos < end and src[pos] in " \t\n":
            pos += 1
        stop = _destination_end(src, pos, end - 1)
        if stop < 0:
            return
        written = src[pos:stop]
        if "\\" in written or "&" in written:  # escapes or entities: the helper undoes them
            href = parseLinkDestination(src, pos, end).str
        else:
            href = written[1:-1] if written.startswith("<") else written
        span = (pos, stop)
    else:  # [text][label], [label][], [label]
        label = text
        if label_end + 1 < end and src[label_end + 1] == "[":
            label = src[label_end + 2 : end - 1] or label
        if label.startswith("^"):  # a footnote, not a link
            return
        ref = normalizeReference(label)
        href = written = state.env["references"][ref]["href"]
    link = _md_raw(href, text.strip(), written)
    if link is not None:
        found.append(_Found(start, link, span, ref))


def _destination_end(src: str, pos: int, close: int) -> int:
    """Where the destination of a link the rule has read ends (`close` is its `)`): a
    `<...>` one at its `>`, another at the first space, or at the `)`. -1: none."""
    if src.startswith("<", pos):
        end = src.find(">", pos, close)
        return end + 1 if end >= 0 else -1
    space = _SPACE.search(src, pos, close)
    return space.start() if space else close


def _md_raw(href: str, text: str, written: str, line: int = 0) -> RawLink | None:
    """A markdown link to a file of the vault (not `https:`, `mailto:`, or `#here`)."""
    if not href or href.startswith("#") or _SCHEME.match(href):
        return None
    path, hashed, heading = href.partition("#")
    path = unquote(path)
    if not path:
        return None
    return RawLink(sys.intern(path), "md", line, unquote(heading) if hashed else "", text,
                   written or href)  # fmt: skip


def _bounded_label(state: StateInline, start: int, disable_nested: bool = False) -> int:
    """markdown-it's `parseLinkLabel` within the block's budget: an unclosed `[` scans to
    the end of its block, so a block of thousands (`![![![...`) would cost their square;
    once a block has spent its budget (`_walk`), no more link text is read in it."""
    env = state.env
    if env["budget"] <= 0:
        return -1
    end = parseLinkLabel(state, start, disable_nested)
    env["budget"] -= (end if end >= 0 else state.posMax) - start
    return end


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark")
    # hrefs are percent-decoded here, so markdown-it's percent-encoding of them is work lost
    md.normalizeLink = lambda url: url  # type: ignore[method-assign]
    md.helpers = SimpleNamespace(**{**vars(md.helpers), "parseLinkLabel": _bounded_label})  # type: ignore[assignment]
    md.use(dollarmath_plugin, allow_labels=False, allow_space=False, allow_digits=False,
           double_inline=True)  # fmt: skip
    # HTML is text here (Obsidian indexes a link inside <details>); emphasis and entities
    # never make or hide a link; the inline pass is `_walk`, on blocks that hold a `[`
    md.disable(["html_block", "html_inline", "emphasis", "entity", "text_join", "inline"])
    rules = md.inline.ruler
    link_rule = rules.__rules__[rules.__find__("link")].fn
    image_rule = rules.__rules__[rules.__find__("image")].fn
    rules.at("link", _recording(link_rule, image=False))
    rules.at("image", _recording(image_rule, image=True))
    rules.before("link", "wikilink", _wikilink_rule)
    return md


_MD = _parser()


def _walk(content: str, env: dict[str, Any]) -> list[_Found]:
    """The links of one block's inline text: CommonMark's inline rules run in their silent
    mode (they consume what they read but build no tokens: a third of the time), the link
    rules recording what they read at the top level."""
    env["found"] = []
    env.setdefault("references", {})
    # link text read over at most this many characters: a few passes over the block (link
    # text holding brackets is read again by each `[` in it), then wikilinks only
    env["budget"] = 8 * len(content) + 4096
    state = StateInline(content, _MD, env, [])
    rules = _MD.inline.ruler.getRules("")
    end = state.posMax
    while state.pos < end:
        state.level = 1  # as `skipToken` sets it: the rules' own scans run deeper
        for rule in rules:
            if rule(state, True):
                break
        else:
            state.pos += 1
    return env["found"]


class _Lines:
    """Line starts of a body (CR, LF and CRLF end a line, as CommonMark reads them)."""

    def __init__(self, body: str) -> None:
        self.body = body
        self.starts = [0, *(m.end() for m in _NEWLINE.finditer(body))]

    def line(self, index: int) -> int:
        """0-based line of an offset."""
        return bisect.bisect_right(self.starts, index) - 1

    def text(self, line: int) -> str:
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.body)
        return self.body[self.starts[line] : end].rstrip("\r\n")


def _scan(body: str) -> list[tuple[RawLink, tuple[int, int] | None]]:
    """Wikilinks by pattern: for a body in which nothing can hide one (see `_NEEDS_PARSE`)."""
    out: list[tuple[RawLink, tuple[int, int] | None]] = []
    lines = _Lines(body) if "\r" in body else None  # else count LFs on from the last link
    line = at = 0
    for match in _WIKI.finditer(body):
        start = match.start()
        if lines is not None:
            line = lines.line(start)
        else:
            line, at = line + body.count("\n", at, start), start
        link = _wiki_link(match.group(1), line)
        if link is not None:
            start += 1 if body[start] == "!" else 0
            out.append((link, (start, match.end())))
    return out


def _parse(body: str) -> list[tuple[RawLink, tuple[int, int] | None]]:
    """Every link by a CommonMark parse: (link with its 0-based line, span in the body)."""
    env: dict[str, Any] = {}
    tokens = _MD.parse(body, env)
    lines = _Lines(body)
    out: list[tuple[int, RawLink, tuple[int, int] | None]] = []
    references = env.setdefault("references", {})
    for token in tokens:
        if token.type != "inline" or "[" not in token.content or token.map is None:
            continue
        if references or _needs(token.content, _INLINE_NEEDS_WALK):
            found = _walk(token.content, env)
        else:  # only text and wikilinks here: the same pattern the inline rule uses
            found = []
            _wikilinks(found, token.content, 0)
        if not found:
            continue
        block = _Block(lines, token.content, token.map[0])
        for item in found:
            link, span = item.link, None
            at, line = block.offset(item.start), block.line(item.start)
            if item.ref:
                definition = references[item.ref]
                span, written = _definition_span(lines, definition.get("map"), link.written)
                link = link._replace(written=written or link.written)
            elif item.span is not None:
                start, end = block.offset(item.span[0]), block.offset(item.span[1])
                if start is not None and end is not None:
                    span = (start, end)
            out.append((lines.starts[line] if at is None else at, link._replace(line=line), span))
    out.sort(key=lambda item: item[0])
    return [(link, span) for _, link, span in out]


class _Block:
    """A block's inline text (its lines less the indentation and `>` markers the parser
    took off) against the body it came from."""

    def __init__(self, lines: _Lines, content: str, first: int) -> None:
        self.lines, self.content, self.first = lines, content, first
        self.starts = [0, *(m.end() for m in re.finditer("\n", content))]
        self.bases: dict[int, int] = {}

    def line(self, index: int) -> int:
        """0-based body line of an offset in the block's text."""
        return self.first + bisect.bisect_right(self.starts, index) - 1

    def offset(self, index: int) -> int | None:
        """Where offset `index` of the block's text is in the body (None where the text is not
        the body's: a tab the parser expanded, a NUL it replaced)."""
        row = bisect.bisect_right(self.starts, index) - 1
        base = self.bases.get(row)
        if base is None:
            end = self.starts[row + 1] - 1 if row + 1 < len(self.starts) else len(self.content)
            piece = self.content[self.starts[row] : end]
            source = self.lines.text(self.first + row)
            base = len(source) - len(piece) if source.endswith(piece) else source.find(piece)
            self.bases[row] = base
        if base < 0:
            return None
        return self.lines.starts[self.first + row] + base + index - self.starts[row]


def _definition_span(
    lines: _Lines, where: list[int] | None, href: str
) -> tuple[tuple[int, int] | None, str]:
    """The destination of a `[label]: dest` definition in the body, and as written."""
    if not where:
        return None, ""
    start = lines.starts[where[0]]
    end = lines.starts[where[1]] if where[1] < len(lines.starts) else len(lines.body)
    text = lines.body[start:end]
    colon = text.find("]:")
    if colon < 0:
        return None, ""
    pos = colon + 2
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    result = parseLinkDestination(text, pos, len(text))
    if not result.ok or _MD.normalizeLink(result.str) != href:
        return None, ""
    return (start + pos, start + result.pos), text[pos : result.pos]


def _links_of(body: str) -> tuple[tuple[RawLink, tuple[int, int] | None], ...]:
    """Every link in a body, its line 0-based."""
    if "[" not in body:
        return ()
    risky = _needs(body, _NEEDS_PARSE) or body.startswith("    ")
    found = _parse(body) if risky else _scan(body)
    return tuple(found)


# code and math blocks: what can make a line not text
_BLOCK_MARKS = ("```", "~~~", "$$", "\n    ", "\r    ", "\t")
_CODE_BLOCKS = frozenset({"fence", "code_block", "math_block", "math_block_label"})


def text_lines(body: str) -> Iterator[tuple[int, str]]:
    """(0-based line number, line) for every line outside code and math blocks, by
    CommonMark's block rules (a fence indented inside a list item is code; a line is ended
    by CR, LF or CRLF): where headings and block ids are looked for."""
    lines = _NEWLINE.split(body)
    if lines and not lines[-1]:
        lines.pop()
    code: set[int] = set()
    if _needs(body, _BLOCK_MARKS) or body.startswith("    "):
        for token in _MD.parse(body, {}):
            if token.type in _CODE_BLOCKS and token.map is not None:
                code.update(range(*token.map))
    for number, line in enumerate(lines):
        if number not in code:
            yield number, line


# -- the API ---------------------------------------------------------------------------------
def _counts(link: RawLink, any_md: bool) -> bool:
    if link.kind == "wiki":
        return True
    if any_md:
        return True
    # curator's own layout: a relative path to a markdown file
    return not link.target.startswith("/") and link.target.lower().endswith(".md")


def link_spans(
    body: str, body_line: int = 1, *, any_md: bool = False
) -> Iterator[tuple[int, int, RawLink]]:
    """Every link in order with the span a rename rewrites: a wikilink's `[[...]]`, a markdown
    link's destination. A link whose text the parser changed (a tab it expanded) has no
    span and is left out. A markdown link is one to a `.md` path, or with `any_md`
    (Obsidian's rule: a note's link may leave out `.md`) one to any file of the vault."""
    for link, span in _links_of(body):
        if span is not None and _counts(link, any_md):
            yield span[0], span[1], link._replace(line=link.line + body_line)


def extract_links(body: str, body_line: int = 1, *, any_md: bool = False) -> list[RawLink]:
    """Every link of a body, in order, at its line in the file (`body_line` is the body's
    first); `any_md` as in `link_spans`."""
    return [
        link._replace(line=link.line + body_line)
        for link, _ in _links_of(body)
        if _counts(link, any_md)
    ]


def counted(links: tuple[RawLink, ...], *, any_md: bool) -> tuple[RawLink, ...]:
    """`links` less the markdown links a layout without `any_md` does not count (the same
    tuple when none goes)."""
    if any_md or all(link.kind == "wiki" or _counts(link, False) for link in links):
        return links
    return tuple(link for link in links if _counts(link, False))


def md_target(source_rel: str, href: str) -> str:
    """The palace-relative path a relative markdown link points at."""
    return posixpath.normpath(posixpath.join(posixpath.dirname(source_rel), href))


def relative_href(source_rel: str, target_rel: str) -> str:
    return posixpath.relpath(target_rel, posixpath.dirname(source_rel) or ".")


def rewrite_links(
    body: str,
    source_rel: str,
    resolve: Callable[[RawLink], str | None],
    old_rel: str,
    new_rel: str,
    *,
    any_md: bool = False,
) -> tuple[str, int]:
    """Point every link that resolves to `old_rel` at `new_rel`; (new body, count). `any_md`
    as in `link_spans`. A markdown link keeps its text, title and `#heading` as written; its
    new path is percent-encoded (a space is `%20`). A reference link's definition is
    rewritten once, however many links use it."""
    new_slug = posixpath.basename(new_rel)[: -len(".md")]
    pieces: list[str] = []
    last = 0
    count = 0
    done: set[tuple[int, int]] = set()
    for start, end, link in sorted(link_spans(body, any_md=any_md)):
        if resolve(link) != old_rel:
            continue
        if (start, end) in done or start < last:
            count += 1  # a definition already rewritten for an earlier link
            continue
        done.add((start, end))
        if link.kind == "wiki":
            heading = f"#{link.heading}" if link.heading else ""
            alias = f"|{link.alias}" if link.alias else ""
            replacement = f"[[{new_slug}{heading}{alias}]]"
        else:
            written = body[start:end]
            pointy = written.startswith("<")
            _, hashed, anchor = written.strip("<>").partition("#")
            href = quote(relative_href(source_rel, new_rel), safe="/") + hashed + anchor
            replacement = f"<{href}>" if pointy else href
        pieces.append(body[last:start])
        pieces.append(replacement)
        last = end
        count += 1
    pieces.append(body[last:])
    return "".join(pieces), count
