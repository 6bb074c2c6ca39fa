"""`curator check`: lint rules over a loaded palace -> findings.

Errors fail a pre-commit hook; warnings inform. Everything under inbox/ is a warning at most:
drafts are untracked and unreviewed, so they must never block a commit.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date

from curator.model import palace_rules
from curator.model.finding import Finding, Severity
from curator.model.index_md import IndexRefused, index_is_current
from curator.model.layouts import rules as layout_rules
from curator.model.note import Note
from curator.model.palace import INDEX_NAME, Palace
from curator.model.schema import MAX_TAGS, check_header, check_note

# MAX_TAGS is re-exported for the planners; the header rules themselves live in schema.py
__all__ = ["MAX_TAGS", "feedback_gaps", "run_checks", "says"]


def says(body: str, label: str) -> bool:
    """Whether a feedback note gives `label` ("why", "how to apply") in one of the forms
    people and Claude write it: a `Why:` line, a `## Why` heading, or a bold `**Why:**`
    anywhere in a line (`**Why:** ... **How to apply:** ...` on one line)."""
    word = r"[ \t]+".join(map(re.escape, label.split()))
    forms = (
        rf"^\W*{word}\W*:",
        rf"^[ \t]{{0,3}}#{{1,6}}[ \t]+{word}\b",
        rf"(?:\*\*|__)[ \t]*{word}[ \t]*:?[ \t]*(?:\*\*|__)",
    )
    return any(re.search(f, body, re.IGNORECASE | re.MULTILINE) for f in forms)


def feedback_gaps(body: str) -> list[tuple[str, str]]:
    """(code, message) for what a feedback rule's body leaves out of why and how to apply
    it: check warns with these, and promote's plan asks for them."""
    out = []
    if not says(body, "why"):
        out.append(("feedback.why", "feedback note has no 'Why:' line or '## Why' heading"))
    if not says(body, "how to apply"):
        message = "feedback note has no 'How to apply:' line or '## How to apply' heading"
        out.append(("feedback.how", message))
    return out


