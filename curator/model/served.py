"""Every value an agent receives passes the gate, not only a note's own text: a name, a reason,
a description, a link or a reference field (superseded_by, supersedes, merged_from, similar)
that names a note the gate hides is withheld.

`Served(palace, config)` is that one rule for the MCP tools and resources, the hooks and the
CLI's agent-facing answers. A reference names a note by its path, its slug or its name; free
text names one when any of those appears in it as a whole word, or when it holds a path under
the palace's folders that is not a note the gate shows (a rejected or merged draft, a note
since removed: what cannot be checked is withheld).
"""

from __future__ import annotations

import functools
import re
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from curator.model.discovery import NOTES_DIR
from curator.model.links import LinkRule, links_by_rule
from curator.model.schema import is_visible

if TYPE_CHECKING:
    from curator.config import Config
    from curator.model.note import Note
    from curator.model.palace import Palace

WITHHELD = "[withheld: it names a note hidden from agents]"
_KEPT: weakref.WeakKeyDictionary[Palace, dict[bool, Served]] = weakref.WeakKeyDictionary()
# A stretch of the characters a name cannot begin or end inside (`_edge`'s: `\w` is exactly
# `str.isalnum` or `_`): a term standing as a whole in a value is made of whole stretches of it
_RUN = re.compile(r"[\w-]+")
LINKS_KEPT = 4096  # notes whose `links_in` answer a rule keeps (a search shows the same again)


@functools.cache
def _paths(inbox: str) -> re.Pattern[str]:
    """A palace path of a note or a draft (in the drafts folder `inbox`) within text."""
    folders = f"{NOTES_DIR}|{re.escape(inbox)}"
    return re.compile(rf"(?<![\w/.-])(?:{folders})/[^\s()\[\]<>\"'`,;]*?\.md(?![\w-])")


def _edge(text: str, at: int) -> bool:
    """No word character (`\\w`, as `re` has it) nor a hyphen at `at`: a name ends there."""
    if not 0 <= at < len(text):
        return True
    ch = text[at]
    return not (ch.isalnum() or ch in "_-")


def _holds(folded: str, term: str) -> bool:
    """`term` (case-folded) stands in `folded` as a whole: not inside a longer word or a
    hyphenated name."""
    at = folded.find(term)
    while at >= 0:
        if _edge(folded, at - 1) and _edge(folded, at + len(term)):
            return True
        at = folded.find(term, at + 1)
    return False


