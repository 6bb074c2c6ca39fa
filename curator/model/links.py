"""Links in note bodies: [[wikilinks]] (slug or name, |alias, #heading) and relative
markdown links. Code blocks and inline code are skipped."""

from __future__ import annotations

import posixpath
import re
import sys
from collections.abc import Callable, Iterator
from typing import Literal, NamedTuple

_WIKI = re.compile(r"\[\[([^\[\]|#\n]*)(#[^\[\]|\n]*)?(?:\|([^\[\]\n]*))?\]\]")
_MD = re.compile(r"(?<!!)\[([^\]\n]*)\]\(<?([^()\s<>]+)>?(?:\s+\"[^\"\n]*\")?\)")
_FENCE = re.compile(r"^[ \t]{0,3}(```+|~~~+)")
_INLINE_CODE = re.compile(r"(`+)[^`].*?\1|`[^`]*`", re.DOTALL)
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
            out.append(re.sub(r"[^\r\n]", " ", line))
            continue
        if fence is not None:
            if match and match.group(1).startswith(fence):
                fence = None
            out.append(re.sub(r"[^\r\n]", " ", line))
            continue
        out.append(_INLINE_CODE.sub(lambda m: " " * len(m.group()), line))
    return "".join(out)


def link_spans(body: str, body_line: int = 1) -> Iterator[tuple[int, int, RawLink]]:
    """Every link with its (start, end) offsets in `body`, in order."""
    if "[" not in body:
        return
    masked = _masked(body)
    found: list[tuple[int, int, RawLink]] = []
    for match in _WIKI.finditer(masked):
        target = body[match.start(1) : match.end(1)].strip()
        if not target:
            continue
        heading = (match.group(2) or "")[1:]
        alias = match.group(3) or ""
        line = body_line + body.count("\n", 0, match.start())
        found.append(
            (
                match.start(),
                match.end(),
                RawLink(sys.intern(target), "wiki", line, heading.strip(), alias.strip()),
            )
        )
    for match in _MD.finditer(masked):
        href = match.group(2)
        if _SCHEME.match(href) or href.startswith(("#", "/")):
            continue
        path, _, heading = href.partition("#")
        if not path.endswith(".md"):
            continue
        line = body_line + body.count("\n", 0, match.start())
        found.append(
            (
                match.start(),
                match.end(),
                RawLink(sys.intern(path), "md", line, heading, match.group(1)),
            )
        )
    found.sort(key=lambda item: item[0])
    yield from found


def extract_links(body: str, body_line: int = 1) -> list[RawLink]:
    return [link for _, _, link in link_spans(body, body_line)]


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
) -> tuple[str, int]:
    """Point every link that resolves to `old_rel` at `new_rel`; (new body, count)."""
    new_slug = posixpath.basename(new_rel)[: -len(".md")]
    pieces: list[str] = []
    last = 0
    count = 0
    for start, end, link in link_spans(body):
        if resolve(link) != old_rel:
            continue
        if link.kind == "wiki":
            heading = f"#{link.heading}" if link.heading else ""
            alias = f"|{link.alias}" if link.alias else ""
            replacement = f"[[{new_slug}{heading}{alias}]]"
        else:
            heading = f"#{link.heading}" if link.heading else ""
            replacement = f"[{link.alias}]({relative_href(source_rel, new_rel)}{heading})"
        pieces.append(body[last:start])
        pieces.append(replacement)
        last = end
        count += 1
    pieces.append(body[last:])
    return "".join(pieces), count
