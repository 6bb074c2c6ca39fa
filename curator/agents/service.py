"""What an agent may do with a palace, whatever the transport (MCP tools, resources, hooks).

`Memory(root)` answers search, ask, pack, read_note, list_inbox and INDEX.md, and writes only
drafts (capture, report_stale) through `curator.writer.capture`. Every read passes the one
visibility gate of `curator.search` (`visible`); sensitive notes and scopes stay hidden unless
the Memory was made with `include_sensitive=True`. Every answer is cut to a size cap, and every
refusal is an `AgentRefusal` (a sentence the agent can act on), never a traceback.

The palace is reloaded only when a watcher saw the notes, the inbox or palace.toml change, so a warm
call costs one query, not a palace load.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from curator.config import Config
from curator.errors import CuratorError
from curator.model.note import DELETE, NoteChanged, NoteEditError, edit_header
from curator.model.palace import Palace
from curator.model.served import Served, served_index
from curator.model.text import clean, one_line
from curator.search.filters import check_limit
from curator.search.request import SearchRequest
from curator.session import Session

if TYPE_CHECKING:
    from curator.search.searcher import Searcher

__all__ = ["MAX_ANSWER_CHARS", "MAX_CAPTURE_CHARS", "AgentRefusal", "Memory", "result_limit"]

MAX_ANSWER_CHARS = 24_000  # any one answer (a model's context is precious)
MAX_NOTE_CHARS = 20_000  # read_note's text beyond this is cut, and the answer says so
MAX_CAPTURE_CHARS = 16_000  # a memory longer than this is a document, not a memory
MAX_QUERY_CHARS = 4_000
MIN_TOKENS = 50  # read_note's smallest max_tokens (its input schema says so too)
NOT_RULES = "Drafts are NOT rules until a person promotes them."
CONTEXT_NOTE = (
    "Where the fact came from (the conversation turns around it, the file and lines it was "
    "read from): evidence to check it by, not the fact itself and not a rule."
)


class AgentRefusal(CuratorError):
    """A request an agent made that is refused as asked; the message says what to change."""


def cap(text: str, limit: int = MAX_ANSWER_CHARS) -> str:
    """`text` cut to `limit` characters at a line end, saying that it was cut."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 80]
    cut = cut[: cut.rfind("\n")] if "\n" in cut else cut
    return f"{cut}\n\n[cut at {limit} characters: ask for fewer results]"


def result_limit(value: int) -> int:
    """A result count: at least 1, at most the one limit every door checks (`check_limit`)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise AgentRefusal(f"limit must be a whole number of at least 1, got {value!r}")
    return check_limit(value)


def _text_arg(label: str, value: str) -> None:
    if not value.strip():
        raise AgentRefusal(f"empty {label}: say what to look for in a few words")
    if len(value) > MAX_QUERY_CHARS:
        raise AgentRefusal(
            f"the {label} is {len(value)} characters; keep it under {MAX_QUERY_CHARS} "
            "(the key words are enough)"
        )


def _day(label: str, value: str | None) -> str | None:
    """A YYYY-MM-DD filter date (None when not given)."""
    if value is None or value == "":
        return None
    from datetime import date

    try:
        return date.fromisoformat(str(value)[:10]).isoformat()
    except ValueError:
        raise AgentRefusal(f"{label} must be a date, YYYY-MM-DD, got {value!r}") from None


def _tokens(value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < MIN_TOKENS:
        raise AgentRefusal(
            f"max_tokens must be a whole number of at least {MIN_TOKENS}, got {value!r}"
        )
    return value


def _part(
    lines: list[str], start: int | None, end: int | None, heading: str | None, ref: str
) -> tuple[int, int]:
    """(first, last) 1-based lines of a note to show: all, a range, or one heading's section."""
    total = len(lines)
    if heading is not None and heading.strip():
        want = heading.strip().lstrip("#").strip().casefold()
        for i, line in enumerate(lines):
            level = len(line) - len(line.lstrip("#"))
            if 1 <= level <= 6 and line[level:].strip().casefold() == want:
                stop = next(
                    (
                        j
                        for j in range(i + 1, total)
                        if 1 <= (n := len(lines[j]) - len(lines[j].lstrip("#"))) <= level
                        and lines[j][n : n + 1] in (" ", "\t", "\n")
                    ),
                    total,
                )
                return i + 1, stop
        titles = [ln.strip() for ln in lines if ln.startswith("#")][:10]
        raise AgentRefusal(
            f"{ref!r} has no heading {heading!r}"
            + (f" (its headings: {'; '.join(titles)})" if titles else " (it has no headings)")
        )
    for label, value in (("start_line", start), ("end_line", end)):
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or value < 1
        ):
            raise AgentRefusal(f"{label} must be a whole number of at least 1, got {value!r}")
    first = start or 1
    last = min(end or total, total)
    if total and first > total:
        raise AgentRefusal(f"start_line {first} is past the end ({total} lines)")
    if last < first and total:
        raise AgentRefusal(f"end_line {end} is before start_line {first}")
    return first, last


