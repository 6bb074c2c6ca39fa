"""`dupes`: ranked near-duplicate candidates, never merged.

Candidates are the vector neighbours of a note, a draft or a text about to be captured (the
vectors read the whole text, body included); each is confirmed by the one near-duplicate rule
capture also uses (`curator.model.similar.score`, over names and descriptions), and scored half
by vector similarity, half by that rule.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from curator.model.similar import THRESHOLD, Key, key, score, score_keys
from curator.model.text import one_line
from curator.search.docs import make_text
from curator.search.filters import REPLACED_STATUSES, Filter, SearchError, check_limit, visible
from curator.search.ranking import Ranker
from curator.search.store import IndexStore
from curator.search.values import Candidate, DraftGroup, DupePair

PAIR_BLOCK = 1024  # rows per block of the all-pairs similarity product
PAIR_NEIGHBOURS = 3  # nearest neighbours of each row considered for --all
GROUP_NEIGHBOURS = 8  # nearest neighbours of each draft confirmed by the rule when grouping


def dupes(
    searcher: Ranker,
    ref: str | None = None,
    *,
    text: str | None = None,
    all: bool = False,
    limit: int = 5,
    include_sensitive: bool = False,
) -> list[Any]:
    """Of a note or draft (`ref`), of a text about to be captured (`text`: its first line is
    taken as the name, the rest as the description), or the likeliest pairs in the whole
    palace (`all=True`)."""
    check_limit(limit)
    flt = Filter.of(
        searcher.palace,
        drafts=True,
        include_sensitive=include_sensitive,
        exclude_status=list(REPLACED_STATUSES),
    )
    if all:
        if ref is not None or text is not None:
            raise SearchError("dupes --all takes no note")
        return dupe_pairs(searcher, flt, limit)
    if (ref is None) == (text is None):
        raise SearchError("dupes needs exactly one of a note, a text or --all")
    exclude = ""
    if ref is not None:
        note = searcher.palace.find(ref)
        if not visible(searcher.palace, note, include_sensitive=include_sensitive):
            raise SearchError(
                f"{note.rel} is sensitive; pass --include-sensitive to look for its dupes"
            )
        name, description, body = note.name, note.description, note.body
        text = make_text(note.name, note.description, note.tags, note.body)
        exclude = note.rel
    else:
        assert text is not None
        name, _, description = text.strip().partition("\n")
        body = text
    store = _store(searcher)
    vec = store.embed_query(text)
    rows = store.vector(vec, limit=limit * 4 + 8, where=flt.sql())
    out = [
        _candidate(row, _rule(name, description, body, row))
        for row in rows
        if row["path"] != exclude
    ]
    out.sort(key=lambda c: (-c.score, c.path))
    return out[:limit]


def _candidate(row: dict[str, Any], fz: float) -> Candidate:
    sim = max(0.0, float(row["similarity"]))
    return Candidate(
        path=str(row["path"]),
        name=one_line(str(row.get("name") or "")),
        score=round(0.5 * sim + 0.5 * fz, 6),
        vector_sim=round(sim, 6),
        fuzz=round(fz, 6),
        kind=str(row.get("kind") or ""),
        type=str(row.get("type") or ""),
        status=str(row.get("status") or ""),
        scope=str(row.get("scope") or ""),
        sensitive=bool(row.get("sensitive")),
    )


def _store(searcher: Ranker) -> IndexStore:
    """The index a dupes search reads (its vectors): the palace alone has none."""
    store = searcher.source.store
    if store is None:
        raise SearchError("looking for duplicates needs the search index, which is not open")
    return store


def dupe_pairs(searcher: Ranker, flt: Filter, limit: int) -> list[DupePair]:
    """The likeliest near-duplicate pairs in the palace, best first (never merged)."""
    rows = _store(searcher).all_rows(where=flt.sql())
    if len(rows) < 2:
        return []
    mat = np.asarray([r["vector"] for r in rows], dtype=np.float32)
    out = []
    for (a, b), sim in _nearest_pairs(mat)[: max(limit * 4, 20)]:
        ra, rb = rows[a], rows[b]
        fz = _rule(
            str(ra.get("name") or ""),
            str(ra.get("description") or ""),
            str(ra.get("body") or ""),
            rb,
        )
        sim = max(0.0, sim)
        out.append(
            DupePair(
                a=str(ra["path"]),
                b=str(rb["path"]),
                a_name=one_line(str(ra.get("name") or "")),
                b_name=one_line(str(rb.get("name") or "")),
                score=round(0.5 * sim + 0.5 * fz, 6),
                vector_sim=round(sim, 6),
                fuzz=round(fz, 6),
            )
        )
    out.sort(key=lambda p: (-p.score, p.a, p.b))
    return out[:limit]


def draft_groups(searcher: Ranker, *, include_sensitive: bool = False) -> list[DraftGroup]:
    """Every draft of the palace in a group: drafts are joined when one is among the other's
    nearest vector neighbours and the one near-duplicate rule (`_rule`, capture's) confirms it,
    as `dupes` finds a draft's candidates; a group's note (`into`) is the current note the rule
    finds its drafts most like. Two drafts already in one group are not scored again. Within a
    group the draft closest to the others comes first (then the longer one); the biggest groups
    come first. A draft the index does not hold yet (or hides) is a group of one."""
    palace = searcher.palace
    flt = Filter.of(
        palace,
        drafts=True,
        include_sensitive=include_sensitive,
        exclude_status=list(REPLACED_STATUSES),
    )
    # what the rule reads and the group names: the other columns cost a read of every row
    columns = ("path", "kind", "name", "description", "body")
    rows = _store(searcher).all_rows(where=flt.sql(), columns=(*columns, "vector"))
    present = {d.rel for d in palace.drafts}
    drafts = [i for i, r in enumerate(rows) if r.get("kind") == "draft" and r["path"] in present]
    grouping = _Grouping(rows, {rows[i]["path"] for i in drafts})
    if drafts:
        mat = np.asarray([r["vector"] for r in rows], dtype=np.float32)
        k = min(GROUP_NEIGHBOURS, len(rows) - 1)
        seen: set[tuple[int, int]] = set()
        for start in range(0, len(drafts), PAIR_BLOCK):
            block = drafts[start : start + PAIR_BLOCK]
            sims = mat[block] @ mat.T
            sims[np.arange(len(block)), block] = -2.0  # not its own neighbour
            top = np.argpartition(-sims, k - 1, axis=1)[:, :k] if k > 0 else sims[:, :0]
            for at, i in enumerate(block):
                for j in (int(j) for j in top[at]):
                    pair = (min(i, j), max(i, j))
                    if pair not in seen:
                        seen.add(pair)
                        grouping.join(i, j, float(sims[at, j]))
    groups: dict[str, list[str]] = {}
    for rel in sorted(present):
        groups.setdefault(grouping.root(rel) if rel in grouping.parent else rel, []).append(rel)
    length = {rows[i]["path"]: len(str(rows[i].get("body") or "")) for i in drafts}
    out = []
    for members in groups.values():
        members.sort(key=lambda rel: (-grouping.close.get(rel, 0.0), -length.get(rel, 0), rel))
        best = max((grouping.into[m] for m in members if m in grouping.into), default=None)
        note = best[1] if best else ""
        name = palace.by_rel[note].name if note in palace.by_rel else ""
        out.append(DraftGroup(tuple(members), note, one_line(name)))
    out.sort(key=lambda g: (-len(g.drafts), g.drafts[0]))
    return out


class _Grouping:
    """Drafts joined by root (union-find), each draft's most alike note, how close each draft
    is to its group (the vector similarity of its neighbours that joined it)."""

    def __init__(self, rows: list[dict[str, Any]], drafts: set[str]) -> None:
        self.rows = rows
        self.parent = {rel: rel for rel in drafts}
        self.close: dict[str, float] = dict.fromkeys(drafts, 0.0)
        self.into: dict[str, tuple[float, str]] = {}  # draft -> its best (score, note)
        self._keys: dict[int, Key] = {}

    def key(self, i: int) -> Key:
        if i not in self._keys:
            row = self.rows[i]
            self._keys[i] = key(*(str(row.get(k) or "") for k in ("name", "description", "body")))
        return self._keys[i]

    def root(self, rel: str) -> str:
        parent = self.parent
        while parent[rel] != rel:
            parent[rel] = parent[parent[rel]]
            rel = parent[rel]
        return rel

    def join(self, i: int, j: int, similarity: float) -> None:
        """Confirm the neighbours i (a draft) and j by the rule: two drafts join one group, a
        note becomes the draft's note when it is the most alike so far."""
        a, b = self.rows[i]["path"], self.rows[j]["path"]
        if self.rows[j].get("kind") == "note":
            fz = score_keys(self.key(i), self.key(j))
            best = self.into.get(a)
            if fz >= THRESHOLD and (best is None or (fz, b) > best):
                self.into[a] = (fz, b)
            return
        if b not in self.parent:
            return
        ra, rb = self.root(a), self.root(b)
        if ra != rb:
            if score_keys(self.key(i), self.key(j)) < THRESHOLD:
                return
            self.parent[max(ra, rb)] = min(ra, rb)
        self.close[a] += similarity
        self.close[b] += similarity


def _nearest_pairs(mat: np.ndarray) -> list[tuple[tuple[int, int], float]]:
    """Each row's few nearest other rows, as (i, j) pairs with i < j, most similar first."""
    k = min(PAIR_NEIGHBOURS, len(mat) - 1)
    pairs: dict[tuple[int, int], float] = {}
    for start in range(0, len(mat), PAIR_BLOCK):
        block = mat[start : start + PAIR_BLOCK] @ mat.T
        for i in range(block.shape[0]):
            block[i, start + i] = -2.0
        top = np.argpartition(-block, k - 1, axis=1)[:, :k]
        for i in range(block.shape[0]):
            for j in top[i]:
                a, b = sorted((start + i, int(j)))
                pairs[(a, b)] = float(block[i, j])
    return sorted(pairs.items(), key=lambda kv: -kv[1])


def _rule(name: str, description: str, body: str, row: dict[str, Any]) -> float:
    """The near-duplicate rule of capture (`curator.model.similar.score`), as 0..1."""
    other = [str(row.get(k) or "") for k in ("name", "description", "body")]
    return score(name, description, other[0], other[1], body, other[2]) / 100.0


__all__ = ["draft_groups", "dupe_pairs", "dupes"]
