"""Untrusted text to display objects: never markup, never escape sequences.

Every string that came from a note, a draft, a file name, a command or git goes through
`clean()` and into a `rich.text.Text`, which Textual shows as-is (no markup, no actions).
"""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text

from curator.model.text import clean, one_line


def plain(text: object, style: str = "", *, limit: int | None = None) -> Text:
    """One line of untrusted text, cleaned and cut to `limit`."""
    return Text(one_line(str(text), limit), style=style, no_wrap=True, overflow="ellipsis")


def header_problem(note: Any, then: str = "Press e to edit it.") -> str:
    """Why a note's or draft's header cannot be read, in one line a person acts on."""
    problem = note.problems[0] if note.problems else None
    where = f" (line {problem.line})" if problem is not None and problem.line else ""
    what = problem.message if problem is not None else "unreadable header"
    return one_line(f"The header does not parse{where}: {what}. {then}", 200)


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
    "invalid": "bold white on dark_red",
    "stale": "bold white on red",
    "due": "black on yellow",
    "expired": "white on dark_orange3",
    "low-confidence": "black on grey70",
    "superseded": "white on grey35",
    "retired": "white on grey23",
}


def badges(flags: list[str]) -> Text:
    out = Text()
    for flag in flags:
        if out:
            out.append(" ")
        out.append(f" {flag} ", style=BADGE_STYLE.get(flag, "reverse"))
    return out


# -- the built-in editor: control characters as visible placeholders, the bytes kept ----------
# A C0 control or DEL shows as its Unicode control picture (ESC as ␛); any other character a
# terminal would obey (C1 controls, line and paragraph separators, bidi controls, lone
# surrogates) as ␥ and its four hex digits. A character of that picture range already in the
# text is marked with ␦, so `restore(visible(text)) == text` for every text.
_PICTURES = "\u2400-\u2426"
_LITERAL, _CODE = "\u2426", "\u2425"
_HIDDEN = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c"
    f"\ud800-\udfff{_PICTURES}]"
)
_SHOWN = re.compile(f"{_LITERAL}(.)|{_CODE}([0-9A-F]{{4}})|([\u2400-\u2421])", re.DOTALL)


def _placeholder(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if 0x2400 <= code <= 0x2426:
        return _LITERAL + char
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    return f"{_CODE}{code:04X}"


def _original(match: re.Match[str]) -> str:
    literal, code, picture = match.groups()
    if literal is not None:
        return literal
    if code is not None:
        return chr(int(code, 16))
    return "\x7f" if picture == "\u2421" else chr(ord(picture) - 0x2400)


def visible(text: str) -> str:
    """`text` with every character a terminal would act on replaced by a visible placeholder
    (newlines and tabs stay): safe to put in an editable widget."""
    return _HIDDEN.sub(_placeholder, text)


def restore(shown: str) -> str:
    """The text `visible()` showed, placeholders turned back into the characters they stand
    for (what the person typed around them stays as typed)."""
    return _SHOWN.sub(_original, shown)