class _Checker:
    def __init__(self, palace: Palace, today: date) -> None:
        self.palace = palace
        self.today = today
        self.findings: list[Finding] = []
        # another tool's layout: its own header, link and index rules (curator.model.layouts)
        self.layout = palace.layout
        self.foreign = palace.foreign_layout

    def add(self, note: Note, key: str | None, severity: Severity, code: str, message: str) -> None:
        if note.kind == "draft":
            severity = "warning"
        line = note.line_of(key) if key else 1
        self.findings.append(Finding(note.rel, line, severity, code, message))

    def run(self, with_index: bool) -> list[Finding]:
        self.findings.extend(self.palace.problems)
        for note in self.palace.all():
            self.findings.extend(
                replace(f, severity="warning") if note.kind == "draft" else f for f in note.problems
            )
            if note.ok:
                self.header(note)
        self.names()
        self.links()
        self.supersedes()
        if with_index:
            self.index()
        return sorted(set(self.findings), key=lambda f: (f.path, f.line, f.code, f.message))

    # -- one note ---------------------------------------------------------------------------
    def header(self, note: Note) -> None:
        config = self.palace.config
        held = layout_rules.held_header(note, self.layout) if note.kind == "note" else None
        if note.kind != "note" or not self.layout.lenient:
            found = check_note(note, config)
        elif held is None:  # the vault's own properties: its tool's to judge, not curator's
            found = []
        else:
            found = check_header(held, config, path=note.rel, line_of=note.line_of)
        self.findings.extend(layout_rules.header_findings(found, self.layout))
        self.stale(note)
        spec = config.type_spec(held.get("type") if held is not None else None)
        if note.kind == "note" and spec is not None and spec.name == "feedback":
            self.feedback(note)

    def stale(self, note: Note) -> None:
        if note.kind != "note" or note.superseded:
            return
        flags = self.palace.flags(note, self.today)
        if note.stale:
            since = f" since {note.stale['since']}" if note.stale["since"] else ""
            self.add(
                note,
                "stale",
                "warning",
                "note.stale",
                f"stale{since}: {note.stale['reason'] or 'no reason given'}",
            )
        if "due" in flags:
            self.add(note, "reviewed", "warning", "note.due", "due for review")
        if "expired" in flags:
            self.add(note, "expires", "warning", "note.expired", f"expired on {note.expires}")

    def feedback(self, note: Note) -> None:
        """A feedback rule says why and how to apply it."""
        if note.superseded:
            return
        for code, message in feedback_gaps(note.body):
            self.add(note, None, "warning", code, message)

    # -- across notes ---------------------------------------------------------------------
    def names(self) -> None:
        if self.layout.lenient:  # names from file names repeat across folders by design
            return
        for note in self.palace.notes:
            if not note.ok or not isinstance(note.header.get("name"), str):
                continue
            named = self.palace.named(note.name)
            first = next(n for n in named if isinstance(n.header.get("name"), str))
            if first is not note:
                self.add(
                    note,
                    "name",
                    "error",
                    "name.duplicate",
                    f"duplicate name {note.name!r} (also {first.rel})",
                )

    def links(self) -> None:
        if self.foreign:
            self.findings.extend(palace_rules.link_findings(self.palace))
            self.findings.extend(palace_rules.permalink_findings(self.palace))
            if not self.layout.lenient:
                self.orphans()
            return
        outgoing = self.palace.link_graph()[0]  # built once: orphans() reads its backlinks
        for note in self.palace.notes:
            for link in outgoing.get(note.rel, ()):
                if link.target is None:
                    self.findings.append(
                        Finding(
                            note.rel,
                            link.raw.line,
                            "error",
                            "link.broken",
                            f"broken link to {link.raw.target!r}",
                        )
                    )
        self.orphans()

    def orphans(self) -> None:
        for note in self.palace.notes:
            if note.ok and not self.palace.backlinks(note):
                self.add(note, None, "warning", "note.orphan", "orphan: no other note links here")

    def supersedes(self) -> None:
        for note in self.palace.notes:
            if not note.ok or not note.superseded_by:
                continue
            target = self.palace.note_by_slug(note.superseded_by)
            if target is None:
                self.add(
                    note,
                    "superseded_by",
                    "error",
                    "supersede.dangling",
                    f"superseded_by {note.superseded_by!r} points at no note",
                )
        for note in self.palace.notes:
            seen = [note.rel]
            current = note
            while current.superseded_by:
                nxt = self.palace.note_by_slug(current.superseded_by)
                if nxt is None:
                    break
                if nxt.rel == note.rel:
                    chain = " -> ".join([*seen, note.rel])
                    self.add(
                        note,
                        "superseded_by",
                        "error",
                        "supersede.cycle",
                        f"supersede cycle: {chain}",
                    )
                    break
                if nxt.rel in seen:
                    break
                seen.append(nxt.rel)
                current = nxt

    def index(self) -> None:
        if self.foreign:
            name = layout_rules.index_name(self.palace.config)
            try:
                data: bytes | None = (self.palace.root / name).read_bytes()
            except FileNotFoundError:
                data = None
            if self.layout.name == "claude-code":
                self.findings.extend(palace_rules.index_findings(self.palace, data))
                return
            if data is None:  # adopted in place: curator writes its index only when asked
                return
        try:
            current = index_is_current(self.palace)
        except IndexRefused as exc:
            self.findings.append(Finding(INDEX_NAME, 0, "error", "index.refused", exc.message))
            return
        if not current:
            self.findings.append(
                Finding(
                    INDEX_NAME,
                    0,
                    "error",
                    "index.outdated",
                    "INDEX.md is out of date: run 'curator index'",
                )
            )


def run_checks(
    palace: Palace, today: date | None = None, *, with_index: bool = True
) -> list[Finding]:
    return _Checker(palace, today or date.today()).run(with_index)
