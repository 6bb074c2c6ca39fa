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
is scanned for wikilinks with the same pattern the inline rule uses. Most other bodies are
read by blocks (`_by_blocks`): fences at column 0 found as CommonMark finds them, and the
inline rules run only over the runs of lines that hold a `[`; the block rules run only where
they decide what is text (code indented or in a container, math blocks, definitions). A
file's links are read once, by `parse_note`, and kept in the palace cache.
"""

from __future__ import annotations

import bisect
import enum
import posixpath
import re
import sys
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any, Literal, NamedTuple
from urllib.parse import quote, unquote

from markdown_it import MarkdownIt
from markdown_it.common.utils import normalizeReference, unescapeAll
from markdown_it.helpers import parseLinkDestination, parseLinkLabel
from markdown_it.helpers.parse_link_destination import _Result
from markdown_it.rules_inline import StateInline
from mdit_py_plugins.dollarmath import dollarmath_plugin

# `[[target#heading|alias]]`: a single `]` may sit inside (Obsidian reads `[[Sq]uare]]` as
# `Sq]uare`), a `[` or a line break may not; the first `]]` ends it (written unrolled: no
# backtracking). It starts with its literal `[[`, so the engine skips to each one instead of
# trying every offset (an embed's `!` is not part of the span a rename rewrites anyway).
_WIKI = re.compile(r"\[\[([^\[\]\r\n]*(?:\](?!\])[^\[\]\r\n]*)*)\]\]")
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
    return any(map(text.__contains__, marks))


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


class LinkRule(enum.IntEnum):
    """How a note's links are read from its body (a small int: one per note, shared)."""

    NONE = 0  # it has none: a header that did not parse, where the layout reads no such body
    ANY = 1  # a markdown link to any file of the vault counts (Obsidian's rule)
    MD = 2  # a markdown link counts only to a relative `.md` path (curator's, Claude Code's)


def _at_line(link: RawLink, line: int) -> RawLink:
    """`link` at `line` (what `_replace` does, at a third of its cost: links are many)."""
    return RawLink(link.target, link.kind, line, link.heading, link.alias, link.written)


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
            start = offset + match.start()
            found.append(_Found(start, link, (start, offset + match.end())))


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    if src[pos] not in "[!":
        return False
    at = pos + 1 if src[pos] == "!" else pos  # an embed: `![[...]]` read whole
    match = _WIKI.match(src, at, state.posMax)
    if match is None:
        return False
    if state.level == 1:  # read by `_walk`, not while a link's text is scanned
        _wikilinks(state.env["found"], match.group(0), at)
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


# a link destination with nothing the helper reads char by char: no escape, parenthesis,
# space or control character (a `<` first makes it a `<...>` one)
_PLAIN_DESTINATION = re.compile(r"[^\x00-\x20\x7f\\()]+")


def _destination(string: str, pos: int, maximum: int) -> Any:
    """markdown-it's `parseLinkDestination`, its common case by one pattern: a plain
    destination up to a space, a control character, a `)` or the end is what the helper's
    loop reads (the rest goes to the helper)."""
    match = None if string.startswith("<", pos) else _PLAIN_DESTINATION.match(string, pos, maximum)
    if match is None or string[match.end() : match.end() + 1] in ("(", "\\"):
        return parseLinkDestination(string, pos, maximum)
    result = _Result()
    result.str = match.group() if "&" not in match.group() else unescapeAll(match.group())
    result.pos, result.ok = match.end(), True
    return result


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark")
    # hrefs are percent-decoded here, so markdown-it's percent-encoding of them is work lost
    md.normalizeLink = lambda url: url  # type: ignore[method-assign]
    md.helpers = SimpleNamespace(  # type: ignore[assignment]
        **{**vars(md.helpers), "parseLinkLabel": _bounded_label,
           "parseLinkDestination": _destination}
    )  # fmt: skip
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
    # text runs to the next character a rule left on starts at (a line break, math, an
    # escape, a code span, a wikilink, a link or image, an autolink) or a `]` (link text ends
    # there): markdown-it's default set also stops at the marks of the rules turned off
    # above, where every rule is then tried in vain
    md.inline.terminator_re = re.compile(r"[\n!$<\[\\\]`]")
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


