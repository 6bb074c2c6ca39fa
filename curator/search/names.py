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
    """Every parsed note's and draft's name, lower-cased, with its words' postings. Compact,
    as a warm server holds it for hours: the names are read from the notes when asked (a
    fuzzy pool's few), and the postings are one array of positions cut by the vocabulary's
    bounds (a dict of an array per word held 8 bytes a position and ~170 a word)."""

    rels: list[str]  # sorted, as the index's rows
    notes: list[Note] | None  # the notes at `rels` (None: read from the index, see `rows`)
    row_at: Callable[[int], dict[str, Any]] | None  # else the index's row of the `i`th
    shown: Sequence[str] | None  # else the names as the index holds them
    lengths: np.ndarray  # of each lower-cased name
    vocab: list[str]  # sorted distinct name words
    bounds: np.ndarray  # vocab[k]'s postings are at[bounds[k] : bounds[k + 1]]
    at: np.ndarray  # positions in `rels` (int32)

    @classmethod
    def of(cls, palace: Palace) -> Names:
        """The names of the palace's parsed notes and drafts; of a palace read from the index
        (`curator.search.cold`), those of the index's rows."""
        indexed = getattr(palace, "index_names", None)
        if indexed is not None:
            rels, names, row_at = indexed
            return cls.kept(palace.root, rels, names, row_at)
        notes = sorted((n for n in palace.all() if n.ok), key=lambda n: n.rel)
        return cls.made([n.rel for n in notes], [_name(n) for n in notes], notes)

    def name(self, i: int) -> str:
        """The `i`th note's name, lower-cased."""
        if self.notes is not None:
            return _name(self.notes[i]).lower()
        assert self.shown is not None
        return self.shown[i].lower()

    def posting(self, k: int) -> np.ndarray:
        """The positions of the names holding the word `vocab[k]`."""
        return self.at[self.bounds[k] : self.bounds[k + 1]]

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
        lists: dict[str, list[int]] = {}
        for i, name in enumerate(shown):
            for word in set(WORD.findall(name.lower())):
                lists.setdefault(word, []).append(i)
        vocab = sorted(lists)
        bounds = np.cumsum([0, *(len(lists[w]) for w in vocab)], dtype=np.int64)
        flat = itertools.chain.from_iterable(lists[w] for w in vocab)
        at = np.fromiter(flat, dtype=np.int32, count=int(bounds[-1]))
        return cls(
            rels, notes, row_at, None if notes else shown, _lengths(shown), vocab, bounds, at
        )

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
        except (TypeError, ValueError):
            made = cls.made(rels, shown, None, row_at)
            stored = (key, made.vocab, made.bounds.tobytes(), made.at.astype(np.int64).tobytes())
            cache.store(root, NAMES_CACHE, stored)
            return made
        return cls(rels, None, row_at, shown, _lengths(shown), list(vocab), starts.copy(),
                   at.astype(np.int32))  # fmt: skip

    def counts(self, words: Sequence[str]) -> np.ndarray:
        """Per note, how many of the query words match a word of its name."""
        counts = np.zeros(len(self.rels), dtype=np.int64)
        for word in words:
            near: set[int] = set()  # positions in `vocab`
            lo = bisect.bisect_left(self.vocab, word)
            for k in range(lo, min(lo + PREFIX_WORDS, len(self.vocab))):
                if not self.vocab[k].startswith(word):
                    break
                near.add(k)
            if len(word) >= 4:
                near.update(k for k, _score in fuzzy.closest(word, self.vocab, NEAR_WORDS))
            hit = np.zeros(len(self.rels), dtype=bool)
            for k in near:
                hit[self.posting(k)] = True
            counts += hit
        return counts


def _name(note: Note) -> str:
    return str(note.name or "")


def _lengths(shown: Sequence[str]) -> np.ndarray:
    """The length of each name lower-cased."""
    return np.fromiter((len(n.lower()) for n in shown), dtype=np.int32, count=len(shown))


def _names_key(rels: list[str], shown: list[str]) -> str:
    """What a kept postings table is of: every rel and name, in order."""
    digest = hashlib.blake2b(digest_size=16)
    for part in (rels, shown):  # the lengths too: a name may hold the separator
        digest.update(np.fromiter(map(len, part), dtype=np.int64, count=len(part)).tobytes())
        digest.update("\0".join(part).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


__all__ = ["Names"]
