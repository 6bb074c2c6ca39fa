"""Secret scanning for captured drafts: API keys, tokens, private keys, passwords.

`scan(text)` returns one `SecretHit` per secret-looking value, with the 1-based line it is on
and a masked preview (the first four characters and "…"), so a report never repeats a secret.
Specific patterns (AWS, Stripe, GitHub, Slack, OpenAI/Anthropic, Google, JWT, private keys)
run first; the generic `password = "…"` assignment and `user:password@` URL patterns only
report what no specific pattern already covered. Ordinary prose does not match: the generic
patterns need an assignment (`=` or `:`) right after a secret-ish key and a value that looks
like a credential (long enough, mixed character classes, not a placeholder or a reference).

Every quantifier that could backtrack is bounded, so a hostile 1 MiB body scans in linear time.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["SecretHit", "added_secrets", "scan", "spans", "without_secrets"]

MAX_HITS = 200  # a body pasted from a dump of secrets is flagged all the same


@dataclass(frozen=True, slots=True)
class SecretHit:
    kind: str  # e.g. "aws-access-key-id", "stripe-key", "password-assignment"
    line: int  # 1-based line within the scanned text
    preview: str  # masked: first 4 characters + "…"

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "line": self.line, "preview": self.preview}


def _mask(secret: str) -> str:
    return secret[:4] + "…"


_PLACEHOLDER_WORDS = (
    "xxxx",
    "****",
    "....",
    "…",
    "changeme",
    "change_me",
    "change-me",
    "placeholder",
    "redacted",
    "your_",
    "your-",
    "yourpass",
    "example.com",
)
_URL_PLACEHOLDERS = {"password", "pass", "passwd", "pwd", "secret", "token", "x", "xxx", "***"}


def _char_classes(value: str) -> int:
    classes = 0
    classes += any(c.islower() for c in value)
    classes += any(c.isupper() for c in value)
    classes += any(c.isdigit() for c in value)
    classes += any(not c.isalnum() and c not in "-_." for c in value)
    return classes


def _credential_like(value: str) -> bool:
    """A value that looks like a real credential, not a word, a placeholder or a reference."""
    if len(value) < 8 or len(set(value)) < 5:
        return False
    low = value.lower()
    if any(word in low for word in _PLACEHOLDER_WORDS):
        return False
    if value[0] in "$%<{[(/~" or value.startswith("./"):
        return False  # ${VAR}, %(x)s, <token>, {{ t }}, paths
    if any(c in value for c in "(){}<>[]"):
        return False  # function calls, templates
    return _char_classes(value) >= 2


def _token_like(value: str) -> bool:
    """A random-looking token: letters and digits both (rules out sk-learn-style words)."""
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


# (kind, lowercase literals one of which must be in the text, pattern, group holding the
# secret, extra check on that group or None)
_Check = Callable[[str], bool] | None
_SPECIFIC: list[tuple[str, tuple[str, ...], re.Pattern[str], int, _Check]] = [
    (
        "private-key",
        ("private key",),
        re.compile(r"-----BEGIN (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----"),
        0,
        None,
    ),
    (
        "aws-access-key-id",
        ("akia", "asia"),
        re.compile(r"\b((?:AKIA|ASIA)[0-9A-Z]{16})\b"),
        1,
        None,
    ),
    (
        "aws-secret-access-key",
        ("secret",),
        re.compile(
            r"(?i)aws[ _.-]?secret(?:[ _.-]?access)?(?:[ _.-]?key)?[\"']?[ \t]{0,5}[:=>][ \t]{0,5}"
            r"[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
        1,
        None,
    ),
    (
        "stripe-key",
        ("k_live_", "k_test_"),
        re.compile(r"\b((?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,})"),
        1,
        None,
    ),
    (
        "github-token",
        ("gh", "github_pat_"),
        re.compile(r"\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"),
        1,
        None,
    ),
    ("slack-token", ("xox",), re.compile(r"\b(xox[abposr]-[A-Za-z0-9-]{10,})"), 1, None),
    (
        "anthropic-key",
        ("sk-ant-",),
        re.compile(r"(?<![A-Za-z0-9_-])(sk-ant-[A-Za-z0-9_-]{20,})"),
        1,
        None,
    ),
    (
        "openai-key",
        ("sk-",),
        re.compile(r"(?<![A-Za-z0-9_-])(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,})"),
        1,
        _token_like,
    ),
    (
        "google-api-key",
        ("aiza",),
        re.compile(r"\b(AIza[0-9A-Za-z_-]{35})(?![0-9A-Za-z_-])"),
        1,
        None,
    ),
    (
        "jwt",
        ("eyj",),
        re.compile(r"\b(eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,})"),
        1,
        None,
    ),
]

_KEYWORDS = (
    r"password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|auth[_-]?key|private[_-]?key|client[_-]?secret|credentials?"
)
# A keyword is found first (a fast literal search), then the key around it and the assignment
# after it are matched at that spot: no pattern starts at every position of the text.
_KEYWORD = re.compile(r"(?i)" + _KEYWORDS)
_KEY_CHARS = re.compile(r"[A-Za-z0-9_.-]{1,40}$")
_ASSIGNMENT = re.compile(
    r"([A-Za-z0-9_.-]{0,40})[\"']?[ \t]{0,5}(?::=|=>|=|:)[ \t]{0,5}"
    r"(?:\"([^\"\s]{1,200})\"|'([^'\s]{1,200})'|`([^`\s]{1,200})`|([^\s\"'`,;]{1,200}))"
)
_URL_CREDENTIALS = re.compile(
    r"\b[A-Za-z][A-Za-z0-9+.-]{0,20}://([^\s:/@\"'<>]{1,100}):([^\s/@\"'<>]{1,200})@[A-Za-z0-9.-]"
)


def scan(text: str) -> list[SecretHit]:
    """Secret-looking values in `text`, in order of position (at most MAX_HITS)."""
    return [hit for _, _, hit in _found(text)]


def spans(text: str) -> list[tuple[int, int]]:
    """Where in `text` the secret-looking values are: (start, end) pairs, in order."""
    return [(start, end) for start, end, _ in _found(text)]


def added_secrets(before: str, after: str) -> list[SecretHit]:
    """Secret-looking values in `after` that `before` does not hold: what an edit adds. A
    value the note already held (promoted with --allow-secret, say) is not reported again."""
    held = {before[start:end] for start, end, _ in _found(before)}
    return [hit for start, end, hit in _found(after) if after[start:end] not in held]


def without_secrets(text: str) -> str:
    """`text` with every secret-looking value cut out (for file names and other places a
    secret must never reach). A text that reaches MAX_HITS is dropped whole."""
    found = spans(text)
    if len(found) >= MAX_HITS:
        return ""
    out: list[str] = []
    pos = 0
    for start, end in found:
        out.append(text[pos:start])
        pos = max(pos, end)
    out.append(text[pos:])
    return " ".join(out)


def _found(text: str) -> list[tuple[int, int, SecretHit]]:
    starts: list[int] = []
    found: list[tuple[int, int, SecretHit]] = []

    def line_of(pos: int) -> int:
        if not starts:
            starts.extend([0, *(m.end() for m in re.finditer("\n", text))])
        return bisect.bisect_right(starts, pos)

    def add(kind: str, start: int, end: int, secret: str, preview: str | None = None) -> bool:
        """Record a hit unless a previous one covers the span; False once MAX_HITS is reached."""
        if any(s < end and start < e for s, e, _ in found):
            return True
        found.append((start, end, SecretHit(kind, line_of(start), preview or _mask(secret))))
        return len(found) < MAX_HITS

    def run() -> None:
        low = text.lower()
        for kind, literals, pattern, group, check in _SPECIFIC:
            if not any(literal in low for literal in literals):
                continue
            for match in pattern.finditer(text):
                value = match.group(group)
                if check is not None and not check(value):
                    continue
                start, end = match.span(group)
                preview = value if kind == "private-key" else None
                if not add(kind, start, end, value, preview):
                    return
        for match in _URL_CREDENTIALS.finditer(text):
            password = match.group(2)
            if password.lower() in _URL_PLACEHOLDERS or password[0] in "$<{%*":
                continue
            if not add("url-credentials", *match.span(2), password):
                return
        pos = 0
        while (keyword := _KEYWORD.search(text, pos)) is not None:
            start = keyword.start()
            assignment = _ASSIGNMENT.match(text, keyword.end())
            if assignment is None:
                pos = keyword.end()
                continue
            pos = assignment.end()
            before = _KEY_CHARS.search(text, max(0, start - 40), start)
            key = (before.group() if before else "") + keyword.group() + assignment.group(1)
            group = next(g for g in (2, 3, 4, 5) if assignment.group(g) is not None)
            value = assignment.group(group)
            if not _credential_like(value):
                continue
            key = key.lower()
            kind = "password-assignment" if "pass" in key or "pwd" in key else "secret-assignment"
            if not add(kind, *assignment.span(group), value):
                return

    run()
    found.sort(key=lambda item: (item[0], item[1]))
    return found
