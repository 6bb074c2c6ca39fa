"""Terminal-safe text: untrusted strings from notes, drafts, commands and git.

Rich and most terminals pass ESC and OSC sequences straight through, so every string that
reaches a screen goes through `clean()` first.
"""

from __future__ import annotations

import re

# CSI (ESC [ ... final), OSC (ESC ] ... BEL or ST), DCS/SOS/PM/APC (ESC P/X/^/_ ... ST),
# two-byte ESC sequences, and their 8-bit C1 forms.
_ESCAPES = re.compile(
    r"""
    (?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]            # CSI
  | (?:\x1b\]|\x9d).*?(?:\x07|\x1b\\|\x9c|$)     # OSC, to BEL or ST
  | (?:\x1b[PX^_]|[\x90\x98\x9e\x9f]).*?(?:\x1b\\|\x9c|$)  # DCS, SOS, PM, APC
  | \x1b[ -/]*[0-~]?                            # other ESC sequences (and a lone ESC)
    """,
    re.VERBOSE | re.DOTALL,
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Bidi overrides and isolates can make text read differently from what it is ("Trojan
# Source"); they are shown as visible markers instead of being obeyed.
_BIDI = {
    "\u202a": "<LRE>",
    "\u202b": "<RLE>",
    "\u202c": "<PDF>",
    "\u202d": "<LRO>",
    "\u202e": "<RLO>",
    "\u2066": "<LRI>",
    "\u2067": "<RLI>",
    "\u2068": "<FSI>",
    "\u2069": "<PDI>",
    "\u200e": "<LRM>",
    "\u200f": "<RLM>",
    "\u061c": "<ALM>",
}
_BIDI_RE = re.compile("[" + "".join(_BIDI) + "]")


def clean(text: str, *, keep_newlines: bool = True) -> str:
    """Strip escape sequences and control characters; make bidi controls visible."""
    if text.isprintable():  # no control, format (bidi) or separator characters: nothing to do
        return text
    text = _ESCAPES.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if keep_newlines:
        text = _CONTROL.sub("", text)
    else:
        text = _CONTROL.sub(" ", text.replace("\n", " ").replace("\t", " "))
    return _BIDI_RE.sub(lambda m: _BIDI[m.group()], text)


def with_article(word: str) -> str:
    """ "a basic-memory", "an obsidian": the article English puts before `word`."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def one_line(text: str, limit: int | None = None) -> str:
    """Clean text folded to a single line, optionally cut to `limit` characters."""
    out = " ".join((text if text.isprintable() else clean(text, keep_newlines=False)).split())
    if limit is not None and len(out) > limit:
        out = out[: max(0, limit - 1)] + "…"
    return out


def has_escapes(text: str) -> bool:
    """True when the text holds escape sequences, control or bidi characters."""
    if text.isprintable():  # each of them is a control (Cc) or format (Cf) character
        return False
    flat = text.replace("\r\n", "\n")
    return bool(_ESCAPES.search(flat) or _CONTROL.search(flat) or _BIDI_RE.search(flat))


def not_utf8(value: str) -> str | None:
    """The first character of `value` no UTF-8 file can hold, escaped for a message (`\\udcff`),
    or None when it is text: a lone surrogate, from JSON text cut mid-emoji (`"\\ud83d"`) or a
    command argument whose bytes were not UTF-8 (Python keeps them as surrogates)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        return value[exc.start : exc.end].encode("unicode_escape").decode("ascii")
    return None