# -- reading by blocks: the full parse kept for what needs it ---------------------------------
# a line holding a fence mark (``` or ~~~) outside a fence must open one at column 0 (3 marks
# or more; a backtick fence's info string holds no backtick), or the parser reads the body
_FENCE = re.compile(r"(`{3,})[^`]*|(~{3,}).*")
# the container markers a line opens with (quotes, list items)
_PREFIX = re.compile(r" *(?:(?:>|[-+*]|\d{1,9}[.)]) *)*")
# a line whose container markers are followed by 4 spaces: code
_CODE_IN_CONTAINER = re.compile(
    r"^ *(?:(?:>|[-+*]|\d{1,9}[.)]) {0,3})*(?:>|[-+*]|\d{1,9}[.)]) {4}", re.M
)
# a run of lines that are not blank: the blocks of a text with no code in it
_RUN = re.compile(r"^ *[^ \n][^\n]*(?:\n *[^ \n][^\n]*)*", re.M)
# a heading (a block of one line): after a break, or at a block's start inside quotes and
# list items
_HEADING = re.compile(r" {0,3}#{1,6}(?: |$)")
_CONTAINED_HEADING = re.compile(r"(?: {0,3}(?:> ?|(?:[-+*]|\d{1,9}[.)]) +))* {0,3}#{1,6}(?: |$)")
# what a block's later line may start with that ends the block or changes its text: a space
# (a list item's indentation is not its text), a list or quote marker, a heading, a setext
# underline, a thematic break
_BLOCK_START = frozenset(" #-+*_=>0123456789")

_Link = tuple[RawLink, tuple[int, int] | None]


def _line_at(body: str, index: int) -> tuple[int, int]:
    """(start, end) of the line holding `index`."""
    end = body.find("\n", index)
    return body.rfind("\n", 0, index) + 1, len(body) if end < 0 else end


def _next_mark(body: str, pos: int) -> int:
    ticks, tildes = body.find("```", pos), body.find("~~~", pos)
    return tildes if ticks < 0 or 0 <= tildes < ticks else ticks


def _fences(body: str) -> list[tuple[int, int]] | None:
    """(start, end) of every fence at column 0, as CommonMark reads them (one left open runs
    to the end); None when a fence mark sits anywhere else (indented, in a list item or a
    quote, a code span of three backticks): the parser says what that is."""
    found: list[tuple[int, int]] = []
    pos = 0
    while (mark := _next_mark(body, pos)) >= 0:
        start, end = _line_at(body, mark)
        opener = _FENCE.fullmatch(body, start, end)
        if opener is None:
            return None
        fence = opener.group(1) or opener.group(2)
        close = end + 1
        while (close := body.find(fence, close)) >= 0:
            line_start, line_end = _line_at(body, close)
            line = body[line_start:line_end]
            run = line.strip(" \t")
            if (
                run.strip(fence[0])
                or len(run) < len(fence)
                or line[: close - line_start].strip(" \t")
            ):
                close = line_end + 1  # not a closing line (text before the mark, or after)
                continue
            if "\t" in line:
                return None  # the parser counts a tab's columns
            if close - line_start < 4:
                close = line_end
                break
            close = line_end + 1
        end = len(body) if close < 0 else close
        found.append((start, end))
        pos = end + 1
    return found


