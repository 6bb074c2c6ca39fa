"""What an agent may do with a palace, whatever the transport (MCP tools, resources, hooks).

`Memory(root)` answers search, ask, pack, read_note, list_inbox and INDEX.md, and writes only
drafts (capture, report_stale) through `curator.writer.capture`. Every read passes the one
visibility gate of `curator.search` (`visible`); sensitive notes and scopes stay hidden unless
the Memory was made with `include_sensitive=True`. Every answer is cut to a size cap, and every
refusal is an `AgentRefusal` (a sentence the agent can act on), never a traceback.

The palace is reloaded only when a watcher saw notes/, inbox/ or palace.toml change, so a warm
call costs one query, not a palace load.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator.config import Config, load_config
from curator.errors import CuratorError
from curator.model.discovery import palace_changed
from curator.model.note import DRAFT_BANNER
from curator.model.palace import Palace
from curator.model.text import clean, one_line

if TYPE_CHECKING:
    from curator.search import Searcher

__all__ = ["MAX_ANSWER_CHARS", "MAX_CAPTURE_CHARS", "AgentRefusal", "Memory"]

MAX_ANSWER_CHARS = 24_000  # any one answer (a model's context is precious)
MAX_NOTE_CHARS = 20_000  # read_note's text beyond this is cut, and the answer says so
MAX_CAPTURE_CHARS = 16_000  # a memory longer than this is a document, not a memory
MAX_LIMIT = 50
MAX_QUERY_CHARS = 4_000
NOT_RULES = "Drafts are NOT rules until a person promotes them."


class AgentRefusal(CuratorError):
    """A request an agent made that is refused as asked; the message says what to change."""


def cap(text: str, limit: int = MAX_ANSWER_CHARS) -> str:
    """`text` cut to `limit` characters at a line end, saying that it was cut."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 80]
    cut = cut[: cut.rfind("\n")] if "\n" in cut else cut
    return f"{cut}\n\n[cut at {limit} characters: ask for fewer results]"


