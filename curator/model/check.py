"""`curator check`: lint rules over a loaded palace -> findings.

Errors fail a pre-commit hook; warnings inform. Everything under inbox/ is a warning at most:
drafts are untracked and unreviewed, so they must never block a commit.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date
from typing import Any

from curator.model.finding import Finding, Severity
from curator.model.index_md import IndexRefused, index_is_current
from curator.model.note import Note
from curator.model.palace import INDEX_NAME, Palace

REQUIRED = ("name", "description", "type")
MAX_TAGS = 8
RESERVED_KEYS = {"content", "handler"}
STATUSES = {"active", "superseded"}
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$")


def _is_date(value: Any) -> bool:
    if not isinstance(value, str) or not _DATE.match(value):
        return False
    try:
        date.fromisoformat(value[:10])
    except ValueError:
        return False
    return True


def _str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and v for v in value)


class _Checker:
    def __init__(self, palace: Palace, today: date) -> None:
        self.palace = palace
        self.today = today
        self.findings: list[Finding] = []

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
        h = note.header
        for key in REQUIRED:
            value = h.get(key)
            if value is None or (isinstance(value, str) and not value.strip()):
                self.add(note, None, "error", "header.missing", f"missing required field {key!r}")
            elif not isinstance(value, str):
                self.add(note, key, "error", "header.invalid", f"{key!r} must be text")
        if isinstance(h.get("description"), str) and "\n" in h["description"].strip():
            self.add(note, "description", "error", "header.invalid", "description must be one line")
        for key in sorted(RESERVED_KEYS & set(h)):
            self.add(
                note,
                key,
                "error",
                "header.reserved",
                f"key {key!r} breaks python-frontmatter based tools; rename it",
            )
        spec = self.palace.config.type_spec(h.get("type"))
        if isinstance(h.get("type"), str) and h["type"] and spec is None:
            known = ", ".join(self.palace.config.types)
            self.add(
                note,
                "type",
                "error",
                "type.unknown",
                f"unknown type {h['type']!r} (known: {known})",
            )
        if "confidence" in h:
            value = h["confidence"]
            if (
                not isinstance(value, (int, float))
                or isinstance(value, bool)
                or not 0 <= value <= 1
            ):
                self.add(
                    note,
                    "confidence",
                    "error",
                    "header.invalid",
                    "confidence must be a number from 0 to 1",
                )
            elif spec is not None:
                lo, hi = spec.confidence
                if not lo <= value <= hi:
                    self.add(
                        note,
                        "confidence",
                        "error",
                        "confidence.range",
                        f"confidence {value} is outside the {spec.name} range {lo}–{hi}",
                    )
        for key in ("created", "reviewed", "expires", "verified"):
            if key in h and not _is_date(h[key]):
                self.add(
                    note, key, "error", "header.invalid", f"{key!r} must be a date like 2026-11-30"
                )
        if "tags" in h:
            if not isinstance(h["tags"], list) or not all(isinstance(t, str) for t in h["tags"]):
                self.add(note, "tags", "error", "header.invalid", "tags must be a list of words")
            elif len(h["tags"]) > MAX_TAGS:
                self.add(
                    note,
                    "tags",
                    "error",
                    "header.invalid",
                    f"at most {MAX_TAGS} tags ({len(h['tags'])} given)",
                )
        if "scope" in h and (
            not isinstance(h["scope"], str) or h["scope"] not in self.palace.config.scopes
        ):
            known = ", ".join(self.palace.config.scopes)
            self.add(
                note,
                "scope",
                "error",
                "scope.unknown",
                f"unknown scope {h['scope']!r} (known: {known})",
            )
        if "sensitive" in h and not isinstance(h["sensitive"], bool):
            self.add(
                note, "sensitive", "error", "header.invalid", "sensitive must be true or false"
            )
        for key in ("superseded_by",):
            if key in h and not isinstance(h[key], str):
                self.add(note, key, "error", "header.invalid", f"{key!r} must be a note slug")
        for key in ("supersedes", "merged_from"):
            if key in h and not (isinstance(h[key], str) or _str_list(h[key])):
                self.add(
                    note,
                    key,
                    "error",
                    "header.invalid",
                    f"{key!r} must be a slug or a list of slugs",
                )
        if "source" in h and not isinstance(h["source"], (str, dict)):
            self.add(note, "source", "error", "header.invalid", "source must be text or a mapping")
        self.verify(note)
        self.stale(note)
        self.status(note, spec is not None and spec.name == "feedback")

    def verify(self, note: Note) -> None:
        if "verify" not in note.header:
            return
        value = note.header["verify"]
        if not isinstance(value, dict):
            self.add(
                note,
                "verify",
                "error",
                "verify.invalid",
                "verify must be a mapping (paths, command, expect)",
            )
            return
        unknown = sorted(set(value) - {"paths", "command", "expect"})
        if unknown:
            self.add(
                note,
                "verify",
                "error",
                "verify.invalid",
                f"unknown verify keys: {', '.join(map(str, unknown))}",
            )
        if "paths" in value and not (_str_list(value["paths"]) or isinstance(value["paths"], str)):
            self.add(
                note,
                "verify",
                "error",
                "verify.invalid",
                "verify.paths must be a list of paths or globs",
            )
        if "command" in value and not _str_list(value["command"]):
            self.add(
                note,
                "verify",
                "error",
                "verify.invalid",
                "verify.command must be an argument list such as [git, ls-files, src/app.py]",
            )
        if "expect" in value and not isinstance(value["expect"], str):
            self.add(note, "verify", "error", "verify.invalid", "verify.expect must be text")

    def stale(self, note: Note) -> None:
        if "stale" in note.header:
            value = note.header["stale"]
            if not isinstance(value, (dict, str)):
                self.add(
                    note,
                    "stale",
                    "error",
                    "header.invalid",
                    "stale must be a mapping with reason and since",
                )
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

    def status(self, note: Note, is_feedback: bool) -> None:
        raw = note.header.get("status")
        if note.kind == "note":
            if raw == "draft":
                self.add(
                    note,
                    "status",
                    "error",
                    "draft.in-notes",
                    "a draft inside notes/: promote it with 'curator promote' or move it to inbox/",
                )
            elif raw is not None and raw not in STATUSES:
                self.add(
                    note, "status", "error", "header.invalid", "status must be active or superseded"
                )
            if (
                raw == "superseded"
                and "superseded_by" not in note.header
                and "retired" not in note.header
            ):
                pass  # retired: superseded with no successor
            if note.superseded_by and raw != "superseded":
                self.add(
                    note,
                    "status" if "status" in note.header else "superseded_by",
                    "warning",
                    "supersede.status",
                    "has superseded_by but status is not superseded",
                )
            if is_feedback and not note.superseded:
                body = note.body
                if not re.search(r"^\W*why\W*:", body, re.IGNORECASE | re.MULTILINE):
                    self.add(
                        note, None, "warning", "feedback.why", "feedback note has no 'Why:' line"
                    )
                if not re.search(r"^\W*how to apply\W*:", body, re.IGNORECASE | re.MULTILINE):
                    self.add(
                        note,
                        None,
                        "warning",
                        "feedback.how",
                        "feedback note has no 'How to apply:' line",
                    )
        elif raw is not None and raw != "draft":
            self.add(
                note,
                "status",
                "warning",
                "rule.in-inbox",
                f"status {raw!r} inside inbox/: drafts are not rules until promoted",
            )

    # -- across notes ---------------------------------------------------------------------
    def names(self) -> None:
        seen: dict[str, Note] = {}
        for note in self.palace.notes:
            if not note.ok or not isinstance(note.header.get("name"), str):
                continue
            key = note.name.casefold().strip()
            if key in seen:
                self.add(
                    note,
                    "name",
                    "error",
                    "name.duplicate",
                    f"duplicate name {note.name!r} (also {seen[key].rel})",
                )
            else:
                seen[key] = note

    def links(self) -> None:
        for note in self.palace.notes:
            for link in self.palace.outgoing(note):
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
        try:
            current, _ = index_is_current(self.palace, self.today)
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
