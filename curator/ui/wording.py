"""The one place where a core message is worded for the app: the CLI names its flags ("pass
--allow-secret", "or pass --remote"), which the app cannot pass, so the app says what to do in
its own keys instead. Every message the app shows (its toasts, the messages log, the sync
dialog) passes through `for_app`; the CLI prints the core's words as they are."""

from __future__ import annotations

import re

#: (a CLI remedy, as the core words it) -> what the app says instead
_FOR_APP: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r",? or pass --allow-secret if it is not one"),
        " (e edits the draft; the app never promotes a draft holding a secret)",
    ),
    (
        re.compile(r",? or pass --remote\b"),
        " in a terminal, or name another remote in palace.toml's [team] remote; then S syncs",
    ),
    (
        re.compile(r"; pass --include-sensitive to look for its dupes"),
        ": the app does not look up a sensitive draft's duplicates",
    ),
)


def for_app(message: str) -> str:
    """`message` with every CLI remedy in it said as the app's own."""
    for pattern, instead in _FOR_APP:
        message = pattern.sub(instead, message)
    return message


__all__ = ["for_app"]
