"""Reading foreign files: TOML (`+++`) and JSON front matter through python-frontmatter, and
notes with no front matter at all, as lenient layouts load them.

YAML front matter is parsed by curator's own header parser (`parse_note`), which keeps line
numbers and byte-preserving edits; the other formats are read for their fields only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import frontmatter
from frontmatter.default_handlers import JSONHandler, TOMLHandler

from curator.model.finding import Finding
from curator.model.layouts.base import Layout
from curator.model.layouts.loose import loose_header
from curator.model.links import LinkRule, RawLink, counted, extract_links
from curator.model.note import FENCE, Kind, Note, header_bounds, parse_note

_HANDLERS = (
    (TOMLHandler(), re.compile(r"\A\+\+\+[ \t]*\r?\n")),
    (JSONHandler(), re.compile(r"\A\{")),
)


def foreign_front_matter(text: str) -> tuple[dict[str, Any], int] | None:
    """(fields, offset where the body starts) of TOML or JSON front matter; None if neither."""
    for handler, opening in _HANDLERS:
        if not opening.match(text):
            continue
        bounds = list(handler.FM_BOUNDARY.finditer(text))
        if len(bounds) < 2:
            return None
        # TOML's fields sit between the +++ lines; JSON's object includes its braces
        if isinstance(handler, TOMLHandler):
            raw = text[bounds[0].end() : bounds[1].start()]
        else:
            raw = text[: bounds[1].end()]
        try:
            fields = handler.load(raw)
        except Exception:  # a parser of another library: any failure means "not front matter"
            return None
        if not isinstance(fields, dict):
            return None
        end = bounds[1].end()
        if text[end : end + 2] == "\r\n":
            end += 2
        elif text[end : end + 1] in ("\n", "\r"):
            end += 1
        return fields, end
    return None


def read_note(
    rel: str,
    data: bytes,
    layout: Layout,
    types: Iterable[str],
    kind: Kind = "note",
    *,
    mtime_ns: int = 0,
) -> Note:
    """`parse_note`, then `adapt` for the layout."""
    return adapt(parse_note(rel, data, kind, mtime_ns=mtime_ns), layout, types)


def adapt(note: Note, layout: Layout, types: Iterable[str]) -> Note:
    """A parsed note as a lenient layout reads it: a file without YAML front matter is still
    a note (its fields from TOML/JSON front matter, or none) and the header is the layout's
    view (name from the title or file name, the type the layout implies). The same note for
    a strict layout, a draft, or a note adapted already (less the markdown links the layout
    does not count: `counted_links`)."""
    if not layout.lenient or note.kind != "note":
        return counted_links(note, layout)
    codes = {p.code for p in note.problems}
    if not note.ok and codes == {"file.empty"}:  # Obsidian's Untitled.md: a note, empty
        note = replace(note, ok=True, problems=(), header={}, lines={})
    elif layout.loose_headers and codes == {"header.yaml"} and (read := _loose(note)):
        note = read
    elif not note.ok and codes & {"header.yaml", "header.unclosed"}:
        # the header is reported (and the note hidden from agents), the body is still the
        # note's: its headings and links count, as they do in the owning tool
        if "header.unclosed" in codes and not note.header_end:
            # no closing '---': the tool reads every line after the opening one as body
            # (the '---' itself is a rule)
            opening = FENCE.match(note.text)
            note.header_end = opening.end() if opening else 0
            note.body_line = 2 if opening else 1
        if note.link_rule == LinkRule.NONE:
            note.link_rule, note._links = LinkRule.ANY, None  # read from the body on first use
        return counted_links(note, layout)
    elif not note.ok:
        if not note.text or "header.missing" not in codes:
            return note
        found = foreign_front_matter(note.text)
        header, end = found if found is not None else ({}, 0)
        body_line = note.text.count("\n", 0, end) + 1
        note = replace(
            note,
            header=header,
            header_end=end,
            body_line=body_line,
            ok=True,
            # what is not about the header stays (NUL bytes in the text)
            problems=tuple(p for p in note.problems if p.code != "header.missing"),
            link_rule=LinkRule.ANY,
            _links=None,
            lines={key: 1 for key in header},
        )
    counted_links(note, layout)
    # read with the body's now (few notes have them); once: a view has the same values
    if (
        layout.property_links
        and (in_header := property_links(note))
        and not any(link.line < note.body_line for link in note.links)
    ):
        note._links = (*in_header, *note.links)
    view = layout.view(note.rel, note.header, types)
    if view != note.header:
        # set in place (a copy per note cost more than the rest of the load): the view of a
        # view is itself, so a note adapted twice, or shared by two loads, stays the same
        lines = note.key_lines
        note.lines = {key: lines.get(key, 1) for key in view}
        note.header = view
    return note


def counted_links(note: Note, layout: Layout) -> Note:
    """The note with the links its layout counts: `parse_note` reads a link to any file; a
    layout whose tool needs `.md` in a markdown link (curator's, Claude Code's) reads only
    those (`LinkRule.MD`), set here in place (the same links each time)."""
    if note.link_rule == LinkRule.ANY and not layout.bare_md_links:
        note.link_rule = LinkRule.MD
        if note._links is not None:
            note._links = counted(note._links, any_md=False)
    return note


def _loose(note: Note) -> Note | None:
    """The note with its header read as the tool reads it (`loose_header`) and each slip
    reported as a warning with its fix; None when the header stays unreadable."""
    bounds = header_bounds(note.text)
    if isinstance(bounds, Finding):
        return None
    _newline, start, stop, _body = bounds
    read = loose_header(note.text[start:stop])
    if read is None:
        return None
    slips = tuple(
        Finding(
            note.rel,
            slip.line + 1,
            "warning",
            "header.loose",
            f"{slip.key}: an unquoted ': ' inside the value is not YAML; Claude Code reads it, "
            f"other tools refuse the whole header: write {slip.fix}",
        )
        for slip in read.slips
    )
    kept = tuple(p for p in note.problems if p.code != "header.yaml")
    return replace(
        note,
        ok=True,
        header=read.fields,
        lines={key: line + 1 for key, line in read.lines.items()},
        problems=kept + slips,
        link_rule=LinkRule.ANY,
        _links=None,
    )


def property_links(note: Note) -> list[RawLink]:
    """Wikilinks written in header values (`up: "[[Home]]"`, `categories: ["[[Books]]"]`),
    each at the line of its key."""
    found: list[RawLink] = []
    for key, value in note.header.items():
        values = value if isinstance(value, list) else [value]
        texts = [v for v in values if isinstance(v, str) and "[[" in v]
        if not texts:
            continue
        line = note.line_of(key)
        for text in texts:
            found += [
                link._replace(line=line) for link in extract_links(text) if link.kind == "wiki"
            ]
    return found


def body_of(note: Note) -> str:
    """The body, also of a note without front matter (whose body is all of its text) and of
    one whose header did not parse."""
    return note.body


__all__ = ["adapt", "body_of", "foreign_front_matter", "frontmatter", "read_note"]
