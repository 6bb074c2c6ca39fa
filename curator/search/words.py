"""Corpus statistics of a palace: word frequencies for smooth inverse frequency weights (Arora
et al., 2017) and, per field, document frequencies and mean lengths for BM25F.

Counted over a deterministic sample of the notes and drafts, and kept beside the index keyed by
the palace fingerprint, so a one-shot process reads them instead of scanning a thousand notes
(the same figures either way).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from curator.fsutil import atomic_write
from curator.model.note import Note, strip_banner
from curator.model.palace import Palace
from curator.search.text import STOPWORDS, WORD, stems

SIF_A = 1e-3  # smooth inverse frequency weight (the usual default of Arora et al.)
WORD_FREQ_SAMPLE = 1000  # notes sampled for the statistics
WORD_FREQ_FILE = "words.json"
FIELDS = ("name", "description", "tags", "body", "context")
_T = TypeVar("_T")


def note_fields(note: Note) -> tuple[str, ...]:
    """A note's text per field of `FIELDS` (the draft banner left out of the body)."""
    context = note.header.get("context")
    return field_texts(
        note.name,
        note.description,
        note.tags,
        note.body,
        context if isinstance(context, str) else "",
    )


def field_texts(
    name: str, description: str, tags: Sequence[str], body: str, context: str
) -> tuple[str, ...]:
    """The text per field of `FIELDS` of a note's (or an index row's) values."""
    return (name, description, " ".join(tags), strip_banner(body), context)


def key_words(texts: Sequence[str]) -> tuple[str, ...]:
    """The distinct key words of a note's name, description and body (`texts` per field of
    `FIELDS`): what soft term matching compares a question's terms with. No stopwords, no
    one-letter words but digits; sorted."""
    name, description, _tags, body, _context = texts
    words = set(WORD.findall(f"{name}\n{description}\n{body}".lower())) - STOPWORDS
    return tuple(sorted(w for w in words if len(w) >= 2 or w.isdigit()))


@dataclass(frozen=True)
class Corpus:
    counts: dict[str, int]  # word -> occurrences (name, description and body)
    docs: int  # notes sampled
    df: dict[str, int]  # stem -> sampled notes holding it in any field
    avg_len: tuple[float, ...]  # mean stems per field, in FIELDS order

    def to_json(self) -> dict[str, object]:
        return {"counts": self.counts, "docs": self.docs, "df": self.df, "avg": self.avg_len}


def count_corpus(palace: Palace) -> Corpus:
    return count_sample(sampled([n for n in palace.all() if n.ok]))


def sampled(parsed: list[_T]) -> list[_T]:
    """The notes the statistics are counted over, of every parsed note and draft in palace
    order (notes, then drafts, each by rel): a fixed stride through them."""
    return parsed[:: max(1, len(parsed) // WORD_FREQ_SAMPLE)]


def count_sample(sample: list[Note]) -> Corpus:
    """The statistics of the sampled notes (`sampled`)."""
    counts: dict[str, int] = {}
    df: dict[str, int] = {}
    lengths = [0] * len(FIELDS)
    for note in sample:
        for w in WORD.findall(f"{note.name} {note.description} {note.body}".lower()):
            counts[w] = counts.get(w, 0) + 1
        seen: set[str] = set()
        for i, text in enumerate(note_fields(note)):
            found = stems(text)
            lengths[i] += len(found)
            seen.update(found)
        for s in seen:
            df[s] = df.get(s, 0) + 1
    n = max(1, len(sample))
    return Corpus(counts, len(sample), df, tuple(total / n for total in lengths))


def corpus(palace: Palace, index_dir: Path, signature: str) -> Corpus:
    """The palace's statistics, read from the index folder when they match `signature`."""
    found = recorded_corpus(index_dir, signature)
    if found is None:
        found = count_corpus(palace)
        _write(index_dir / WORD_FREQ_FILE, _key(signature), found)
    return found


def record_corpus(index_dir: Path, signature: str, found: Corpus) -> None:
    """Keep the statistics of the palace of `signature` in the index folder."""
    _write(index_dir / WORD_FREQ_FILE, _key(signature), found)


def recorded_corpus(index_dir: Path, signature: str) -> Corpus | None:
    """The statistics kept in the index folder for the palace of `signature` (None: none)."""
    return _read(index_dir / WORD_FREQ_FILE, _key(signature))


def _key(signature: str) -> str:
    return f"{signature}:{WORD_FREQ_SAMPLE}:3"  # 3: Snowball stems


def sif_weight(freq: dict[str, int], total: int, word: str) -> float:
    """a / (a + p(word)): words every note uses count for little, rare telling words a lot."""
    return SIF_A / (SIF_A + freq.get(word, 0) / total)


def _counts(value: object) -> dict[str, int] | None:
    if not isinstance(value, dict) or not all(isinstance(v, int) for v in value.values()):
        return None
    return value


def _read(path: Path, signature: str) -> Corpus | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("signature") != signature:
        return None
    counts, df, docs, avg = (
        _counts(data.get("counts")),
        _counts(data.get("df")),
        data.get("docs"),
        data.get("avg"),
    )
    if counts is None or df is None or not isinstance(docs, int) or not isinstance(avg, list):
        return None
    if len(avg) != len(FIELDS) or not all(isinstance(a, int | float) for a in avg):
        return None
    return Corpus(counts, docs, df, tuple(float(a) for a in avg))


def _write(path: Path, signature: str, found: Corpus) -> None:
    """Best effort (derived data, like the index itself): a failure only costs the next
    process a rescan."""
    data = json.dumps({"signature": signature, **found.to_json()}, ensure_ascii=False)
    with contextlib.suppress(OSError):
        atomic_write(path, data.encode("utf-8"), sync=False)


__all__ = [
    "FIELDS",
    "SIF_A",
    "Corpus",
    "corpus",
    "count_corpus",
    "count_sample",
    "field_texts",
    "key_words",
    "note_fields",
    "record_corpus",
    "recorded_corpus",
    "sampled",
    "sif_weight",
]
