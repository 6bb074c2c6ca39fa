"""`Searcher`: search and ask over one palace's index (pack and dupes live beside it).

    s = Searcher(Palace.open(path))          # opens .curator/index and syncs it incrementally
    s = Searcher(palace, index=store)        # over a store the caller holds open
    s.search("stripe webhooks", types=["feedback"], limit=10)  -> list[Hit]
    s.ask("how do we deploy?")                                 -> Answer (sources by authority)
    s.pack("fix the invoice pdf worker")     -> str (markdown; [agents] budget and floor)
    s.dupes("inbox/2026-11-24-x.md")                           -> list[Candidate]

Search scores superseded and retired notes down (each hit names its successor). Every result
passes the request's `Filter`, applied where each candidate is found (LanceDB's queries by its
SQL, names read from the palace by its per-row check): sensitive notes and notes in sensitive
scopes appear only with `include_sensitive=True`.
"""

from __future__ import annotations

from dataclasses import InitVar, dataclass, field, replace
from typing import Any, Literal, overload

from curator.model.palace import Palace
from curator.model.served import Served
from curator.model.text import one_line
from curator.search.candidates import Candidates, IndexCandidates
from curator.search.filters import (
    REPLACED_STATUSES,
    Filter,
    SearchError,
    check_limit,
    not_current_row,
    served_body,
    visible,
)
from curator.search.index import doc_row, open_index, sync_index
from curator.search.ranking import Ranker, Rows, Scored, relevant
from curator.search.request import SearchRequest
from curator.search.store import EmptyIndexRefused, IndexStore, SyncStats
from curator.search.text import make_snippet, phrasings
from curator.search.values import Answer, Candidate, DraftGroup, DupePair, Hit, Source

# How many rows each ranking contributes before fusion (per requested result).
CANDIDATES_PER_RESULT = 3
MIN_CANDIDATES = 30
STALE_PENALTY = 0.5
SUPERSEDED_PENALTY = 0.25  # search lists a replaced note below the notes that are current


