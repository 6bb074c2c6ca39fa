"""The optional re-ranker: a local cross-encoder that re-orders the best candidates.

`[index] reranker = "PATH"` names a folder holding a cross-encoder exported to ONNX
(model.onnx, and tokenizer.json beside it or one folder up). It reads the query and each of the
top `RERANK_TOP` candidates of the fused list as one pair and gives the pair a relevance score;
those candidates are re-ordered by it and take the fused list's scores in their new order, so
scores stay within 0..1 and best first, and what the list holds (the relevance floor's choice)
does not change. The model is loaded from that path only, once per process, on the first query:
curator never downloads weights. It runs on onnxruntime (`pip install 'curator[rerank]'`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from curator.errors import ConfigError
from curator.search.onnxmodel import Loaded, OnnxModel, batches, load_tokenizer, model_files

RERANK_TOP = 30  # candidates the cross-encoder reads per query
CROSS_ENCODER_OUTPUT = (
    "one score per pair, floats of shape (pairs,), (pairs, 1) or (pairs, 2): not a cross-encoder"
)
RERANK_BATCH = 10  # pairs per run: bounds the attention's working memory
MAX_TOKENS = 256  # a pair's cap (query and note): cost grows with its square

Scored = list[tuple[str, float]]


class Reranker:
    """A cross-encoder in ONNX, loaded from `path` on first use."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._model = Loaded(self._load)

    def _load(self) -> OnnxModel:
        model, tokenizer = model_files(self.path)
        return OnnxModel.load(model, load_tokenizer(tokenizer), MAX_TOKENS)

    def load(self) -> None:
        """Load the model now (it is otherwise loaded on the first query)."""
        self._model.get()

    def scores(self, query: str, texts: Sequence[str]) -> np.ndarray:
        """The relevance of each text to `query` (higher is more relevant)."""
        model = self._model.get()
        out = np.zeros(len(texts), dtype=np.float32)
        for batch in batches(texts, RERANK_BATCH):
            encodings = model.tokenizer.encode_batch([(query, texts[i]) for i in batch])
            logits, _ = model.run(encodings, (1, 2), CROSS_ENCODER_OUTPUT)
            out[batch] = relevance(logits, model.path)
        return out

    def rerank(self, query: str, scored: Scored, texts: Sequence[str]) -> Scored:
        """`scored` (best first) with its first `RERANK_TOP` entries, whose texts are `texts`,
        re-ordered by the cross-encoder; ties keep the fused order."""
        top = min(len(scored), RERANK_TOP, len(texts))
        if top < 2:
            return scored
        relevance_ = self.scores(query, texts[:top])
        order = sorted(range(top), key=lambda i: (-float(relevance_[i]), i))
        values = [s for _, s in scored[:top]]
        return [(scored[i][0], values[rank]) for rank, i in enumerate(order)] + scored[top:]


def relevance(logits: np.ndarray, path: Path) -> np.ndarray:
    """One score per pair from a cross-encoder's output: its single logit, or for a two-class
    head the margin of "relevant" (the second class) over "not relevant"."""
    if logits.ndim == 1:
        return logits
    if logits.ndim == 2 and logits.shape[1] == 1:
        return logits[:, 0]
    if logits.ndim == 2 and logits.shape[1] == 2:
        return logits[:, 1] - logits[:, 0]
    raise ConfigError(
        f"not a cross-encoder: it gives outputs of shape {logits.shape[1:]} per pair, "
        "expected one score (or two classes)",
        path=str(path),
    )


@functools.cache
def reranker_at(path: str) -> Reranker:
    """The process's re-ranker for a model path (loaded once, on its first query)."""
    return Reranker(Path(path))
