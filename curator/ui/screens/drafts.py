"""What the inbox shows about a draft: its age, its source (in words), its warnings.

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
from curator.model.text import has_escapes, one_line
from curator.ui import services
from curator.ui.safe import plain

_WIKILINK = re.compile(r"\[\[[^\[\]\n]*\]\]")
_MARKUPISH = re.compile(r"\[\s*(?:/|@|[A-Za-z#])[^\]\n]*\]")
SOURCE_WIDTH = 16  # at most: the Source column yields to the name first (RowTable.fit)


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


def source_words(note: Note) -> str:
    """Who left the draft, in words: the agent first, then its session, run and file, each
    named ("mcp · session …28-b5e2 · run 4551"), so the column says more than an id's tail."""
    source = note.header.get("source")
    if not isinstance(source, dict):
        return _short_id(one_line(str(source or "")), SOURCE_WIDTH) or "–"
    order = sorted(source, key=lambda k: _SOURCE_ORDER.get(str(k), len(_SOURCE_ORDER)))
    words = []
    for key in order:
        value = one_line(str(source[key] or ""))
        if not value:
            continue
        name = str(key)
        # "run-4530" under run: the key says it once ("sess-…" under session too)
        for prefix in {name, name[:4]}:
            if value.casefold().startswith(prefix.casefold() + "-"):
                value = value[len(prefix) + 1 :]
        words.append(_short_id(value) if name == "agent" else f"{name} {_short_id(value)}")
    return " · ".join(words)


_SOURCE_ORDER = {"agent": 0, "session": 1, "run": 2, "file": 3}


def _short_id(value: str, width: int = 8) -> str:
    """A long id keeps its distinctive end ("2026-11-28-b5e2" -> "…28-b5e2")."""
    return value if len(value) <= width else "…" + value[-(width - 1) :]


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
