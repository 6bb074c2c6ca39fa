"""The one fuzzy name rule: how close something typed is to a note's name, slug or name word.

rapidfuzz's `WRatio` (the best of whole, partial and word-order comparisons) over text folded
by its default processor (lower case, punctuation to spaces), 0-100; `CUTOFF` is the least
that counts as close. Every name matcher asks here: the "did you mean" of a name not found
(`Palace.find`), the note pickers (`ui.services.notes_named`), a search's as-you-type name
candidates and their near-miss words (`search.ranking`, `search.names`). Whether two notes
say the same thing is another question, with its own rule (`model.similar`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy is imported where a score array is made: loading a palace needs none
    import numpy as np

CUTOFF = 70.0


def closest(
    query: str, choices: Sequence[str], limit: int, cutoff: float = CUTOFF
) -> list[tuple[int, float]]:
    """(index into `choices`, score) of the choices at least `cutoff` close to `query`, the
    closest first (ties in `choices` order), at most `limit`."""
    from rapidfuzz import fuzz, process, utils

    found = process.extract(
        query,
        choices,
        scorer=fuzz.WRatio,
        processor=utils.default_process,
        score_cutoff=cutoff,
        limit=limit,
    )
    return [(index, float(score)) for _choice, score, index in found]


def scores(query: str, choices: Sequence[str], cutoff: float = 0.0) -> np.ndarray:
    """The closeness of `query` to each of `choices`, in order (0 below `cutoff`)."""
    import numpy as np
    from rapidfuzz import fuzz, process, utils

    return process.cdist(
        [query],
        choices,
        scorer=fuzz.WRatio,
        processor=utils.default_process,
        score_cutoff=cutoff,
        dtype=np.float64,
    )[0]


def score(query: str, choice: str) -> float:
    """The closeness of `query` to one `choice`."""
    from rapidfuzz import fuzz, utils

    return float(fuzz.WRatio(query, choice, processor=utils.default_process))


__all__ = ["CUTOFF", "closest", "score", "scores"]
