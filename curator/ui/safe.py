"""Untrusted text to display objects: never markup, never escape sequences.

Every string that came from a note, a draft, a file name, a command or git goes through
`clean()` and into a `rich.text.Text`, which Textual shows as-is (no markup, no actions).
"""

from __future__ import annotations

from rich.text import Text

from curator.model.text import clean, one_line


def plain(text: object, style: str = "", *, limit: int | None = None) -> Text:
    """One line of untrusted text, cleaned and cut to `limit`."""
    return Text(one_line(str(text), limit), style=style, no_wrap=True, overflow="ellipsis")


def block(text: object, style: str = "") -> Text:
    """Multi-line untrusted text, cleaned."""
    return Text(clean(str(text)), style=style)


def bar(value: float, width: int = 8) -> Text:
    """A confidence bar: filled cells for `value` in 0..1, then the number."""
    value = max(0.0, min(1.0, value))
    filled = round(value * width)
    out = Text("█" * filled, style="green" if value >= 0.7 else "yellow")
    out.append("░" * (width - filled), style="dim")
    out.append(f" {value:.2f}")
    return out


BADGE_STYLE = {
    "stale": "bold white on red",
    "due": "black on yellow",
    "expired": "white on dark_orange3",
    "low-confidence": "black on grey70",
    "superseded": "white on grey35",
}


def badges(flags: list[str]) -> Text:
    out = Text()
    for flag in flags:
        if out:
            out.append(" ")
        out.append(f" {flag} ", style=BADGE_STYLE.get(flag, "reverse"))
    return out
