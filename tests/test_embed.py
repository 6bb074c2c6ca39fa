"""Embedders: WordLlama loads offline from the wheel's bundled files; hash is deterministic."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from curator.search.embed import (
    Embedder,
    HashEmbedder,
    WordLlamaEmbedder,
    get_embedder,
    token_sums,
    wordllama_files,
)


def test_wordllama_loads_and_embeds_with_network_blocked(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_network(self: socket.socket, *args: object) -> None:
        raise OSError("network blocked by test")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket.socket, "connect_ex", no_network)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    emb = WordLlamaEmbedder()
    vecs = emb.embed(["git hooks run before commit", "the user prefers short answers", ""])
    assert vecs.shape == (3, 256) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs[:2], axis=1), 1.0, atol=1e-5)
    assert not vecs[2].any()  # nothing to embed: a zero row, not NaN


@pytest.mark.slow
def test_wordllama_fresh_process_offline_never_imports_the_package() -> None:
    # A fresh interpreter proves nothing was cached: load with sockets disabled, and check that
    # the wordllama package (which downloads and configures root logging) was never imported.
    # And a query's few words are tokenized in the calling thread: no thread pool is started
    # (on a busy machine its sleeping threads wake late).
    code = textwrap.dedent(
        """
        import logging, os, socket, sys
        def blocked(*a, **k):
            raise OSError("network blocked")
        socket.socket.connect = blocked
        socket.create_connection = blocked
        from curator.search.embed import WordLlamaEmbedder
        threads = lambda: len(os.listdir("/proc/self/task"))
        embedder = WordLlamaEmbedder()
        embedder.load()
        before = threads()
        v = embedder.embed(["offline embedding works"])
        assert threads() == before, f"{threads()} threads after embedding, {before} before"
        assert v.shape == (1, 256)
        assert "wordllama" not in sys.modules, "wordllama package was imported"
        assert not logging.getLogger().handlers, "root logger was configured"
        print("ok")
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"},
        timeout=120,
        cwd=Path(__file__).resolve().parent.parent,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


@pytest.mark.slow
def test_wordllama_matches_reference_inference() -> None:
    # Our pooling must give the same vectors as WordLlamaInference.embed(norm=True).
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer
    from wordllama.inference import WordLlamaInference

    weights, tokenizer = wordllama_files()
    ref = WordLlamaInference(
        load_file(str(weights))["embedding.weight"], Tokenizer.from_file(str(tokenizer))
    )
    texts = ["Use ruff before committing", "café naïve résumé", "a " * 500 + "tail"]
    ours = WordLlamaEmbedder().embed(texts)
    assert np.abs(ours - ref.embed(texts, norm=True)).max() < 1e-4


def test_wordllama_similarity_is_meaningful() -> None:
    emb = WordLlamaEmbedder()
    a, b, c = emb.embed(
        ["run the test suite before pushing", "execute tests prior to a push", "banana bread"]
    )
    assert float(a @ b) > float(a @ c)


def test_wordllama_truncated_dims_and_bad_dim() -> None:
    v = WordLlamaEmbedder(64).embed(["hello world"])
    assert v.shape == (1, 64)
    assert np.isclose(np.linalg.norm(v), 1.0, atol=1e-5)
    with pytest.raises(ValueError, match="dim must be one of"):
        WordLlamaEmbedder(100)


def test_hash_embedder_deterministic_and_normalized() -> None:
    emb = HashEmbedder(32)
    a = emb.embed(["alpha beta gamma", "alpha beta gamma", "delta"])
    assert a.shape == (3, 32)
    assert np.array_equal(a[0], a[1])
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    assert HashEmbedder(32).embed([""]).any() == np.False_
    with pytest.raises(ValueError):
        HashEmbedder(2)


def test_get_embedder_from_config_names() -> None:
    assert isinstance(get_embedder("wordllama", None), WordLlamaEmbedder)
    hashed = get_embedder("hash", 48)
    assert isinstance(hashed, HashEmbedder) and hashed.dim == 48
    assert isinstance(hashed, Embedder)  # satisfies the protocol
    with pytest.raises(ValueError, match=r"unknown embedder 'bert'.*wordllama, hash"):
        get_embedder("bert", None)


def _add_at_sums(table: np.ndarray, ids: np.ndarray, n_tok: np.ndarray) -> np.ndarray:
    """The plain definition: each token's row added to its word's sum, one at a time."""
    sums = np.zeros((len(n_tok), table.shape[1]), dtype=np.float32)
    owner = np.repeat(np.arange(len(n_tok), dtype=np.intp), n_tok)
    np.add.at(sums, owner, table[ids].astype(np.float32))
    return sums


@settings(deadline=None)
@given(
    st.lists(st.integers(0, 9), max_size=40),
    st.integers(0, 2**32 - 1),
)
def test_token_sums_are_the_sums_added_one_token_at_a_time(lengths: list[int], seed: int) -> None:
    rng = np.random.default_rng(seed)
    table = rng.standard_normal((50, 8)).astype(np.float16)
    n_tok = np.asarray(lengths, dtype=np.intp)
    ids = rng.integers(0, 50, int(n_tok.sum())).astype(np.intp)
    got = token_sums(table, ids, n_tok)
    assert got.dtype == np.float32
    assert np.array_equal(got, _add_at_sums(table, ids, n_tok))  # bit for bit


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(max_size=12), max_size=30), st.booleans())
def test_words_tokenized_one_by_one_are_the_batch_tokens(words: list[str], many: bool) -> None:
    from curator.search.embed import SERIAL_WORDS, _load_model, word_tokens

    tokenizer = _load_model().tokenizer
    words = words * (SERIAL_WORDS // max(1, len(words)) + 1) if many and words else words
    got = [e.ids for e in word_tokens(tokenizer, words)]
    assert got == [e.ids for e in tokenizer.encode_batch(words, add_special_tokens=False)]


def test_wordllama_words_embed_as_the_tokens_added_one_at_a_time() -> None:
    # Real words, tokenized by the bundled tokenizer: each vector as the plain definition
    # (np.add.at over its tokens, the mean, L2 normalized) gives it, bit for bit.
    from curator.search.embed import _load_model, normalize_rows

    words = ["kids", "children", "deployment", "naïve", "x", "0", "retry-queue", "a" * 70]
    got = WordLlamaEmbedder().embed(words)
    model = _load_model()
    encodings = model.tokenizer.encode_batch(words, add_special_tokens=False)
    n_tok = np.asarray([len(e.ids) for e in encodings], dtype=np.intp)
    ids = np.asarray([i for e in encodings for i in e.ids], dtype=np.intp)
    sums = _add_at_sums(model.embedding[:, :256], ids, n_tok)
    want = normalize_rows(sums / np.maximum(n_tok, 1)[:, None].astype(np.float32))
    assert np.array_equal(got, want)
