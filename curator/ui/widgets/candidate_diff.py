"""Side-by-side, word-level diff of a draft against a duplicate candidate.

Words are compared across the whole text (not line by line), so a sentence rewrapped or with
one word changed shows just that word: words only the draft has highlighted on its side, words
only the candidate has on the other. The draft banner is left out: it is never part of a note.

The diff is drawn on every cursor move, so it must be quick on any text a draft can hold (a
pasted log, a run of one word: difflib's matcher is cubic on such repetition). The words both
sides share are their longest common subsequence (rapidfuzz's Indel, C++ and bit-parallel: its
time depends on the lengths only). Texts of more than MAX_WORDS words a side are compared up
to there, and the view says so.
"""

from __future__ import annotations

import itertools
import re

from rapidfuzz.distance import Indel
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

from curator.model.note import strip_banner
from curator.model.text import clean

_WORDS = re.compile(r"\w+|[^\w\s]")  # a word, or one mark of punctuation
LEFT_STYLE = "bold black on red3"
RIGHT_STYLE = "bold black on green3"
MAX_WORDS = 10_000  # a side; the comparison takes ~15 ms at this size


def word_diff(left: str, right: str) -> tuple[Text, Text]:
    """(left, right) with the words only one side has highlighted on that side."""
    a_text, b_text = clean(left), clean(right)
    a, b = _words(a_text), _words(b_text)
    shared_a: set[int] = set()
    shared_b: set[int] = set()
    ops = Indel.opcodes([m.group() for m in a[:MAX_WORDS]], [m.group() for m in b[:MAX_WORDS]])
    for op in ops:
        if op.tag == "equal":
            shared_a.update(range(op.src_start, op.src_end))
            shared_b.update(range(op.dest_start, op.dest_end))
    return _marked(a_text, a, shared_a, LEFT_STYLE), _marked(b_text, b, shared_b, RIGHT_STYLE)


def _words(text: str) -> list[re.Match[str]]:
    """The first MAX_WORDS words of `text`, and one more when there are more."""
    return list(itertools.islice(_WORDS.finditer(text), MAX_WORDS + 1))


def _marked(text: str, words: list[re.Match[str]], shared: set[int], style: str) -> Text:
    """`text` with its words not in `shared` highlighted (the white space between them never
    is: a highlighted newline would paint to the end of the line)."""
    out = Text()
    end = 0
    for index, word in enumerate(words[:MAX_WORDS]):
        out.append(text[end : word.start()])
        out.append(word.group(), style="" if index in shared else style)
        end = word.end()
    out.append(text[end:])
    if len(words) > MAX_WORDS:
        out.append(f"\n(compared up to word {MAX_WORDS:,}; the rest is not)", style="dim")
    return out


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
