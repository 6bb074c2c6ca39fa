"""Ranking primitives: score scaling, reciprocal rank fusion and helpers.
Deterministic."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

RRF_K = 60


def rrf(
    rankings: Sequence[Sequence[str]],
    k: int = RRF_K,
    weights: Sequence[float] | None = None,
) -> list[tuple[str, float]]:
    """Reciprocal rank fusion: score(d) = sum_i w_i / (k + rank_i(d)), rank starting at 1.

    Each ranking lists keys best first; repeats within one ranking are ignored (rank counts
    distinct keys). Results are sorted by score (descending), ties broken by key (ascending),
    so the output is deterministic whatever the input order of equal-scored keys.
    """
    if k < 0:
        raise ValueError(f"rrf k must be >= 0, got {k}")
    if weights is None:
        weights = [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError(f"rrf got {len(rankings)} rankings but {len(weights)} weights")
    scores: dict[str, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        seen: set[str] = set()
        for key in ranking:
            if key in seen:
                continue
            seen.add(key)  # rank = position among distinct keys, starting at 1
            scores[key] = scores.get(key, 0.0) + weight / (k + len(seen))
    return sort_scored(scores.items())


def scaled(values: np.ndarray) -> np.ndarray:
    """Non-negative scores divided by the largest, so the best candidate scores 1 and a
    candidate with nothing (no shared word, no similarity) 0; negatives count as 0. On a deep
    candidate pool this is min-max normalisation (the least candidate is near 0 anyway); on a
    few candidates it keeps a close second close instead of pushing it to 0."""
    values = np.clip(np.asarray(values, dtype=np.float64), 0.0, None)
    hi = float(values.max()) if len(values) else 0.0
    return values / hi if hi > 0 else np.zeros(len(values))


def sort_scored(items: Iterable[tuple[str, float]]) -> list[tuple[str, float]]:
    """Sort (key, score) pairs by score descending, then key ascending."""
    return sorted(items, key=lambda kv: (-kv[1], kv[0]))


def top(scored: Sequence[tuple[str, float]], limit: int) -> list[tuple[str, float]]:
    """The first `limit` items; a negative limit raises."""
    if limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    return list(scored[:limit])
