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
    nearest drafts by vector and the one near-duplicate rule (`score_keys`, capture's) confirms
    it; a group's note (`into`) is the current note the rule finds it most like, among the
    notes nearest the group's centre (each scored against the member nearest it). Two drafts
    already in one group are not scored again. Within a group the draft closest to the others
    comes first (then the longer one); the biggest groups come first. A draft the index does
    not hold yet (or hides) is a group of one.

    The vector products are drafts x drafts and groups x notes, never drafts x notes: with
    2,000 drafts in a 10k-note palace the latter was most of the time (issue 36's 2 s)."""
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
    mat = np.stack([r["vector"] for r in rows]) if rows else np.zeros((0, 0), np.float32)
    grouping.join_drafts(drafts, mat)
    groups: dict[str, list[str]] = {}
    for rel in sorted(present):
        groups.setdefault(grouping.root(rel) if rel in grouping.parent else rel, []).append(rel)
    grouping.find_notes(
        [i for i, r in enumerate(rows) if r.get("kind") == "note"], list(groups.values()), mat
    )
    length = {rows[i]["path"]: len(str(rows[i].get("body") or "")) for i in drafts}
    out = []
    for members in groups.values():
        members.sort(key=lambda rel: (-grouping.close.get(rel, 0.0), -length.get(rel, 0), rel))
        best = grouping.into.get(grouping.root(members[0]) if members[0] in grouping.parent else "")
        note = best[1] if best else ""
        name = palace.by_rel[note].name if note in palace.by_rel else ""
        out.append(DraftGroup(tuple(members), note, one_line(name)))
    out.sort(key=lambda g: (-len(g.drafts), g.drafts[0]))
    return out


class _Grouping:
    """Drafts joined by root (union-find), each group's most alike note (by its root), how
    close each draft is to its group (the vector similarity of its neighbours that joined it)."""

    def __init__(self, rows: list[dict[str, Any]], drafts: set[str]) -> None:
        self.rows = rows
        self.parent = {rel: rel for rel in drafts}
        self.close: dict[str, float] = dict.fromkeys(drafts, 0.0)
        self.into: dict[str, tuple[float, str]] = {}  # group root -> its best (score, note)
        self.index = {row["path"]: i for i, row in enumerate(rows)}
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

    def join_drafts(self, drafts: list[int], mat: np.ndarray) -> None:
        """Each draft's nearest drafts by vector, confirmed by the rule (`join`)."""
        k = min(GROUP_NEIGHBOURS, len(drafts) - 1)
        if k <= 0:
            return
        vectors = mat[drafts]
        pairs, sims = [], []
        for start in range(0, len(drafts), PAIR_BLOCK):
            block = vectors[start : start + PAIR_BLOCK] @ vectors.T
            rows = np.arange(len(block))
            block[rows, rows + start] = -2.0  # not its own neighbour
            top = np.argpartition(block, -k, axis=1)[:, -k:]
            sims.append(block[rows[:, None], top].ravel())
            a, b = np.repeat(rows + start, k), top.ravel()
            pairs.append(np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1))
        # each pair once (two drafts may name each other), the most alike first
        unique, first = np.unique(np.concatenate(pairs), axis=0, return_index=True)
        near = np.concatenate(sims)[first]
        order = np.argsort(-near, kind="stable")
        for (x, y), sim in zip(unique[order].tolist(), near[order].tolist(), strict=True):
            self.join(drafts[x], drafts[y], sim)

    def join(self, i: int, j: int, similarity: float) -> None:
        """Two neighbouring drafts join one group when the rule confirms them."""
        a, b = self.rows[i]["path"], self.rows[j]["path"]
        ra, rb = self.root(a), self.root(b)
        if ra != rb:
            if score_keys(self.key(i), self.key(j)) < THRESHOLD:
                return
            self.parent[max(ra, rb)] = min(ra, rb)
        self.close[a] += similarity
        self.close[b] += similarity

    def find_notes(self, notes: list[int], groups: list[list[str]], mat: np.ndarray) -> None:
        """Each group's note: of the notes nearest the group's centre by vector, the one the
        rule finds most alike, each scored against the group's member nearest it."""
        members = [[self.index[rel] for rel in g if rel in self.index] for g in groups]
        members = [m for m in members if m]
        k = min(GROUP_NEIGHBOURS, len(notes))
        if not members or k <= 0:
            return
        note_vectors = mat[notes]
        for start in range(0, len(members), PAIR_BLOCK):
            block = members[start : start + PAIR_BLOCK]
            centres = np.stack([mat[m].mean(axis=0) for m in block])
            top = np.argpartition(centres @ note_vectors.T, -k, axis=1)[:, -k:]
            for group, near in zip(block, top, strict=True):
                root = self.root(self.rows[group[0]]["path"])
                candidates = [notes[int(n)] for n in near]
                nearest = np.argmax(mat[group] @ mat[candidates].T, axis=0).tolist()
                for j, m in zip(candidates, nearest, strict=True):
                    fz = score_keys(self.key(group[m]), self.key(j))
                    best = self.into.get(root)
                    if fz >= THRESHOLD and (best is None or (fz, self.rows[j]["path"]) > best):
                        self.into[root] = (fz, self.rows[j]["path"])


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
