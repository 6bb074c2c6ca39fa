"""ONNX embedders: the minilm extra (its pinned file checked) and a local model's path (a tiny
model the test builds), through the config and a real index; a damaged model folder, for an
embedder or a re-ranker, is an error naming the file."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnxhelpers import DAMAGES, cross_encoder_model, damage, embedder_model
from palacehelpers import MakePalace, note_text

from curator.config import load_config
from curator.errors import ConfigError
from curator.model.palace import Palace
from curator.search.embed import (
    MINILM_DIM,
    MINILM_VOCAB,
    HashEmbedder,
    OnnxEmbedder,
    WordLlamaEmbedder,
    get_embedder,
    minilm_files,
    word_embedder,
)
from curator.search.onnxmodel import verify
from curator.search.rerank import Reranker
from curator.search.searcher import Searcher

TABLE = {
    "apple": [1.0, 0.0, 0.0],
    "pear": [0.9, 0.1, 0.0],
    "engine": [0.0, 0.0, 1.0],
    "car": [0.0, 0.1, 0.9],
}


def toml(embedder: str, extra: str = "") -> str:
    return f'[palace]\nname = "t"\n\n[index]\nembedder = "{embedder}"\n{extra}'


def test_minilm_embeds_by_meaning() -> None:
    emb = get_embedder("minilm")
    assert isinstance(emb, OnnxEmbedder) and emb.dim == MINILM_DIM
    vecs = emb.embed(
        ["She went to a support group", "He attended a support meeting", "The stock fell", ""]
    )
    assert vecs.shape == (4, MINILM_DIM) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs[:3], axis=1), 1.0, atol=1e-5)
    sims = vecs @ vecs.T
    assert sims[0, 1] > sims[0, 2] + 0.2  # the paraphrase is nearer than the unrelated text
    assert not vecs[3].any()  # nothing to embed: a zero row, as for the other embedders


def test_minilm_files_are_the_pinned_ones() -> None:
    model, vocab = minilm_files()  # raises unless size and sha256 match
    assert model.name == "model.onnx" and vocab.name == MINILM_VOCAB[0]


def test_a_changed_model_file_is_refused_naming_it(tmp_path: Path) -> None:
    _, vocab = minilm_files()
    _, size, sha256 = MINILM_VOCAB
    copy = tmp_path / "vocab.txt"
    shutil.copyfile(vocab, copy)
    verify(copy, sha256, size)
    data = bytearray(copy.read_bytes())
    data[100] ^= 1  # same size, other bytes
    copy.write_bytes(bytes(data))
    with pytest.raises(ConfigError) as exc:
        verify(copy, sha256, size)
    assert str(copy) in str(exc.value) and "sha256" in str(exc.value)
    copy.write_bytes(bytes(data[:10]))  # cut short
    with pytest.raises(ConfigError, match="10 bytes") as exc:
        verify(copy, sha256, size)
    assert str(copy) in str(exc.value)


def test_contextual_embedders_match_words_with_wordllama() -> None:
    assert isinstance(word_embedder(get_embedder("minilm")), WordLlamaEmbedder)
    hashed = HashEmbedder(32)
    assert word_embedder(hashed) is hashed


def test_a_local_model_path_is_resolved_against_the_palace_and_searched(
    make_palace: MakePalace,
) -> None:
    files = {
        "notes/project/fruit.md": note_text("Fruit", body="apple pear\n"),
        "notes/project/motor.md": note_text("Motor", body="engine car\n"),
    }
    root = make_palace(files, toml=toml("models/tiny"))
    embedder_model(root / "models" / "tiny", TABLE)
    config = load_config(root)
    assert config.index.embedder == str((root / "models" / "tiny").resolve())
    searcher = Searcher(Palace.open(root))
    assert searcher.store.embedder.dim == 3
    assert searcher.store.state is not None
    assert searcher.store.state.embedder == f"onnx:{(root / 'models' / 'tiny').resolve()}"
    assert searcher.store.embed_query("pear").shape == (3,)
    assert searcher.search("apple", limit=2)[0].path == "notes/project/fruit.md"
    assert searcher.search("engine", limit=2)[0].path == "notes/project/motor.md"


@pytest.mark.parametrize("kind", ["embedder", "reranker"])
@pytest.mark.parametrize(("how", "culprit", "problem"), DAMAGES)
def test_a_bad_local_model_is_an_error_naming_the_file(
    tmp_path: Path, kind: str, how: str, culprit: str, problem: str
) -> None:
    folder = tmp_path / "tiny"
    if kind == "embedder":
        embedder_model(folder, TABLE)
    else:
        cross_encoder_model(folder, {"apple": 1.0})
    damage(folder, how)
    with pytest.raises(ConfigError, match=problem) as exc:
        if kind == "embedder":
            get_embedder(str(folder)).embed(["apple"])
        else:
            Reranker(folder).load()
    assert str(folder / culprit) in str(exc.value)


def test_embedder_config_names_and_paths(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "palace.toml").write_text(toml("bert"))
    with pytest.raises(ConfigError, match=r"embedder must be one of .*minilm, or a model's path"):
        load_config(root)
    (root / "palace.toml").write_text(toml("./m", "dim = 64\n"))
    with pytest.raises(ConfigError, match="dim does not apply to a model's path"):
        load_config(root)
    (root / "palace.toml").write_text(toml("minilm", "dim = 64\n"))
    with pytest.raises(ConfigError, match="dim must be one of 384"):
        load_config(root)
    (root / "palace.toml").write_text(toml("minilm", 'reranker = "ce"\n'))
    config = load_config(root)
    assert config.index.embedder == "minilm"
    assert config.index.reranker == str((root / "ce").resolve())


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(st.text(max_size=300), min_size=1, max_size=12))
def test_any_text_gives_a_unit_or_zero_row(tiny_embedder: OnnxEmbedder, texts: list[str]) -> None:
    vecs = tiny_embedder.embed(texts)
    assert vecs.shape == (len(texts), 3) and np.isfinite(vecs).all()
    norms = np.linalg.norm(vecs, axis=1)
    assert np.all((np.abs(norms - 1.0) < 1e-5) | (norms == 0.0))


@pytest.fixture(scope="module")
def tiny_embedder(tmp_path_factory: pytest.TempPathFactory) -> OnnxEmbedder:
    folder = tmp_path_factory.mktemp("tiny-embedder")
    embedder_model(folder, TABLE)
    emb = get_embedder(str(folder))
    assert isinstance(emb, OnnxEmbedder)
    return emb
