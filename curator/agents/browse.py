"""The read-only tools that let an agent look around the palace the way basic-memory's do
(issue 32): `list_directory` (folders with counts, and the notes in one), `build_context` (a
note and the notes linked to it, to a depth, within a timeframe, cut to pack's token budget)
and `diagnostics` (index state, palace counts, a summary of `curator check`).

Every one goes through the Memory's gate: a note it hides is never named, and a folder that
holds only hidden notes is not listed; what is counted and hidden is a number, never a name.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from curator.agents.service import AgentRefusal, result_limit
from curator.model.text import one_line
from curator.search.pack import pack_defaults, tokens
from curator.tasks.settings import duration

if TYPE_CHECKING:
    from curator.agents.service import Memory

__all__ = ["Browser", "note_ref"]

URI_PREFIX = "curator://notes/"  # the note resource's URI (agents/mcp.NOTE_URI)


def _folder(rel: str) -> str:
    return posixpath.dirname(rel)


def note_ref(uri: str) -> str:
    """The note a `curator://notes/PATH` URI (or a bare path, slug or name) names."""
    ref = uri.strip()
    if ref.startswith("curator://"):
        if not ref.startswith(URI_PREFIX) or len(ref) == len(URI_PREFIX):
            raise AgentRefusal(f"give a note's URI, {URI_PREFIX}PATH, got {uri!r}")
        ref = ref[len(URI_PREFIX) :]
    return ref


def _since(timeframe: str | None) -> str | None:
    """The first day a `timeframe` ("7d", "12h", "30d") reaches back to; None: no limit."""
    if timeframe is None or not timeframe.strip():
        return None
    seconds = duration(timeframe)
    if seconds is None or seconds <= 0:
        raise AgentRefusal(
            f"timeframe must be a number and a unit (s, m, h or d), such as 7d, got {timeframe!r}"
        )
    return (datetime.now(UTC) - timedelta(seconds=seconds)).date().isoformat()


def _cut(text: str, budget: int) -> str:
    """``text`` cut to about ``budget`` tokens, at a line's end where there is one."""
    kept = text[: budget * 4]
    return kept[: kept.rfind("\n") + 1] if "\n" in kept else kept


