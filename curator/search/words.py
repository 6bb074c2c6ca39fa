"""Word frequencies of a palace, for smooth inverse frequency weights (Arora et al., 2017).

Counted over a deterministic sample of the notes and drafts, and kept beside the index keyed by
the palace fingerprint, so a one-shot process reads them instead of scanning a thousand notes
(the same counts either way).
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from curator.fsutil import atomic_write
from curator.model.palace import Palace
from curator.search.text import WORD

SIF_A = 1e-3  # smooth inverse frequency weight (the usual default of Arora et al.)
WORD_FREQ_SAMPLE = 1000  # notes sampled for word frequencies
WORD_FREQ_FILE = "words.json"


def count_words(palace: Palace) -> dict[str, int]:
    notes = [n for n in palace.all() if n.ok]
    step = max(1, len(notes) // WORD_FREQ_SAMPLE)
    counts: dict[str, int] = {}
    for note in notes[::step]:
        for w in WORD.findall(f"{note.name} {note.description} {note.body}".lower()):
            counts[w] = counts.get(w, 0) + 1
    return counts


def word_freq(palace: Palace, index_dir: Path, signature: str) -> dict[str, int]:
    """The palace's word counts, read from the index folder when they match `signature`."""
    path = index_dir / WORD_FREQ_FILE
    key = f"{signature}:{WORD_FREQ_SAMPLE}"
    counts = _read(path, key)
    if counts is None:
        counts = count_words(palace)
        _write(path, key, counts)
    return counts


def sif_weight(freq: dict[str, int], total: int, word: str) -> float:
    """a / (a + p(word)): words every note uses count for little, rare telling words a lot."""
    return SIF_A / (SIF_A + freq.get(word, 0) / total)


def _read(path: Path, signature: str) -> dict[str, int] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("signature") != signature:
        return None
    counts = data.get("counts")
    if not isinstance(counts, dict) or not all(isinstance(v, int) for v in counts.values()):
        return None
    return counts


def _write(path: Path, signature: str, counts: dict[str, int]) -> None:
    """Best effort (derived data, like the index itself): a failure only costs the next
    process a rescan."""
    data = json.dumps({"signature": signature, "counts": counts}, ensure_ascii=False)
    with contextlib.suppress(OSError):
        atomic_write(path, data.encode("utf-8"), sync=False)


__all__ = ["SIF_A", "count_words", "sif_weight", "word_freq"]