def _limit(value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise AgentRefusal(f"limit must be a whole number of at least 1, got {value!r}")
    return min(value, MAX_LIMIT)


def _text_arg(label: str, value: str) -> None:
    if not value.strip():
        raise AgentRefusal(f"empty {label}: say what to look for in a few words")
    if len(value) > MAX_QUERY_CHARS:
        raise AgentRefusal(
            f"the {label} is {len(value)} characters; keep it under {MAX_QUERY_CHARS} "
            "(the key words are enough)"
        )


@dataclass
class _Loaded:
    palace: Palace
    searcher: Searcher | None = None


class Memory:
    """One palace as agents see it. Thread-safe; the MCP server holds one for its lifetime."""

    def __init__(self, root: Path, *, include_sensitive: bool = False, watch: bool = False):
        self.root = Path(root).resolve()
        self.include_sensitive = include_sensitive
        self._lock = threading.RLock()
        self._loaded: _Loaded | None = None
        self._config: Config | None = None
        self._dirty = threading.Event()
        self._stop = threading.Event()
        if watch:
            threading.Thread(target=self._watch, name="curator-watch", daemon=True).start()

    # -- the palace and its index, reloaded when the files change ------------------------------
    def _watch(self) -> None:
        try:
            from watchfiles import watch
        except ImportError:  # pragma: no cover - a dependency; without it, reload every call
            while not self._stop.wait(2.0):
                self._dirty.set()
            return
        root = str(self.root)
        for changes in watch(root, stop_event=self._stop, recursive=True, debounce=50):
            if any(self._relevant(p) for _, p in changes):
                self._dirty.set()

    def _relevant(self, path: str) -> bool:
        return palace_changed(self.root, path)

    def close(self) -> None:
        self._stop.set()

    @property
    def config(self) -> Config:
        """palace.toml as loaded with the palace, or read on its own before that (cheap)."""
        loaded = self._loaded
        if loaded is not None:
            return loaded.palace.config
        if self._config is None:
            self._config = load_config(self.root)
        return self._config

    @property
    def palace(self) -> Palace:
        loaded = self._loaded
        if loaded is not None and not self._dirty.is_set():
            return loaded.palace  # no lock: the index may be opening under it
        with self._lock:
            if self._loaded is None or self._dirty.is_set():
                self._dirty.clear()
                self._loaded = _Loaded(Palace.open(self.root))
            return self._loaded.palace

    @property
    def searcher(self) -> Searcher:
        with self._lock:
            palace = self.palace
            assert self._loaded is not None
            if self._loaded.searcher is None:
                from curator.search import Searcher

                self._loaded.searcher = Searcher(palace)
            return self._loaded.searcher

    def visible(self, item: Any) -> bool:
        from curator.search import visible

        return visible(self.palace, item, include_sensitive=self.include_sensitive)

    # -- reads -----------------------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        types: list[str] | None = None,
        scope: list[str] | None = None,
        status: list[str] | None = None,
        stale: bool | None = None,
        min_confidence: float | None = None,
        drafts: bool = False,
        limit: int = 10,
    ) -> dict[str, Any]:
        _text_arg("query", query)
        with self._lock:
            hits = self.searcher.search(
                query,
                types=types or None,
                scope=scope or None,
                status=status or None,
                stale=stale,
                min_confidence=min_confidence,
                drafts=drafts,
                limit=_limit(limit),
                include_sensitive=self.include_sensitive,
            )
        keys = ("path", "name", "type", "score", "snippet", "status", "scope", "stale", "kind")
        results = []
        for h in hits:
            data = h.to_json()
            row = {k: data[k] for k in keys}
            if h.successor:
                row["superseded_by"] = h.successor
            results.append(row)
        return {"query": query, "results": results}

    def ask(self, question: str, *, limit: int = 8) -> dict[str, Any]:
        _text_arg("question", question)
        with self._lock:
            answer = self.searcher.ask(
                question, limit=_limit(limit), include_sensitive=self.include_sensitive
            )
        sources = []
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
                    "replaces_superseded": list(s.superseded_from),
                    "snippet": s.snippet,
                }
            )
        return {"question": question, "sources": sources}

    def pack(self, goal: str, *, budget: int = 2000, floor: float = 0.7) -> str:
        _text_arg("goal", goal)
        with self._lock:
            return self.searcher.pack(
                goal, budget=budget, floor=floor, include_sensitive=self.include_sensitive
            )

    def read_note(self, ref: str) -> dict[str, Any]:
        """A note or draft by slug, name or path inside the palace; nothing outside it."""
        if not ref.strip() or "\x00" in ref:
            raise AgentRefusal("give a note's slug, name or path")
        palace = self.palace
        try:
            note = palace.find(ref, among=self.visible)
        except CuratorError as exc:
            raise AgentRefusal(
                f"{exc.message}; paths outside notes/ and inbox/ are refused"
            ) from None
        text = clean(self._shown_text(note))
        cut = len(text) > MAX_NOTE_CHARS
        return {
            "path": note.rel,
            "kind": note.kind,
            "name": one_line(note.name),
            "type": note.type,
            "status": note.status,
            "flags": palace.flags(note) if note.ok else ["broken"],
            "text": cap(text, MAX_NOTE_CHARS),
            "truncated": cut,
        }

    def _shown_text(self, note: Any) -> str:
        """A draft's text without the `similar:` entries naming notes this Memory hides (the
        capture that wrote it listed every similar note, sensitive or not)."""
        similar = note.header.get("similar") if note.ok else None
        if not isinstance(similar, list):
            return str(note.text)
        kept = [
            s for s in similar if isinstance(s, dict) and self._visible_path(str(s.get("path")))
        ]
        if len(kept) == len(similar):
            return str(note.text)
        from curator.model.note import DELETE, NoteEditError, edit_header

        try:
            data = edit_header(note, {"similar": kept or DELETE})
        except NoteEditError:
            return "[this draft names hidden notes and cannot be shown]"
        return data.decode("utf-8", "replace")

    def list_inbox(self, *, limit: int = 50) -> dict[str, Any]:
        palace = self.palace
        drafts = [d for d in palace.drafts if self.visible(d)]
        shown = sorted(drafts, key=lambda d: d.rel, reverse=True)[: _limit(limit)]
        return {
            "count": len(drafts),
            "note": NOT_RULES,
            "drafts": [
                {
                    "path": d.rel,
                    "name": one_line(d.name),
                    "type": d.type,
                    "description": one_line(d.description, 200),
                }
                for d in shown
            ],
        }

    def index_md(self) -> str:
        """INDEX.md, without the lines of notes this Memory may not show."""
        path = self.root / "INDEX.md"
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            raise AgentRefusal("INDEX.md is missing or unreadable; run 'curator index'") from None
        palace = self.palace
        hidden = {n.rel for n in palace.notes if not self.visible(n)}
        if hidden:
            lines = text.splitlines(keepends=True)
            text = "".join(ln for ln in lines if not any(f"]({rel})" in ln for rel in hidden))
        return cap(clean(text))

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
    ) -> dict[str, Any]:
        from curator.writer.capture import capture

        if len(body) > MAX_CAPTURE_CHARS:
            raise AgentRefusal(
                f"the body is {len(body)} characters; a memory holds at most "
                f"{MAX_CAPTURE_CHARS}: keep the fact and its evidence, link the rest"
            )
        self._refuse_secrets(name, description, body, source)
        self._refuse_exact_draft(name, body)
        with self._lock:
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
                )
            except CuratorError as exc:
                raise AgentRefusal(str(exc)) from None
            self._dirty.set()
        data = result.to_json()
        hidden = [s.path for s in result.similar if not self._visible_path(s.path)]
        data["similar"] = [s for s in data["similar"] if s["path"] not in hidden]
        data["warnings"] = [w for w in data["warnings"] if not any(h in w for h in hidden)]
        data["note"] = f"Wrote a draft for review. {NOT_RULES}"
        return data

    @staticmethod
    def _refuse_secrets(name: str, description: str, body: str, source: str | None) -> None:
        """An agent's capture holding a secret is refused (a person's `curator capture` only
        flags it): the agent can take it out and capture again, and nothing is written."""
        from curator.writer.secrets import scan

        found = [(f"body line {h.line}", h.kind) for h in scan(body)]
        for label, text in (("name", name), ("description", description), ("source", source)):
            found += [(label, h.kind) for h in scan(text or "")]
        if found:
            where = ", ".join(f"{kind} in the {place}" for place, kind in found[:5])
            raise AgentRefusal(
                f"the memory looks like it holds a secret ({where}); nothing was written: "
                "remove the secret (name where it is kept instead) and capture again"
            )

    def _visible_path(self, rel: str) -> bool:
        note = self.palace.by_rel.get(rel)
        return note is not None and self.visible(note)

    def _refuse_exact_draft(self, name: str, body: str) -> None:
        """An exact duplicate of an existing draft (same name and body) is refused by path."""
        want = (one_line(name).casefold(), body.strip())
        for draft in self.palace.drafts:
            if not draft.ok or one_line(draft.name).casefold() != want[0]:
                continue
            text = draft.body.replace(DRAFT_BANNER, "", 1).strip()
            if text == want[1]:
                where = f": {draft.rel}" if self.visible(draft) else ""
                raise AgentRefusal(
                    f"an identical draft already waits for review{where}; nothing written"
                )

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
        return self.capture(
            name=f"Stale: {found['name']}"[:190],
            description=f"{found['path']} may be wrong: {one_line(reason, 150)}",
            type=found["type"] or "project",
            body=body,
            source=f"agent=mcp,reports_stale={rel}",
        )