class Browser:
    """The three tools over one Memory (its gate, its palace as last loaded)."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory

    def list_directory(self, folder: str = "", depth: int = 1, limit: int = 50) -> dict[str, Any]:
        """The folders under ``folder`` (to ``depth`` levels) with how many visible notes and drafts
        each holds, and the visible notes directly in ``folder``."""
        if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= 5:
            raise AgentRefusal(f"depth must be a whole number within 1..5, got {depth!r}")
        top = folder.strip().strip("/")
        if ".." in top.split("/") or "\x00" in top:
            raise AgentRefusal(
                f"folder must be a palace folder such as notes/project, got {folder!r}"
            )
        palace = self.memory.palace
        items = [n for n in (*palace.notes, *palace.drafts) if self.memory.visible(n)]
        prefix = f"{top}/" if top else ""
        inside = [n for n in items if n.rel.startswith(prefix)]
        if top and not inside:
            raise AgentRefusal(f"no folder {top!r} with notes you may read (list_directory with no "
                               "folder lists them)")  # fmt: skip
        counts: Counter[str] = Counter()
        for note in inside:
            parts = _folder(note.rel[len(prefix) :]).split("/")
            for level in range(1, min(depth, len(parts)) + 1):
                if parts[0]:
                    counts[prefix + "/".join(parts[:level])] += 1
        here = sorted((n for n in inside if _folder(n.rel) == top), key=lambda n: n.rel)
        shown = here[: result_limit(limit)]
        return {
            "folder": top,
            "folders": [{"path": p, "count": c} for p, c in sorted(counts.items())],
            "notes": [
                {
                    "path": n.rel,
                    "name": self.memory.served.text(one_line(n.name)),
                    "kind": n.kind,
                    "type": n.type,
                }
                for n in shown
            ],
            "total": len(here),
        }

    def build_context(
        self,
        uri: str,
        depth: int = 1,
        timeframe: str | None = None,
        budget: int | None = None,
        limit: int = 30,
    ) -> dict[str, Any]:
        """The note ``uri`` names and its neighbours (`related`: links, backlinks, the supersede
        chain) to ``depth``, the neighbours last reviewed or created within ``timeframe``; texts
        as read_note serves them, whole, nearest first, while they fit pack's token budget."""
        answer = self.memory.related(note_ref(uri), depth=depth, limit=result_limit(limit))
        start = _since(timeframe)
        budget = pack_defaults(self.memory.palace, budget, None)[0]
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
            raise AgentRefusal(f"budget must be a positive whole number of tokens, got {budget!r}")
        palace = self.memory.palace
        note = self.memory.read_note(answer["note"])
        text = note["text"]
        truncated = tokens(text) > budget
        if truncated:
            text = _cut(text, budget)
        used = tokens(text)
        related: list[dict[str, Any]] = []
        left_out, outside = [], 0
        for item in answer["related"]:
            other = palace.by_rel[item["path"]]
            day = other.reviewed or other.created
            if start is not None and (not day or day < start):
                outside += 1
                continue
            body = self.memory.read_note(other.rel)["text"]
            if used + tokens(body) > budget:
                left_out.append(other.rel)
                continue
            used += tokens(body)
            related.append({**item, "date": day, "text": body})
        return {
            "uri": URI_PREFIX + note["path"],
            "note": {"path": note["path"], "name": note["name"], "text": text,
                     "truncated": truncated},
            "related": related,
            "left_out": left_out,
            "outside_timeframe": outside,
            "since": start or "",
            "budget": budget,
            "tokens": used,
        }  # fmt: skip

    def diagnostics(self) -> dict[str, Any]:
        """How the palace and its search index stand, as counts: notes and drafts an agent may
        read (and how many it may not), rooms, the index's state.json, and `curator check`'s
        findings by severity and rule. Names nothing: a finding's file may be a hidden note."""
        from curator.health import palace_findings

        palace = self.memory.palace
        notes = [n for n in palace.notes if self.memory.visible(n)]
        drafts = [d for d in palace.drafts if self.memory.visible(d)]
        hidden = len(palace.notes) + len(palace.drafts) - len(notes) - len(drafts)
        rooms = [r for r in palace.rooms() if any(self.memory.visible(n) for n in r.notes)]
        findings = palace_findings(palace)
        return {
            "palace": {
                "notes": len(notes),
                "drafts": len(drafts),
                "hidden": hidden,
                "rooms": len(rooms),
                "unreadable": sum(1 for n in palace.notes if not n.ok),
            },
            "index": _index_state(self.memory),
            "check": {
                "findings": len(findings),
                "by_severity": dict(Counter(f.severity for f in findings)),
                "by_rule": dict(Counter(f.code for f in findings)),
            },
        }


def _index_state(memory: Memory) -> dict[str, Any]:
    """state.json as the last sync or build left it, and whether it is at the palace's HEAD."""
    from curator.search.index import head_commit, index_dir
    from curator.search.state import STATE_FILE, IndexState

    path = index_dir(memory.root) / STATE_FILE
    try:
        state = IndexState.from_json(path.read_bytes())
    except FileNotFoundError:
        return {"state": "not built", "note": "run `curator index` (search falls back to the "
                "palace's own text meanwhile)"}  # fmt: skip
    except (OSError, ValueError) as exc:
        return {"state": "unreadable", "note": f"{STATE_FILE}: {exc}; run `curator index`"}
    head = head_commit(memory.root)
    return {
        "state": "built",
        "embedder": state.embedder,
        "documents": state.doc_count,
        "updated": state.updated,
        "at_head": head is not None and state.commit == head,
    }
