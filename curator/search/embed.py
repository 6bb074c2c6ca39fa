"""Text embedders for the search index.

An `Embedder` turns texts into L2-normalized float32 vectors. The default, `WordLlamaEmbedder`,
uses the WordLlama "l2_supercat" token embeddings that ship inside the wordllama wheel,
averages them and L2-normalizes the result, as `WordLlamaInference.embed(norm=True)` does, but
over the tokens of the text's whitespace-separated words only: each word is tokenized once on
its own, and the tokens WordLlama would give runs of whitespace and newlines are left out, so
a text with line breaks or repeated spaces gets a slightly different vector than WordLlama
gives it. It loads the bundled weights and tokenizer straight from the installed package:
`WordLlama.load()` looks for the tokenizer in a folder that does not exist and then downloads
it, and importing the `wordllama` package also calls `logging.basicConfig(level=INFO)` on the
root logger. Neither happens here: no network is touched and the package itself is never
imported.

`HashEmbedder` is a tiny deterministic feature-hashing embedder (word unigrams and bigrams)
for tests and for palaces that choose `[index] embedder = "hash"`.
"""

from __future__ import annotations

import importlib.util
import itertools
import re
import threading
import zlib
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]

EMBEDDERS = ("wordllama", "hash")
WORDLLAMA_DIMS = (64, 128, 256)  # matryoshka truncations of the bundled 256-dim weights
WORDLLAMA_WEIGHTS = "weights/l2_supercat_256.safetensors"
WORDLLAMA_TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
HASH_DEFAULT_DIM = 256

