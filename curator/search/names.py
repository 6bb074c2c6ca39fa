"""Note names matched as you type: the palace's own names, their words and the notes holding
each word, for a short query's name candidates (`Ranker.fuzzy`).

The names come from the palace the index was synced to (the index holds one row per parsed
note and draft, named as in the palace), so matching them reads no table. A query word matches
a name word it begins (as you type) or, for words of four letters or more, a near miss
(`curator.model.fuzzy`'s rule over the names' vocabulary).
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from curator.model import cache, fuzzy
from curator.model.note import Note
from curator.model.palace import Palace
from curator.search.filters import NoteFields
from curator.search.text import WORD

NAMES_CACHE = "names"  # `cache.load` / `cache.store`'s name for an index's name postings
PREFIX_WORDS = 200  # name words an as-you-type prefix may expand to
NEAR_WORDS = 10  # near-miss words per query word


@dataclass(frozen=True)
class Names:
    """Every parsed note's and draft's name, lower-cased, with its words' postings."""

    rels: list[str]  # sorted, as the index's rows
    notes: list[Note] | None  # the notes at `rels` (None: read from the index, see `rows`)
    row_at: Callable[[int], dict[str, Any]] | None  # else the index's row of the `i`th
    names: list[str]
    lengths: np.ndarray
    vocab: list[str]  # sorted distinct name words
    postings: dict[str, np.ndarray]  # name word -> positions in `rels`

    @classmethod
    def of(cls, palace: Palace) -> Names:
        """The names of the palace's parsed notes and drafts; of a palace read from the index
        (`curator.search.cold`), those of the index's rows."""
        indexed = getattr(palace, "index_names", None)
        if indexed is not None:
            rels, names, row_at = indexed
            return cls.kept(palace.root, rels, names, row_at)
        notes = sorted((n for n in palace.all() if n.ok), key=lambda n: n.rel)
        return cls.made([n.rel for n in notes], [str(n.name or "") for n in notes], notes)

    def filter_row(self, i: int, palace: Palace) -> Mapping[str, Any]:
        """What a filter reads of the `i`th note: as the index derives it from the note."""
        if self.notes is None:
            assert self.row_at is not None
            return self.row_at(i)
        return NoteFields(palace, self.notes[i])

    @classmethod
    def made(
        cls,
        rels: list[str],
        shown: list[str],
        notes: list[Note] | None,
        row_at: Callable[[int], dict[str, Any]] | None = None,
    ) -> Names:
        names = [name.lower() for name in shown]
        lists: dict[str, list[int]] = {}
        for i, name in enumerate(names):
            for word in set(WORD.findall(name)):
                lists.setdefault(word, []).append(i)
        postings = {w: np.asarray(ix, dtype=np.int64) for w, ix in lists.items()}
        lengths = np.fromiter((len(n) for n in names), dtype=np.int64, count=len(names))
        return cls(rels, notes, row_at, names, lengths, sorted(postings), postings)

    @classmethod
    def kept(
        cls,
        root: Path,
        rels: list[str],
        shown: list[str],
        row_at: Callable[[int], dict[str, Any]] | None,
    ) -> Names:
        """`made` of an index's rows, its word postings kept in the user's cache for the
        next process (a cold search at 100k notes built them in ~0.35 s of its ~4 s), by the
        rels and names they are of: a cache of other names, or damaged, is made again."""
        key = _names_key(rels, shown)
        found = cache.load(root, NAMES_CACHE)
        try:
            stored_key, vocab, bounds, flat = found
            if stored_key != key:
                raise ValueError("other names")
            starts = np.frombuffer(bounds, dtype=np.int64)
            at = np.frombuffer(flat, dtype=np.int64)
            if (
                not isinstance(vocab, list)
                or not all(isinstance(w, str) for w in vocab)
                or len(starts) != len(vocab) + 1
                or starts[0] != 0
                or starts[-1] != len(at)
                or np.any(np.diff(starts) < 0)
                or (len(at) and (at.min() < 0 or at.max() >= len(rels)))
            ):
                raise ValueError("damaged")
            postings = {w: at[starts[i] : starts[i + 1]] for i, w in enumerate(vocab)}
        except (TypeError, ValueError):
            made = cls.made(rels, shown, None, row_at)
            lists = [made.postings[w] for w in made.vocab]
            bounds_of = np.cumsum([0, *map(len, lists)], dtype=np.int64)
            joined = np.concatenate(lists) if lists else np.zeros(0, dtype=np.int64)
            stored = (key, made.vocab, bounds_of.tobytes(), joined.astype(np.int64).tobytes())
            cache.store(root, NAMES_CACHE, stored)
            return made
        names = [name.lower() for name in shown]
        lengths = np.fromiter((len(n) for n in names), dtype=np.int64, count=len(names))
        return cls(rels, None, row_at, names, lengths, list(vocab), postings)

    def counts(self, words: Sequence[str]) -> np.ndarray:
        """Per note, how many of the query words match a word of its name."""
        counts = np.zeros(len(self.rels), dtype=np.int64)
        for word in words:
            near: set[str] = set()
            lo = bisect.bisect_left(self.vocab, word)
            for v in itertools.islice(self.vocab, lo, lo + PREFIX_WORDS):
                if not v.startswith(word):
                    break
                near.add(v)
            if len(word) >= 4:
                found = fuzzy.closest(word, self.vocab, NEAR_WORDS)
                near.update(self.vocab[i] for i, _score in found)
            hit = np.zeros(len(self.rels), dtype=bool)
            for v in near:
                hit[self.postings[v]] = True
            counts += hit
        return counts


def _names_key(rels: list[str], shown: list[str]) -> str:
    """What a kept postings table is of: every rel and name, in order."""
    digest = hashlib.blake2b(digest_size=16)
    for part in (rels, shown):  # the lengths too: a name may hold the separator
        digest.update(np.fromiter(map(len, part), dtype=np.int64, count=len(part)).tobytes())
        digest.update("\0".join(part).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


__all__ = ["Names"]
