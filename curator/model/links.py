"""Links in note bodies: [[wikilinks]] (slug or name, |alias, #heading) and relative
markdown links. Code blocks and inline code are skipped.

Every pattern here runs in time linear in the body: a link's text cannot hold `[` (as in
CommonMark, `[a [b](x.md)` links only `[b](x.md)`), code spans are paired by one pass over the
backtick runs, and line numbers are counted forward from the previous link."""

from __future__ import annotations

import posixpath
import re
import sys
from collections.abc import Callable, Iterator
from typing import Literal, NamedTuple
from urllib.parse import quote

_WIKI = re.compile(r"\[\[([^\[\]|#\n]*)(#[^\[\]|\n]*)?(?:\|([^\[\]\n]*))?\]\]")
# `[` first, then "not an image": a pattern that starts with a literal is searched for fast
_MD = re.compile(r"\[(?<!!\[)([^\[\]\n]*)\]\(<?([^()\s<>]+)>?(?:\s+\"[^\"\n]*\")?\)")
_FENCE = re.compile(r"^[ \t]{0,3}(```+|~~~+)")
_BACKTICKS = re.compile(r"`+")
_NOT_BREAK = re.compile(r"[^\r\n]")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


class RawLink(NamedTuple):
    """A link as written (a tuple: cheap to cache for thousands of notes). The target is
    interned: the notes that link to one note share one string (a palace holds ~2 links a
    note)."""

    target: str  # slug, name or relative path, as written
    kind: Literal["wiki", "md"]
    line: int  # 1-based line in the file
    heading: str = ""
    alias: str = ""


def _masked(body: str) -> str:
    """The body with fenced code and inline code blanked out (same length, same lines)."""
    if "`" not in body and "~~~" not in body:
        return body
    out: list[str] = []
    fence: str | None = None
    for line in body.splitlines(keepends=True):
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)  # closed only by a fence of the same char, at least as long
            out.append(_NOT_BREAK.sub(" ", line))
            continue
        if fence is not None:
            if match and match.group(1).startswith(fence):
                fence = None
            out.append(_NOT_BREAK.sub(" ", line))
            continue
        out.append(_mask_code_spans(line) if "`" in line else line)
    return "".join(out)


def _mask_code_spans(line: str) -> str:
    """The line with each code span blanked: a run of backticks up to the next run of the
    same length (CommonMark's rule). One pass from the right finds each run's partner."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(line)]
    partner: list[int | None] = [None] * len(runs)
    later: dict[int, int] = {}  # run length -> index of the nearest run of it to the right
    for i in range(len(runs) - 1, -1, -1):
        length = runs[i][1] - runs[i][0]
        partner[i] = later.get(length)
        later[length] = i
    pieces: list[str] = []
    last = i = 0
    while i < len(runs):
        j = partner[i]
        if j is None:
            i += 1
            continue
        start, end = runs[i][0], runs[j][1]
        pieces.append(line[last:start])
        pieces.append(_NOT_BREAK.sub(" ", line[start:end]))
        last, i = end, j + 1
    pieces.append(line[last:])
    return "".join(pieces)


class _LineCounter:
    """Line numbers of increasing offsets, counted on from the last one asked."""

    def __init__(self, body: str, first_line: int) -> None:
        self.body, self.line, self.at = body, first_line, 0

    def __call__(self, index: int) -> int:
        self.line += self.body.count("\n", self.at, index)
        self.at = index
        return self.line


def link_spans(
    body: str, body_line: int = 1, *, any_md: bool = False
) -> Iterator[tuple[int, int, RawLink]]:
    """Every link with its (start, end) offsets in `body`, in order. A markdown link is one
    to a `.md` path, or with `any_md` (Obsidian's rule: a note's link may leave out `.md`)
    one to any relative path."""
    if "[" not in body:
        return
    masked = _masked(body)
    found: list[tuple[int, int, RawLink]] = []
    line_at = _LineCounter(body, body_line)
    for match in _WIKI.finditer(masked):
        target = body[match.start(1) : match.end(1)].strip()
        if not target:
            continue
        heading = (match.group(2) or "")[1:]
        alias = match.group(3) or ""
        line = line_at(match.start())
        found.append(
            (
                match.start(),
                match.end(),
                RawLink(sys.intern(target), "wiki", line, heading.strip(), alias.strip()),
            )
        )
    line_at = _LineCounter(body, body_line)
    for match in _MD.finditer(masked):
        href = match.group(2)
        if _SCHEME.match(href) or href.startswith(("#", "/")):
            continue
        path, _, heading = href.partition("#")
        if not path or not (any_md or path.endswith(".md")):
            continue
        line = line_at(match.start())
        found.append(
            (
                match.start(),
                match.end(),
                RawLink(sys.intern(path), "md", line, heading, match.group(1)),
            )
        )
    found.sort(key=lambda item: item[0])
    yield from found


def extract_links(body: str, body_line: int = 1, *, any_md: bool = False) -> list[RawLink]:
    return [link for _, _, link in link_spans(body, body_line, any_md=any_md)]


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
    as in `link_spans`; a markdown link's new path is percent-encoded (a space is `%20`)."""
    new_slug = posixpath.basename(new_rel)[: -len(".md")]
    pieces: list[str] = []
    last = 0
    count = 0
    for start, end, link in link_spans(body, any_md=any_md):
        if resolve(link) != old_rel:
            continue
        if link.kind == "wiki":
            heading = f"#{link.heading}" if link.heading else ""
            alias = f"|{link.alias}" if link.alias else ""
            replacement = f"[[{new_slug}{heading}{alias}]]"
        else:
            heading = f"#{link.heading}" if link.heading else ""
            href = quote(relative_href(source_rel, new_rel), safe="/")
            replacement = f"[{link.alias}]({href}{heading})"
        pieces.append(body[last:start])
        pieces.append(replacement)
        last = end
        count += 1
    pieces.append(body[last:])
    return "".join(pieces), count