@dataclass
class Served:
    """What of `palace` may be served to an agent (`include_sensitive`: everything)."""

    palace: Palace
    config: Config
    include_sensitive: bool = False
    _by_run: dict[str, list[str]] = field(init=False, default_factory=dict)
    _shown: frozenset[str] = field(init=False, default=frozenset())
    _ready: bool = field(init=False, default=False)
    # `links_in`'s answers for the notes served last: (the note, its text, the answer) by rel
    _links: dict[str, tuple[Note, str, str]] = field(init=False, default_factory=dict)

    @classmethod
    def of(cls, palace: Palace, include_sensitive: bool = False) -> Served:
        """The rule for `palace` as loaded (kept with it: a palace is immutable)."""
        kept = _KEPT.setdefault(palace, {})
        if include_sensitive not in kept:
            # the kept rule holds its palace weakly: a value of _KEPT that held its key would
            # keep every palace generation alive
            weak = cast("Palace", weakref.proxy(palace))
            kept[include_sensitive] = cls(weak, palace.config, include_sensitive)
        return kept[include_sensitive]

    def _names(self) -> None:
        """The hidden notes' names, by their longest word (made on first use of `text`)."""
        if self._ready:
            return
        notes = self.palace.all()
        hidden = [n for n in notes if not is_visible(n, self.config)]
        gone = {n.rel for n in hidden}
        names = [(n.rel, n.slug, n.name if n.ok else "") for n in hidden]
        self.hiding(names, frozenset(n.rel for n in notes if n.rel not in gone))

    def hiding(self, hidden: Iterable[tuple[str, str, str]], shown: frozenset[str]) -> None:
        """Withhold what names the `hidden` notes ((path, slug, name or "") each) and any
        palace path but the `shown` ones: the gate's verdicts, from the palace (`_names`) or
        from the search index's rows (a query that reads no palace, `curator.search.cold`)."""
        self._ready = True
        self._shown = shown
        self._links.clear()  # answered under the verdicts before
        terms: set[str] = set()
        for rel, slug, name in hidden:
            terms |= {rel, rel.removesuffix(".md"), slug}
            if name.strip():
                terms.add(" ".join(name.split()))
        terms.discard("")
        self._by_run = {}
        # A term found in a value as a whole begins and ends at edges, so each of its stretches
        # of word characters and hyphens (`_RUN`) is a whole stretch of the value: a value is
        # compared only with the terms whose longest stretch it holds (a slug is one stretch,
        # where its words are shared by thousands of names); case-folded, so each comparison
        # is a plain `find`: one pattern of thousands of names took seconds to compile at 100k
        # notes. A term without a stretch is compared with every value.
        for term in terms:
            folded = term.casefold()
            runs = _RUN.findall(folded)
            self._by_run.setdefault(max(runs, key=len) if runs else "", []).append(folded)

    def _terms_for(self, folded: str) -> list[str]:
        """The hidden terms a case-folded value may hold as a whole (`hiding`)."""
        return [t for run in {*_RUN.findall(folded), ""} for t in self._by_run.get(run, ())]

    def _names_in(self, value: str) -> bool:
        """Whether `value` names a hidden note (by its path, slug or name, as a whole)."""
        folded = value.casefold()
        return any(_holds(folded, term) for term in self._terms_for(folded))

    def note(self, note: Note) -> bool:
        """May `note` itself be served (the gate)?"""
        return self.include_sensitive or is_visible(note, self.config)

    def ref(self, value: object) -> bool:
        """May a reference field's value (a path, slug or name of a note) be served? Not when
        it names a hidden note (by any of its names), fail closed on what is not text."""
        if self.include_sensitive:
            return True
        if not isinstance(value, str):
            return False
        return self.text(value) == value

    def refs(self, values: Iterable[Any]) -> list[Any]:
        """The entries of a reference list that may be served."""
        return [v for v in values if self.ref(v)]

    def value(self, value: Any, *, ref: bool = False) -> Any:
        """A header value as it may be served: text through `text` (a reference field's
        through `ref`: left out), a list's and a mapping's entries likewise; None when
        nothing of it may be."""
        if self.include_sensitive:
            return value
        if isinstance(value, str):
            if ref:
                return value if self.ref(value) else None
            return self.text(value)
        if isinstance(value, list):
            kept = [v for v in (self.value(v, ref=ref) for v in value) if v is not None]
            return kept if kept or not value else None
        if isinstance(value, dict):
            return {k: self.value(v) for k, v in value.items()}
        return value

    def text(self, value: str) -> str:
        """`value` when it names no hidden note, else `WITHHELD`."""
        if self.include_sensitive or not value:
            return value
        self._names()
        if self._names_in(value):
            return WITHHELD
        if any(m.group(0) not in self._shown for m in _paths(self.config.inbox).finditer(value)):
            return WITHHELD
        return value

    def _names_hidden(self, *values: str) -> bool:
        return any(self.text(v) != v for v in values)

    def links_in(self, note: Note, text: str) -> str:
        """`text` (of `note`) with each link that names a note the gate hides replaced by
        `WITHHELD`: one that resolves to it, or whose destination names it (`text`). A
        destination is checked whether or not the palace's layout counts it as a link
        (curator's counts only `.md` paths; `[x](hidden-slug)` names the note all the same):
        fail closed."""
        if self.include_sensitive:
            return text
        held = self._links.get(note.rel)
        if held is not None and held[0] is note and held[1] == text:
            return held[2]  # the same note of this very palace, the same text: the same answer
        served = self._links_withheld(note, text)
        if len(self._links) >= LINKS_KEPT:
            self._links.clear()
        self._links[note.rel] = (note, text, served)
        return served

    def _links_withheld(self, note: Note, text: str) -> str:
        """`links_in`, worked out."""
        by_rel = self.palace.by_rel
        hidden = [
            link.raw
            for link in self.palace.outgoing(note)
            if link.target in by_rel and not self.note(by_rel[link.target])
        ]
        written = (
            note.links
            if note.link_rule == LinkRule.ANY
            else links_by_rule(note.body, note.body_line, LinkRule.ANY)
        )
        hidden += [raw for raw in written if self._names_hidden(raw.target, raw.written)]
        for raw in hidden:
            if raw.kind == "md":  # (dest), (<dest> "title"), a reference's `[label]: dest`
                dest = re.escape(raw.written or raw.target)
                text = re.sub(rf"(\(<?|\]: ?<?){dest}", rf"\g<1>{WITHHELD}", text)
            else:
                wiki = r"\[\[" + re.escape(raw.target) + r"(?:[#|][^\]]*)?\]\]"
                text = re.sub(wiki, WITHHELD, text)
        return text


def served_index(served: Served, text: str) -> str:
    """The palace's index (`text`, as on disk) as agents may see it. Curator's INDEX.md is
    rendered again by the one renderer from the notes the gate shows (its preamble kept), so
    a hidden note is never listed, whatever its file name; another tool's index (MEMORY.md)
    is the person's file, served without the lines that name a hidden note. Either way no
    line naming a hidden note is served."""
    from curator.model.index_md import render_index, split_index

    palace = served.palace
    if not served.include_sensitive and not palace.foreign_layout:
        gone: dict[str, bytes | None] = {n.rel: None for n in palace.notes if not served.note(n)}
        preamble, _ = split_index(text)
        text = render_index(palace.replaced(gone) if gone else palace, preamble)
    lines = text.splitlines(keepends=True)
    return "".join(line for line in lines if served.text(line) == line)