@dataclass
class Searcher(Ranker):
    """Queries over one palace's index (`index`, when the caller holds it open, as a
    `curator.session.Session` does; construction syncs it, incrementally), or over another
    candidate source (`over`: see `over_palace`), which opens nothing."""

    sync: bool = True
    index: InitVar[IndexStore | None] = None  # the caller's open store (else one is opened)
    over: InitVar[Candidates | None] = None  # another source of candidates than the index
    sync_stats: SyncStats | None = field(init=False, default=None)

    def __post_init__(self, index: IndexStore | None, over: Candidates | None) -> None:
        if over is not None:
            self.source = over
            return
        store = index if index is not None else open_index(self.palace)
        self.source = IndexCandidates(store)
        if self.sync or not store.ready:
            try:
                self.sync_stats = sync_index(self.palace, store=store)
            except EmptyIndexRefused as exc:
                broken = sum(1 for n in self.palace.all() if not n.ok)
                raise SearchError(
                    f"{exc}. {broken} notes or drafts failed to parse; run 'curator check'"
                ) from None

    @classmethod
    def over_palace(cls, palace: Palace) -> Searcher:
        """A searcher over the parsed palace alone (`curator.search.lexical`): the same
        ranking without the vector part, never opening LanceDB or the embedder."""
        from curator.search.lexical import PalaceCandidates

        return cls(palace, sync=False, over=PalaceCandidates(palace))

    @property
    def indexed(self) -> bool:
        """Whether the candidates come from the index (not the palace alone)."""
        return self.source.store is not None

    @property
    def store(self) -> IndexStore:
        """The index store this searcher reads."""
        store = self.source.store
        if store is None:
            raise SearchError("this answer reads the palace alone; the search index is not open")
        return store

    @property
    def recovered(self) -> list[str]:
        """Index folders moved aside as corrupt while opening (already rebuilt)."""
        return [str(p) for p in self.store.recovered]

    # ---- search

    def search(self, query: str, *, limit: int = 10, **filters: Any) -> list[Hit]:
        """`run` of the request these keywords describe (`SearchRequest.of`)."""
        return self.run(SearchRequest.of(self.palace, query, limit=limit, **filters))

    def run(self, request: SearchRequest) -> list[Hit]:
        """Hybrid search: BM25 + vectors fused by rank, plus fuzzy names for short queries;
        every candidate source applies the request's filter where it finds them."""
        flt, limit, query = request.filter, request.limit, request.text
        if limit == 0:
            return []
        n = max(limit * CANDIDATES_PER_RESULT, MIN_CANDIDATES)
        scored, rows = self.fused(query, flt, n, fuzzy=True)
        hits = []
        for path, score in superseded_down(scored, rows)[:limit]:
            hits.append(self._hit(rows[path], score, query, flt))
        return hits

    def _hit(self, row: dict[str, Any], score: float, query: str, flt: Filter) -> Hit:
        snippet, spans = make_snippet(
            served_body(self.palace, row, flt.include_sensitive),
            str(row.get("description") or ""),
            query,
        )
        successor = None
        if row.get("status") in REPLACED_STATUSES:
            note = self.palace.by_rel.get(str(row["path"]))
            nxt = self.palace.successor(note) if note is not None else None
            # named only when the caller may see it (the gate, as ask does)
            shown = nxt is not None and visible(
                self.palace, nxt, include_sensitive=flt.include_sensitive
            )
            successor = nxt.rel if nxt is not None and shown else None
        why = not_current_row(self.palace, row) if row.get("kind") != "draft" else None
        return Hit(
            path=str(row["path"]),
            name=one_line(str(row.get("name") or "")),
            type=str(row.get("type") or ""),
            score=round(float(score), 6),
            snippet=snippet,
            spans=spans,
            kind=str(row.get("kind") or "note"),
            status=str(row.get("status") or ""),
            scope=str(row.get("scope") or ""),
            stale=bool(row.get("stale")) or why is not None,
            stale_reason=Served.of(self.palace, flt.include_sensitive).text(
                one_line(str(row.get("stale_reason") or "") or (why or ""))
            ),
            confidence=row.get("confidence"),
            description=one_line(str(row.get("description") or "")),
            created=str(row.get("created") or ""),
            reviewed=str(row.get("reviewed") or ""),
            sensitive=bool(row.get("sensitive")),
            successor=successor,
        )

    # ---- ask

    def ask(self, question: str, *, limit: int = 8, include_sensitive: bool = False) -> Answer:
        """Sources for a question in order of authority: palace.toml authority order, stale
        notes flagged and ranked down, superseded notes replaced by their successor, drafts
        last and labelled unreviewed."""
        flt = Filter.of(self.palace, drafts=True, include_sensitive=include_sensitive)
        check_limit(limit)
        if limit == 0:
            return Answer(question, tuple(phrasings(question)), ())
        n = max(limit * CANDIDATES_PER_RESULT, MIN_CANDIDATES)
        scored, rows = self.fused(question, flt, n, fuzzy=False)
        chosen: dict[str, Source] = {}
        for path, score in relevant(scored):
            found = self._standing_in(path, rows[path], flt)
            if found is None:
                continue
            rel, row, superseded_from = found
            adjusted = score * (STALE_PENALTY if row.get("stale") else 1.0)
            prev = chosen.get(rel)
            if prev is not None:
                merged = tuple(sorted({*prev.superseded_from, *superseded_from}))
                chosen[rel] = replace(
                    prev, score=round(max(prev.score, adjusted), 6), superseded_from=merged
                )
            elif len(chosen) < limit:
                chosen[rel] = self._source(
                    row, adjusted, question, superseded_from, flt.include_sensitive
                )
        ordered = sorted(
            chosen.values(), key=lambda s: (s.draft, s.authority_rank, s.stale, -s.score, s.path)
        )
        return Answer(question, tuple(phrasings(question)), tuple(ordered))

    def _standing_in(
        self, path: str, row: dict[str, Any], flt: Filter
    ) -> tuple[str, dict[str, Any], tuple[str, ...]] | None:
        """(path, row, superseded paths) of the note that answers for `row`: itself, or for a
        superseded or retired note its visible successor (None when it has none)."""
        if row.get("status") not in REPLACED_STATUSES:
            return path, row, ()
        note = self.palace.by_rel.get(path)
        nxt = self.palace.successor(note) if note is not None else None
        if nxt is None or not visible(self.palace, nxt, include_sensitive=flt.include_sensitive):
            return None  # never returned as itself
        return nxt.rel, doc_row(self.palace, nxt), (path,)

    def _source(
        self,
        row: dict[str, Any],
        score: float,
        question: str,
        superseded_from: tuple[str, ...],
        include_sensitive: bool = False,
    ) -> Source:
        authority = {t: i for i, t in enumerate(self.palace.config.authority)}
        draft = row.get("kind") == "draft"
        why = None if draft else not_current_row(self.palace, row)
        stale = bool(row.get("stale")) or why is not None
        snippet, spans = make_snippet(
            served_body(self.palace, row, include_sensitive),
            str(row.get("description") or ""),
            question,
        )
        reason = Served.of(self.palace, include_sensitive).text(
            one_line(str(row.get("stale_reason") or "") or (why or "").removeprefix("stale: "))
        )
        label = "unreviewed draft" if draft else ("stale" if stale else "")
        if stale and reason and not draft:
            label = f"stale: {reason}"
        last = len(authority)
        return Source(
            path=str(row["path"]),
            name=one_line(str(row.get("name") or "")),
            type=str(row.get("type") or ""),
            authority_rank=last + 1 if draft else authority.get(str(row.get("type")), last),
            score=round(score, 6),
            snippet=snippet,
            spans=spans,
            stale=stale,
            stale_reason=reason,
            superseded_from=superseded_from,
            draft=draft,
            label=label,
            scope=str(row.get("scope") or ""),
            sensitive=bool(row.get("sensitive")),
            confidence=row.get("confidence"),
            reviewed=str(row.get("reviewed") or row.get("created") or ""),
        )

    # ---- pack and dupes (see curator.search.pack and curator.search.dupes)

    def pack(
        self,
        goal: str,
        *,
        budget: int | None = None,
        floor: float | None = None,
        include_sensitive: bool = False,
        candidates: int = 30,
        matched: bool = False,
    ) -> str:
        from curator.search.pack import pack

        return pack(
            self,
            goal,
            budget=budget,
            floor=floor,
            include_sensitive=include_sensitive,
            candidates=candidates,
            matched=matched,
        )

    @overload
    def dupes(
        self,
        ref: str | None = None,
        *,
        text: str | None = None,
        all: Literal[False] = False,
        limit: int = 5,
        include_sensitive: bool = False,
    ) -> list[Candidate]: ...

    @overload
    def dupes(
        self,
        ref: None = None,
        *,
        text: None = None,
        all: Literal[True],
        limit: int = 5,
        include_sensitive: bool = False,
    ) -> list[DupePair]: ...

    def dupes(
        self,
        ref: str | None = None,
        *,
        text: str | None = None,
        all: bool = False,
        limit: int = 5,
        include_sensitive: bool = False,
    ) -> list[Candidate] | list[DupePair]:
        from curator.search.dupes import dupes

        return dupes(
            self, ref, text=text, all=all, limit=limit, include_sensitive=include_sensitive
        )

    def draft_groups(self, *, include_sensitive: bool = False) -> list[DraftGroup]:
        """The drafts grouped by near-duplicate and by the note they are most like."""
        from curator.search.dupes import draft_groups

        return draft_groups(self, include_sensitive=include_sensitive)


def superseded_down(scored: Scored, rows: Rows) -> Scored:
    """Superseded and retired notes scored down (not dropped: search shows history too, each
    hit pointing at its successor), so the current note on a subject leads its old versions."""
    out = [
        (p, s * SUPERSEDED_PENALTY if rows[p].get("status") in REPLACED_STATUSES else s)
        for p, s in scored
    ]
    out.sort(key=lambda kv: (-kv[1], kv[0]))
    return out


__all__ = ["Searcher", "relevant", "superseded_down"]
