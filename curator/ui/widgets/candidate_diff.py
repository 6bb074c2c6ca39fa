"""Side-by-side, word-level diff of a draft against a duplicate candidate.

Words are compared across the whole text (not line by line), so a sentence rewrapped or with
one word changed shows just that word: words only the draft has highlighted on its side, words
only the candidate has on the other. The draft banner is left out: it is never part of a note.

The diff is drawn on every cursor move, so it must be quick on any text a draft can hold (a
pasted log, a run of one word: difflib's matcher is cubic on such repetition). The words both
sides share are their longest common subsequence (rapidfuzz's Indel, C++ and bit-parallel: its
time depends on the lengths only). Each side shows at most SHOWN characters, and says how much
more there is: the pane is for telling duplicates apart, and Textual wraps a widget's whole
text again on every refresh (seconds for a long log).
"""

from __future__ import annotations

import re

from rapidfuzz.distance import Indel
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

from curator.model.note import strip_banner
from curator.model.text import clean
from curator.ui.services import masked

_WORDS = re.compile(r"\w+|[^\w\s]")  # a word, or one mark of punctuation
LEFT_STYLE = "bold black on red3"
RIGHT_STYLE = "bold black on green3"
SHOWN = 12_000  # characters a side (~200 lines; compared in ~20 ms whatever they hold)


def word_diff(left: str, right: str) -> tuple[Text, Text]:
    """(left, right) as shown, with the words only one side has highlighted on that side."""
    (a_text, a_more), (b_text, b_more) = _head(left), _head(right)
    a, b = list(_WORDS.finditer(a_text)), list(_WORDS.finditer(b_text))
    shared_a: set[int] = set()
    shared_b: set[int] = set()
    for op in Indel.opcodes([m.group() for m in a], [m.group() for m in b]):
        if op.tag == "equal":
            shared_a.update(range(op.src_start, op.src_end))
            shared_b.update(range(op.dest_start, op.dest_end))
    return (
        _marked(a_text, a, shared_a, LEFT_STYLE, a_more),
        _marked(b_text, b, shared_b, RIGHT_STYLE, b_more),
    )


def shown(text: str) -> Text:
    """`text` as a side shows it with nothing to compare (escapes cleaned, SHOWN at most)."""
    head, more = _head(text)
    return _marked(head, [], set(), "", more)


def _head(text: str) -> tuple[str, int]:
    """The cleaned text up to SHOWN characters (at a line end when one is near), and how many
    characters are left out."""
    text = clean(text)
    if len(text) <= SHOWN:
        return text, 0
    cut = text.rfind("\n", 0, SHOWN)
    cut = cut if cut > SHOWN // 2 else SHOWN
    return text[:cut], len(text) - cut


def _marked(text: str, words: list[re.Match[str]], shared: set[int], style: str, more: int) -> Text:
    """`text` with its words not in `shared` highlighted (the white space between them never
    is: a highlighted newline would paint to the end of the line)."""
    out = Text()
    end = 0
    for index, word in enumerate(words):
        out.append(text[end : word.start()])
        out.append(word.group(), style="" if index in shared else style)
        end = word.end()
    out.append(text[end:])
    if more:
        out.append(f"\n… {more:,} more characters not shown", style="dim")
    return out


class CandidateDiff(Horizontal):
    """The draft on the left, the chosen candidate on the right; changed words highlighted.
    What the secret scanner flags in the draft shows masked unless `reveal`."""

    reveal = False

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
        if not self.reveal:
            draft = masked(draft)
        if candidate_text is None:
            left, right = shown(draft), Text(empty, style="dim")
        else:
            left, right = word_diff(draft, candidate_text)
        self.query_one("#diff-left", Static).update(left)
        self.query_one("#diff-right", Static).update(right)
        self.query_one("#diff-right-title", Static).update(title or Text("candidate"))
