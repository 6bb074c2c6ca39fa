"""What the inbox shows about a draft: its age, its source (abbreviated), its warnings.

Warnings follow the draft's current text (cached by that text), so a fixed draft loses them;
a `[[wikilink]]` is a link, not markup."""

from __future__ import annotations

import re
from collections import Counter
from datetime import date
from functools import lru_cache

from rich.text import Text

from curator.model.note import Note
from curator.model.palace import Palace
from curator.model.text import has_escapes
from curator.ui import services
from curator.ui.safe import plain

_WIKILINK = re.compile(r"\[\[[^\[\]\n]*\]\]")
_MARKUPISH = re.compile(r"\[\s*(?:/|@|[A-Za-z#])[^\]\n]*\]")
SOURCE_WIDTH = 8


def draft_days(note: Note, today: date) -> int | None:
    """Days since the draft was captured (None: no readable date)."""
    try:
        return max(0, (today - date.fromisoformat(note.created[:10])).days)
    except ValueError:
        return None


def draft_age(note: Note, today: date) -> str:
    days = draft_days(note, today)
    return "?" if days is None else "today" if days == 0 else f"{days}d"


def draft_source(note: Note) -> str:
    source = note.header.get("source")
    if isinstance(source, dict):
        for key in ("session", "run", "file"):
            if source.get(key):
                return str(source[key])
        return ""
    return str(source or "")


def short_source(source: str, width: int = SOURCE_WIDTH) -> str:
    """The source cut to `width` cells, keeping its distinctive end ("sess-2026-11-28-a" ->
    "…11-28-a"): the draft's name gets the width."""
    if len(source) <= width:
        return source
    return "…" + source[-(width - 1) :]


def newest_first(drafts: list[Note]) -> list[Note]:
    return sorted(drafts, key=lambda n: (n.created, n.rel), reverse=True)


def markup_like(text: str) -> bool:
    return _MARKUPISH.search(_WIKILINK.sub("", text)) is not None


CONTEXT_CHARS = 240  # of the text a draft came from, shown beside it


def context_preview(note: Note) -> Text:
    """The start of the text the fact came from (its `context` field), dim and on one line:
    shown beside the draft (and kept on promote), never as the fact itself."""
    value = note.header.get("context")
    if not isinstance(value, str) or not value.strip():
        return Text()
    return plain(f"context: {value}", "dim", limit=CONTEXT_CHARS)


def warnings(note: Note) -> Text:
    out = Text()
    for finding in note.problems:
        out.append_text(plain(f"! {finding.message}", "yellow"))
        out.append("\n")
    out.append_text(_text_warnings(note.text))
    out.rstrip()
    return out


@lru_cache(maxsize=64)
def _text_warnings(text: str) -> Text:
    """The warnings read off a draft's text: scanned once per text, not on every cursor move
    onto it (the secret scan of a pasted 740 KB log took ~0.7 s)."""
    out = Text()
    for hit in services.secrets_in(text):
        out.append_text(
            plain(f"! possible secret: {hit.kind} on line {hit.line} ({hit.preview})", "bold red")
        )
        out.append("\n")
    if has_escapes(text):
        out.append("! terminal escapes or control characters removed for display\n", "red")
    if markup_like(text):
        out.append("! contains markup-like text (shown literally, never run)\n", "yellow")
    return out


OWN_TYPE = "*own"  # a bulk promote's choice: every draft keeps the type it names


def bulk_types(palace: Palace, rels: list[str]) -> list[tuple[str, str]]:
    """A bulk promote's choices: first each draft's own type (counted), then one type for
    all of them."""
    own = Counter(palace.by_rel[rel].type or "?" for rel in rels if rel in palace.by_rel)
    counts = ", ".join(f"{name} {n}" for name, n in own.most_common())
    choices = [(f"each its own type ({counts})", OWN_TYPE)]
    return choices + [(f"{t.name} — {t.purpose}", t.name) for t in palace.config.types.values()]
