"""Side-by-side diff of a draft against a duplicate candidate."""

from __future__ import annotations

import difflib

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

from curator.model.text import clean


def side_by_side(left: str, right: str) -> tuple[Text, Text]:
    a = clean(left).splitlines()
    b = clean(right).splitlines()
    out_a, out_b = Text(), Text()
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        chunk_a, chunk_b = a[i1:i2], b[j1:j2]
        height = max(len(chunk_a), len(chunk_b))
        style_a = "" if tag == "equal" else "red"
        style_b = "" if tag == "equal" else "green"
        for k in range(height):
            if k < len(chunk_a):
                out_a.append(chunk_a[k], style=style_a)
            out_a.append("\n")
            if k < len(chunk_b):
                out_b.append(chunk_b[k], style=style_b)
            out_b.append("\n")
    return out_a, out_b


class CandidateDiff(Horizontal):
    """The draft on the left, the chosen candidate on the right; changed lines coloured."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="diff-side"):
            yield Static(Text("draft", style="bold"), classes="diff-title")
            yield Static(Text(), id="diff-left")
        with VerticalScroll(classes="diff-side"):
            yield Static(Text("candidate", style="bold"), id="diff-right-title")
            yield Static(Text(), id="diff-right")

    def show(self, draft_text: str, candidate_text: str | None, title: Text | None = None) -> None:
        if candidate_text is None:
            left, right = Text(clean(draft_text)), Text("(no candidate)", style="dim")
        else:
            left, right = side_by_side(draft_text, candidate_text)
        self.query_one("#diff-left", Static).update(left)
        self.query_one("#diff-right", Static).update(right)
        self.query_one("#diff-right-title", Static).update(title or Text("candidate"))
