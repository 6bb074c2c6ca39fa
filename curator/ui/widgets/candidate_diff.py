"""Side-by-side, word-level diff of a draft against a duplicate candidate.

Words are compared across the whole text (not line by line), so a sentence rewrapped or with
one word changed shows just that word: removed words highlighted on the draft's side, added
words on the candidate's. The draft banner is left out: it is never part of a note."""

from __future__ import annotations

import difflib
import re

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

from curator.model.note import strip_banner
from curator.model.text import clean

_TOKENS = re.compile(r"\s+|\w+|[^\w\s]")
LEFT_STYLE = "bold black on red3"
RIGHT_STYLE = "bold black on green3"


def word_diff(left: str, right: str) -> tuple[Text, Text]:
    """(left, right) with the words only one side has highlighted on that side."""
    a = _TOKENS.findall(clean(left))
    b = _TOKENS.findall(clean(right))
    out_a, out_b = Text(), Text()
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        chunk_a, chunk_b = "".join(a[i1:i2]), "".join(b[j1:j2])
        if tag == "equal":
            out_a.append(chunk_a)
            out_b.append(chunk_b)
            continue
        _styled(out_a, chunk_a, LEFT_STYLE)
        _styled(out_b, chunk_b, RIGHT_STYLE)
    return out_a, out_b


def _styled(out: Text, chunk: str, style: str) -> None:
    """Highlight the words of `chunk`, not the white space around them (a highlighted newline
    would paint to the end of the line)."""
    for token in _TOKENS.findall(chunk):
        out.append(token, style="" if token.isspace() else style)


class CandidateDiff(Horizontal):
    """The draft on the left, the chosen candidate on the right; changed words highlighted."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="diff-side"):
            yield Static(Text("draft", style="bold"), classes="diff-title")
            yield Static(Text(), id="diff-left")
        with VerticalScroll(classes="diff-side"):
            yield Static(Text("candidate", style="bold"), id="diff-right-title")
            yield Static(Text(), id="diff-right")

    def show(
        self,
        draft_text: str,
        candidate_text: str | None,
        title: Text | None = None,
        *,
        empty: str = "(no candidate)",
    ) -> None:
        draft = strip_banner(draft_text)
        if candidate_text is None:
            left, right = Text(clean(draft)), Text(empty, style="dim")
        else:
            left, right = word_diff(draft, candidate_text)
        self.query_one("#diff-left", Static).update(left)
        self.query_one("#diff-right", Static).update(right)
        self.query_one("#diff-right-title", Static).update(title or Text("candidate"))