# Tokens gathered per step when pooling: bounds memory (x dim x 4 bytes) whatever the text size.
_POOL_CHUNK_TOKENS = 16_384


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into an (n, dim) float32 array of L2-normalized rows.

    A text with nothing to embed (empty, or no known token) gives a zero row.
    """

    name: str
    dim: int

    def embed(self, texts: list[str]) -> Vectors: ...


def normalize_rows(vectors: npt.NDArray[Any]) -> Vectors:
    """L2-normalize each row in place-safe fashion; zero rows stay zero."""
    out = np.ascontiguousarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    np.divide(out, norms, out=out, where=norms > 0)
    return out


# --------------------------------------------------------------------------- WordLlama


class _WordLlamaModel:
    """The bundled token-embedding matrix and tokenizer (loaded once per process)."""

    def __init__(self, embedding: npt.NDArray[np.float32], tokenizer: Any) -> None:
        self.embedding = embedding  # (vocab, 256) float16 as shipped, C-contiguous
        self.tokenizer = tokenizer


_MODEL_LOCK = threading.Lock()
_MODEL: _WordLlamaModel | None = None


def wordllama_files() -> tuple[Path, Path]:
    """Paths of the weights and tokenizer config bundled in the installed wordllama wheel."""
    spec = importlib.util.find_spec("wordllama")  # locates the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the wordllama package is not installed (pip install wordllama)")
    base = Path(next(iter(spec.submodule_search_locations)))
    weights, tokenizer = base / WORDLLAMA_WEIGHTS, base / WORDLLAMA_TOKENIZER
    for p in (weights, tokenizer):
        if not p.is_file():
            raise RuntimeError(f"wordllama is installed but its bundled file is missing: {p}")
    return weights, tokenizer


def _load_model() -> _WordLlamaModel:
    global _MODEL
    if _MODEL is not None:
        return _MODEL
    with _MODEL_LOCK:
        if _MODEL is None:
            from safetensors import safe_open
            from tokenizers import Tokenizer

            weights_path, tokenizer_path = wordllama_files()
            with safe_open(str(weights_path), framework="np", device="cpu") as f:
                # kept as stored (float16): half the memory of float32, and the same values;
                # pooling sums them into float32
                embedding = np.ascontiguousarray(f.get_tensor("embedding.weight"))
            tokenizer = Tokenizer.from_file(str(tokenizer_path))
            tokenizer.no_padding()  # we pool ragged sequences ourselves: no padding waste
            tokenizer.no_truncation()
            _MODEL = _WordLlamaModel(embedding, tokenizer)
    return _MODEL


class WordLlamaEmbedder:
    """WordLlama l2_supercat: average of token embeddings, then L2-normalized."""

    name = "wordllama"

    def __init__(self, dim: int | None = None) -> None:
        dim = 256 if dim is None else dim
        if dim not in WORDLLAMA_DIMS:
            raise ValueError(
                f"wordllama embedder dim must be one of {list(WORDLLAMA_DIMS)}, got {dim}"
            )
        self.dim = dim

    def load(self) -> None:
        """Load the model now (it is otherwise loaded on first use)."""
        _load_model()

    def embed(self, texts: list[str]) -> Vectors:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        model = _load_model()
        # The tokenizer has no pre-tokenizer: it prepends "▁", turns spaces into "▁" and runs
        # BPE over the whole text, which is slow on long texts. Llama merges never cross a "▁"
        # word boundary, so a text's tokens are the concatenation of its whitespace-separated
        # words' tokens: tokenize each distinct word once, then pool per text. (Runs of
        # whitespace and newlines, which would be byte tokens, are dropped.)
        vocab: dict[str, int] = {}
        per_text: list[npt.NDArray[np.intp]] = []
        for text in texts:
            words = text.split()
            per_text.append(
                np.fromiter(
                    [vocab.setdefault(w, len(vocab)) for w in words],
                    dtype=np.intp,
                    count=len(words),
                )
            )
        if not vocab:
            return out
        table = model.embedding[:, : self.dim]
        encodings = model.tokenizer.encode_batch(list(vocab), add_special_tokens=False)
        n_tok = np.fromiter((len(e.ids) for e in encodings), dtype=np.intp, count=len(vocab))
        ids = np.fromiter(
            (i for e in encodings for i in e.ids), dtype=np.intp, count=int(n_tok.sum())
        )
        np.clip(ids, 0, table.shape[0] - 1, out=ids)
        word_sums = np.zeros((len(vocab), self.dim), dtype=np.float32)
        owner = np.repeat(np.arange(len(vocab), dtype=np.intp), n_tok)
        for start in range(0, len(ids), _POOL_CHUNK_TOKENS):  # bounded memory
            stop = start + _POOL_CHUNK_TOKENS
            np.add.at(word_sums, owner[start:stop], table[ids[start:stop]].astype(np.float32))
        for row, word_idx in enumerate(per_text):
            count = int(n_tok[word_idx].sum()) if len(word_idx) else 0
            if count:
                out[row] = word_sums[word_idx].sum(axis=0) / count
        return normalize_rows(out)


# --------------------------------------------------------------------------- hashing

_WORD = re.compile(r"\w+")


class HashEmbedder:
    """Deterministic feature hashing of lower-cased word unigrams and bigrams (signed)."""

    name = "hash"

    def __init__(self, dim: int | None = None) -> None:
        dim = HASH_DEFAULT_DIM if dim is None else dim
        if not 8 <= dim <= 4096:
            raise ValueError(f"hash embedder dim must be between 8 and 4096, got {dim}")
        self.dim = dim

    def _features(self, text: str) -> list[str]:
        words = _WORD.findall(text.lower())
        return words + [f"{a} {b}" for a, b in itertools.pairwise(words)]

    def embed(self, texts: list[str]) -> Vectors:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feat in self._features(text):
                h = zlib.crc32(feat.encode("utf-8"))
                out[row, h % self.dim] += 1.0 if (h >> 31) & 1 == 0 else -1.0
        return normalize_rows(out)


def get_embedder(name: str, dim: int | None = None) -> Embedder:
    """The embedder chosen by palace.toml `[index] embedder = ...` (and optional `dim`)."""
    key = (name or "").strip().lower()
    if key == "wordllama":
        return WordLlamaEmbedder(dim)
    if key == "hash":
        return HashEmbedder(dim)
    raise ValueError(
        f"unknown embedder {name!r} in [index] embedder: choose one of {', '.join(EMBEDDERS)}"
    )