def _by_blocks(body: str) -> list[_Link] | None:
    """Every link, read by blocks: fences at column 0 are skipped as CommonMark skips them,
    the text between is cut into its runs of lines that are not blank, and only those holding
    a `[` are read: by the wikilink pattern when they hold nothing else the inline rules read,
    else by those rules. None where only the block rules can say what is text: a line
    indented as code, a tab, a fence mark anywhere but a fence at column 0, a math block, a
    reference definition, a run whose later lines start another block, a line ending other
    than LF or a NUL (the parser rewrites both)."""
    if "\r" in body or "\0" in body:
        return None
    fences = _fences(body) if "```" in body or "~~~" in body else []
    if fences is None:
        return None
    found: list[_Found] = []
    start = 0
    for fence_start, fence_end in [*fences, (len(body) + 1, len(body) + 1)]:
        text = body[start : max(start, fence_start - 1)]
        start = fence_end + 1
        if "$$" in text or "]:" in text:
            return None  # a math block (it may hold a fence), a reference definition
        if "[" not in text:
            continue
        offset = fence_start - 1 - len(text) if fence_start <= len(body) else len(body) - len(text)
        if "\t" in text or "\n    " in text or text.startswith("    "):
            return None
        if "    " in text and _CODE_IN_CONTAINER.search(text):
            return None
        for run in _RUN.finditer(text):
            if "[" in run.group() and not _read_run(found, run.group(), offset + run.start()):
                return None
    out: list[_Link] = []
    line = at = 0
    for item in sorted(found, key=lambda item: item.start):
        line, at = line + body.count("\n", at, item.start), item.start
        out.append((_at_line(item.link, line), item.span))
    return out


def _read_run(found: list[_Found], run: str, offset: int) -> bool:
    """The links of a run of lines (at `offset` in the body) into `found`; False where the
    block rules are needed."""
    if not _needs(run, _INLINE_NEEDS_WALK):
        _wikilinks(found, run, offset)  # what the inline rules would read: property-tested
        return True
    blocks: list[tuple[int, int]] = []  # a heading is a block of one line
    first = pos = 0
    for line in run.split("\n"):
        heading = _CONTAINED_HEADING if pos == first else _HEADING
        if "#" in line and heading.match(line):
            if pos > first:
                blocks.append((first, pos - 1))
            blocks.append((pos, pos + len(line)))
            first = pos + len(line) + 1
        pos += len(line) + 1
    if first < len(run):
        blocks.append((first, len(run)))
    for begin, end in blocks:
        block = run[begin:end]
        if "[" not in block:
            continue
        if "\n" in block:
            if ">" in _PREFIX.match(block).group():  # type: ignore[union-attr]
                return False  # a quote's later lines: the parser takes its marks off
            if any(line[:1] in _BLOCK_START for line in block.split("\n")[1:]):
                return False
        content = block.strip(" ")
        at = offset + begin + len(block) - len(block.lstrip(" "))
        for item in _walk(content, {}):
            span = None if item.span is None else (item.span[0] + at, item.span[1] + at)
            found.append(_Found(item.start + at, item.link, span, item.ref))
    return True


def _links_of(body: str) -> tuple[_Link, ...]:
    """Every link in a body, its line 0-based."""
    if "[" not in body:
        return ()
    if not (_needs(body, _NEEDS_PARSE) or body.startswith("    ")):
        return tuple(_scan(body))
    found = _by_blocks(body)
    return tuple(_parse(body) if found is None else found)


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
            yield span[0], span[1], _at_line(link, link.line + body_line)


def extract_links(body: str, body_line: int = 1, *, any_md: bool = False) -> list[RawLink]:
    """Every link of a body, in order, at its line in the file (`body_line` is the body's
    first); `any_md` as in `link_spans`."""
    return [
        _at_line(link, link.line + body_line)
        for link, _ in _links_of(body)
        if _counts(link, any_md)
    ]


def links_by_rule(body: str, body_line: int, rule: LinkRule) -> tuple[RawLink, ...]:
    """The links a note's `rule` reads from its body (`body_line`: the body's first line)."""
    if rule == LinkRule.NONE:
        return ()
    links = extract_links(body, body_line, any_md=rule == LinkRule.ANY)
    return tuple(links) if links else ()


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