# header fields that name other notes: served only with the references the gate lets through
REFERENCE_FIELDS = ("superseded_by", "supersedes", "merged_from")
_CHANGES = {
    "promote": "promoted",
    "supersede": "superseded",
    "retire": "retired",
    "merge": "merged",
}


P = ParamSpec("P")
R = TypeVar("R")


class Memory:
    """One palace as agents see it. Thread-safe; the MCP server holds one for its lifetime."""

    def __init__(self, root: Path, *, include_sensitive: bool = False, watch: bool = False):
        self.root = Path(root).resolve()
        self.include_sensitive = include_sensitive
        self.session = Session.open(self.root)  # the palace, its index, the commits' hook
        self._serving = watch  # a server: opens the index meanwhile when a hook cannot wait
        if watch:
            self.session.watch()

    # -- the session's palace and index ---------------------------------------------------------
    def close(self) -> None:
        self.session.close()

    @property
    def config(self) -> Config:
        return self.session.config

    def fresh(self, fn: Callable[P, R]) -> Callable[P, R]:
        """`fn`, run once more over the palace read again when a file changed under a settled
        palace before the watch said so (`NoteChanged`): the agent gets the answer of the files
        as they are, judged by the gate again, not an error. Only for reads: a retried write
        could be written twice. A file that changes again meanwhile is refused."""

        @functools.wraps(fn)
        def again(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return fn(*args, **kwargs)
            except NoteChanged:
                self.session.changed()
                return fn(*args, **kwargs)

        return again

    @property
    def palace(self) -> Palace:
        return self.session.palace

    @property
    def searcher(self) -> Searcher:
        """The index's searcher, opened on first use and synced to the palace as last
        reloaded (one thread opens it; others wait)."""
        return self.session.searcher()

    def searcher_now(self) -> Searcher:
        """The session's searcher when it is ready, else one over the loaded palace alone,
        never waiting for LanceDB and the embedder (for the hooks, which answer within a
        budget); a server opens the index meanwhile."""
        return self.session.searcher_now(open_meanwhile=self._serving)

    def visible(self, item: Any) -> bool:
        from curator.search.filters import visible

        return visible(self.palace, item, include_sensitive=self.include_sensitive)

    @property
    def served(self) -> Served:
        """The rule every served value passes (`curator.model.served`), for the palace as
        last loaded."""
        return Served.of(self.palace, self.include_sensitive)

    # -- reads -----------------------------------------------------------------------------------
    def _request(self, text: str, **values: Any) -> SearchRequest:
        """The request a tool call describes, with this server's visibility."""
        return SearchRequest.of(
            self.palace, text, include_sensitive=self.include_sensitive, **values
        )

    def search(
        self,
        query: str,
        *,
        types: list[str] | None = None,
        scope: list[str] | None = None,
        status: list[str] | None = None,
        tags: list[str] | None = None,
        stale: bool | None = None,
        min_confidence: float | None = None,
        drafts: bool = False,
        created_after: str | None = None,
        created_before: str | None = None,
        reviewed_after: str | None = None,
        reviewed_before: str | None = None,
        limit: int = 10,
    ) -> dict[str, Any]:
        _text_arg("query", query)
        request = self._request(
            query,
            limit=result_limit(limit),
            types=types or None,
            scope=scope or None,
            status=status or None,
            tags=tags or None,
            stale=stale,
            min_confidence=min_confidence,
            drafts=drafts,
            created_after=created_after,
            created_before=created_before,
            reviewed_after=reviewed_after,
            reviewed_before=reviewed_before,
        )
        searcher = self.searcher
        with self.session.index.lock:  # one query at a time, as syncs
            hits = searcher.run(request)
        palace = self.palace
        served = self.served
        keys = ("path", "name", "type", "score", "snippet", "status", "scope", "stale", "kind")
        results: list[dict[str, Any]] = []
        size = 0
        for h in hits:
            note = palace.by_rel.get(h.path)
            data = h.to_json()
            row = {k: data[k] for k in keys}
            row.update(
                tags=list(note.tags) if note is not None and note.ok else [],
                created=h.created,
                reviewed=h.reviewed,
            )
            if h.successor and served.ref(h.successor):
                row["superseded_by"] = h.successor
            size += len(json.dumps(row, ensure_ascii=False))
            if results and size > MAX_ANSWER_CHARS:
                break  # the answer's size, not the limit, ends a long list
            results.append(row)
        return {"query": query, "results": results}

    def ask(self, question: str, *, limit: int = 8) -> dict[str, Any]:
        _text_arg("question", question)
        searcher = self.searcher
        with self.session.index.lock:  # one query at a time, as syncs
            answer = searcher.ask(
                question, limit=result_limit(limit), include_sensitive=self.include_sensitive
            )
        sources = []
        served = self.served
        for s in answer.sources:
            marks = [m for m, on in (("draft", s.draft), ("stale", s.stale)) if on]
            marks += ["superseded"] if s.superseded_from else []
            marks += [] if s.draft or s.stale else ["hint"]
            sources.append(
                {
                    "path": s.path,
                    "name": s.name,
                    "type": s.type,
                    "marks": marks,
                    "label": s.label or "hint: check it against the repository",
                    "replaces_superseded": served.refs(s.superseded_from),
                    "snippet": s.snippet,
                }
            )
        return {"question": question, "sources": sources}

    def pack(
        self,
        goal: str,
        *,
        budget: int | None = None,
        floor: float | None = None,
        using: Searcher | None = None,
        matched: bool = False,
    ) -> str:
        """The memory pack for `goal`, from `using` (e.g. `searcher_now()`) or the index;
        `matched`: "" unless a best candidate shares a word with the goal (`search.pack`)."""
        _text_arg("goal", goal)
        searcher = using or self.searcher
        with self.session.index.lock:  # one query at a time, as syncs
            return searcher.pack(
                goal,
                budget=budget,
                floor=floor,
                include_sensitive=self.include_sensitive,
                matched=matched,
            )

    def read_note(
        self,
        ref: str,
        *,
        start_line: int | None = None,
        end_line: int | None = None,
        heading: str | None = None,
        max_tokens: int | None = None,
    ) -> dict[str, Any]:
        """A note or draft by slug, name or path inside the palace; nothing outside it. A part
        of it when asked: lines `start_line`..`end_line`, the section under `heading`, or
        about `max_tokens` tokens; the answer says which lines it holds."""
        note = self._find(ref)
        palace = self.palace
        shown, context = self._shown_text(note)
        lines = clean(shown).splitlines(keepends=True)
        first, last = _part(lines, start_line, end_line, heading, ref)
        text = "".join(lines[first - 1 : last])
        budget = MAX_NOTE_CHARS if max_tokens is None else _tokens(max_tokens) * 4
        cut = len(text) > budget
        if cut:  # whole lines, and the answer says which: ask for the next ones by number
            text = text[:budget]
            text = text[: text.rfind("\n") + 1] if "\n" in text else text
            last = first - 1 + text.count("\n") + (0 if text.endswith("\n") else 1)
        shown = f"{first}-{max(first, last)} of {len(lines)}" if lines else "0 of 0"
        answer: dict[str, Any] = {
            "path": note.rel,
            "kind": note.kind,
            "name": one_line(note.name),
            "type": note.type,
            "status": note.status,
            "flags": palace.flags(note) if note.ok else ["broken"],
            "text": text,
            "truncated": cut or (first, last) != (1, len(lines)),
            "lines": shown,
            "total_lines": len(lines),
        }
        if context:
            answer["context"] = {"note": CONTEXT_NOTE, "text": cap(context, MAX_NOTE_CHARS)}
        return answer

    def _find(self, ref: str) -> Any:
        """The visible note or draft `ref` names; a refusal names nothing this Memory hides."""
        if not ref.strip() or "\x00" in ref:
            raise AgentRefusal("give a note's slug, name or path")
        try:
            note = self.palace.find(ref, among=self.visible)
        except CuratorError as exc:
            raise AgentRefusal(
                f"{exc.message}; paths outside the notes and {self.palace.inbox}/ are refused"
            ) from None
        if not self.visible(note):
            raise AgentRefusal(f"no note or draft matches {ref!r} (give a path, a slug or a name)")
        return note

    def _shown_text(self, note: Any) -> tuple[str, str]:
        """(text, context): the note's text without its `context` field (the text the fact
        came from is never served as the fact) and, in a draft, without the `similar:` entries
        naming notes this Memory hides (the capture that wrote it listed every similar note,
        sensitive or not); and the context on its own."""
        header = note.header if note.ok else {}
        context = header.get("context")
        updates: dict[str, Any] = {}
        if "context" in header:
            updates["context"] = DELETE
        similar = header.get("similar")
        if isinstance(similar, list):
            kept = [
                s for s in similar if isinstance(s, dict) and self._visible_path(str(s.get("path")))
            ]
            if len(kept) != len(similar):
                updates["similar"] = kept or DELETE
        served = self.served
        for key, value in header.items():  # every other field, through the same rule
            if key in ("context", "similar"):
                continue
            shown = served.value(value, ref=key in REFERENCE_FIELDS)
            if shown != value:
                updates[key] = DELETE if shown is None else shown
        if not updates:
            return self.served.links_in(note, str(note.text)), ""
        try:
            data = edit_header(note, updates)
        except NoteEditError:
            return "[this note's header cannot be shown without its hidden parts]", ""
        text = self.served.links_in(note, data.decode("utf-8", "replace"))
        return text, clean(context) if isinstance(context, str) else ""

    def list_inbox(self, *, limit: int = 50) -> dict[str, Any]:
        palace = self.palace
        drafts = [d for d in palace.drafts if self.visible(d)]
        shown = sorted(drafts, key=lambda d: d.rel, reverse=True)[: result_limit(limit)]
        return {
            "count": len(drafts),
            "note": NOT_RULES,
            "drafts": [
                {
                    "path": d.rel,
                    "name": self.served.text(one_line(d.name)),
                    "type": d.type,
                    "description": self.served.text(one_line(d.description, 200)),
                }
                for d in shown
            ],
        }

    def index_name(self) -> str | None:
        """The index an agent is pointed to: the layout's own (INDEX.md for curator's,
        MEMORY.md for Claude Code's) when it exists, or curator's INDEX.md; None otherwise."""
        from curator.model.layouts import rules

        if not rules.foreign(self.config):
            return "INDEX.md"
        rel = rules.index_name(self.config)
        return rel if (self.root / rel).is_file() else None

    def index_md(self) -> str:
        """The layout's index, without the lines of notes this Memory may not show."""
        import posixpath

        rel = self.index_name()
        if rel is None:
            raise AgentRefusal("this palace's layout keeps no index; use search or recent")
        try:
            text = (self.root / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            raise AgentRefusal(f"{rel} is missing or unreadable; run 'curator index'") from None
        palace = self.palace
        folder = posixpath.dirname(rel) or "."
        hidden = {posixpath.relpath(n.rel, folder) for n in palace.notes if not self.visible(n)} | {
            n.rel for n in palace.notes if not self.visible(n)
        }
        if hidden:  # a link relative to the index's folder (MEMORY.md's)
            lines = text.splitlines(keepends=True)
            text = "".join(ln for ln in lines if not any(f"]({h})" in ln for h in hidden))
        return cap(clean(served_index(self.served, text)))

    # -- following the palace --------------------------------------------------------------------
    def recent(self, *, since: str | None = None, days: int = 7, limit: int = 20) -> dict[str, Any]:
        """Notes promoted, superseded, retired, merged (from the palace's history) or flagged
        stale (from their headers) on or after `since`, or in the last `days` days."""
        from datetime import date, timedelta

        start = _day("since", since)
        if start is None:
            if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= 3650:
                raise AgentRefusal(f"days must be a whole number within 1..3650, got {days!r}")
            start = (date.today() - timedelta(days=days)).isoformat()
        changes: list[dict[str, Any]] = []
        palace = self.palace
        for entry in self._history():
            day = entry.date.date().isoformat()
            if day < start:
                break
            change = _CHANGES.get(entry.action)
            if change is None:
                continue
            for rel in entry.notes:
                note = palace.by_rel.get(rel)
                if note is None or not self.visible(note) or note.kind != "note":
                    continue
                row = {"path": rel, "name": one_line(note.name), "change": change, "date": day}
                if entry.reason:
                    row["reason"] = self.served.text(one_line(entry.reason, 200))
                changes.append(row)
        for note in palace.notes:
            stale = note.stale if note.ok else None
            since_day = str((stale or {}).get("since") or "")[:10]
            if stale and since_day >= start and self.visible(note):
                changes.append(
                    {
                        "path": note.rel,
                        "name": one_line(note.name),
                        "change": "flagged stale",
                        "date": since_day,
                        "reason": self.served.text(one_line(str(stale.get("reason") or ""), 200)),
                    }
                )
        changes.sort(key=lambda c: c["date"], reverse=True)
        return {"since": start, "changes": changes[: result_limit(limit)]}

    def _history(self) -> list[Any]:
        from curator.writer.history import history

        try:
            return history(self.root, limit=2000)
        except CuratorError:
            return []  # not a git repository yet: no history, only headers

    def related(self, ref: str, *, depth: int = 1, limit: int = 30) -> dict[str, Any]:
        """The notes `ref` links to, links from, and its supersede chain, `depth` steps out."""
        if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= 3:
            raise AgentRefusal(f"depth must be 1, 2 or 3, got {depth!r}")
        start = self._find(ref)
        palace = self.palace
        seen = {start.rel}
        found: list[dict[str, Any]] = []
        frontier = [start]
        for step in range(1, depth + 1):
            following = []
            for note in frontier:
                for relation, other in self._neighbours(note):
                    if other.rel in seen or not self.visible(other):
                        continue
                    seen.add(other.rel)
                    following.append(other)
                    found.append(
                        {
                            "path": other.rel,
                            "name": one_line(other.name),
                            "relation": relation,
                            "depth": step,
                            "via": note.rel,
                        }
                    )
            frontier = following
        del palace
        return {"note": start.rel, "related": found[: result_limit(limit)]}

    def _neighbours(self, note: Any) -> list[tuple[str, Any]]:
        palace = self.palace
        out: list[tuple[str, Any]] = []
        for link in palace.outgoing(note):
            if link.target and link.target in palace.by_rel:
                out.append(("link", palace.by_rel[link.target]))
        for link in palace.backlinks(note):
            if link.source in palace.by_rel:
                out.append(("backlink", palace.by_rel[link.source]))
        if note.kind == "note":
            chain = palace.chain(note)
            at = next((i for i, n in enumerate(chain) if n.rel == note.rel), None)
            if at is not None:
                out += [("supersedes", n) for n in chain[:at]]
                out += [("superseded_by", n) for n in chain[at + 1 :]]
        return out

    # -- writes: drafts only ---------------------------------------------------------------------
    def capture(
        self,
        *,
        name: str,
        description: str,
        type: str,
        body: str,
        source: str | None = None,
        scope: str | None = None,
        tags: list[str] | None = None,
        context: str | None = None,
    ) -> dict[str, Any]:
        """`context`: the text the fact came from (the conversation turns around it, the file
        and lines it was read from); searched and shown beside the draft, never the fact."""
        from curator.writer.capture import IdenticalDraft, capture

        if len(body) > MAX_CAPTURE_CHARS:
            raise AgentRefusal(
                f"the body is {len(body)} characters; a memory holds at most "
                f"{MAX_CAPTURE_CHARS}: keep the fact and its evidence, link the rest"
            )
        try:
            result = capture(
                self.root,
                type=type,
                name=name,
                body=body,
                description=description,
                source=source or "agent=mcp",
                scope=scope,
                tags=tags,
                from_agent=True,
                context=context,
            )
        except IdenticalDraft as exc:  # named only when this Memory may show it
            shown = f": {exc.draft}" if self._visible_path(exc.draft) else ""
            raise AgentRefusal(
                f"an identical draft already waits for review{shown}; nothing written"
            ) from None
        except CuratorError as exc:
            raise AgentRefusal(str(exc)) from None
        self.session.changed()
        data = result.to_json()
        hidden = [s.path for s in result.similar if not self._visible_path(s.path)]
        data["similar"] = [s for s in data["similar"] if s["path"] not in hidden]
        data["warnings"] = [w for w in data["warnings"] if not any(h in w for h in hidden)]
        data["note"] = f"Wrote a draft for review. {NOT_RULES}"
        return data

    def _visible_path(self, rel: str) -> bool:
        note = self.palace.by_rel.get(rel)
        return note is not None and self.visible(note)

    def report_stale(self, *, note: str, reason: str, evidence: str = "") -> dict[str, Any]:
        """A draft saying which note is wrong and why; the note itself is never edited."""
        if not reason.strip():
            raise AgentRefusal("say why the note is wrong (reason)")
        found = self.read_note(note)
        if found["kind"] != "note":
            raise AgentRefusal(f"{found['path']} is a draft; report notes, not drafts")
        body = (
            f'The note {found["path"]} ("{found["name"]}") looks wrong or out of date.\n\n'
            f"Why: {reason.strip()}\n"
            + (f"\nEvidence:\n{evidence.strip()}\n" if evidence.strip() else "")
            + "\nA reviewer decides: mark it stale, edit it, supersede it, or reject this report."
        )
        rel = found["path"].replace(",", "_")
        data = self.capture(
            name=f"Stale: {found['name']}"[:190],
            description=f"{found['path']} may be wrong: {one_line(reason, 150)}",
            type=found["type"] or "project",
            body=body,
            source=f"agent=mcp,reports_stale={rel}",
        )
        data["warnings"] = [w for w in data["warnings"] if "consider updating" not in w]
        data["note"] = (
            f"Filed your report as a draft ({data['path']}) for a person to review; "
            f"{found['path']} is unchanged. A reviewer will mark it stale, edit it, supersede "
            "it, or reject the report. Until then, treat the note as doubtful and work from "
            "what you verified; you need not do anything more."
        )
        return data
