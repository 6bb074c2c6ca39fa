"""The optional re-ranker: a tiny cross-encoder the tests build themselves, loaded from its
path, scoring pairs, re-ordering the best candidates of a real search, and refusing bad files
with an error naming them."""

from __future__ import annotations

from pathlib import Path

import pytest
from onnxhelpers import cross_encoder_model, embedder_model
from palacehelpers import MakePalace, RunCli, note_text

from curator.errors import ConfigError
from curator.model.palace import Palace
from curator.search.ranking import Tuning
from curator.search.rerank import RERANK_TOP, Reranker
from curator.search.searcher import Searcher

WEIGHTS = {"apple": 2.0, "pear": 1.0, "plum": -1.0}


@pytest.mark.parametrize(("classes", "token_types"), [(1, False), (2, True)])
def test_scores_each_pair(tmp_path: Path, classes: int, token_types: bool) -> None:
    cross_encoder_model(tmp_path / "ce", WEIGHTS, classes=classes, token_types=token_types)
    reranker = Reranker(tmp_path / "ce")
    texts = ["an apple a day", "pear and apple apple", "plum", "nothing known"]
    # the query's own tokens count too: "fruit" is unknown (0), "pear" adds 1 to every pair
    assert reranker.scores("fruit", texts).tolist() == [2.0, 5.0, -1.0, 0.0]
    assert reranker.scores("pear", texts).tolist() == [3.0, 6.0, 0.0, 1.0]


def test_rerank_reorders_the_top_and_keeps_the_scores_in_order(tmp_path: Path) -> None:
    cross_encoder_model(tmp_path / "ce", WEIGHTS)
    reranker = Reranker(tmp_path / "ce")
    scored = [("a", 0.9), ("b", 0.8), ("c", 0.5), ("d", 0.4)]
    out = reranker.rerank("q", scored, ["plum", "nothing", "apple", "pear"])
    assert out == [("c", 0.9), ("d", 0.8), ("b", 0.5), ("a", 0.4)]
    # ties keep the fused order; only the first RERANK_TOP are read
    long = [(f"n{i:03}", 1.0 - i / 100) for i in range(RERANK_TOP + 5)]
    texts = ["nothing"] * (RERANK_TOP - 1) + ["apple"]
    out = reranker.rerank("q", long, texts)
    assert out[0] == (f"n{RERANK_TOP - 1:03}", 1.0)
    assert [p for p, _ in out[1:RERANK_TOP]] == [f"n{i:03}" for i in range(RERANK_TOP - 1)]
    assert out[RERANK_TOP:] == long[RERANK_TOP:]
    assert reranker.rerank("q", long[:1], ["apple"]) == long[:1]


def test_search_with_a_reranker_configured(make_palace: MakePalace) -> None:
    body = "The orchard grows fruit: {}.\n"
    files = {
        "notes/project/plums.md": note_text("Orchard fruit plum", body=body.format("plum")),
        "notes/project/pears.md": note_text("Orchard fruit pear", body=body.format("pear")),
        "notes/project/apples.md": note_text("Orchard fruit apple", body=body.format("apple")),
    }
    toml = '[palace]\nname = "t"\n\n[index]\nembedder = "hash"\ndim = 64\nreranker = "ce"\n'
    root = make_palace(files, toml=toml)
    # the fused scores tie (the path breaks them: apples first); the model puts plums first
    cross_encoder_model(root / "ce", {"plum": 3.0, "pear": 2.0, "apple": 1.0})
    searcher = Searcher(Palace.open(root))
    ranked = [h.path for h in searcher.search("orchard fruit", limit=3)]
    assert ranked == ["notes/project/plums.md", "notes/project/pears.md", "notes/project/apples.md"]
    scores = [h.score for h in searcher.search("orchard fruit", limit=3)]
    assert scores == sorted(scores, reverse=True)
    searcher.tuning = Tuning(rerank=False)
    plain = [h.path for h in searcher.search("orchard fruit", limit=3)]
    assert sorted(plain) == sorted(ranked) and plain != ranked  # the same hits, other order


def test_a_model_that_is_not_a_cross_encoder_is_refused(tmp_path: Path) -> None:
    embedder_model(tmp_path / "enc", {"apple": [1.0, 0.0, 0.0]})  # (batch, tokens, 3)
    with pytest.raises(ConfigError, match="not a cross-encoder") as exc:
        Reranker(tmp_path / "enc").scores("q", ["apple", "pear"])
    assert str(tmp_path / "enc" / "model.onnx") in str(exc.value)


def test_the_cli_reports_a_bad_reranker_path(make_palace: MakePalace, run_cli: RunCli) -> None:
    toml = '[palace]\nname = "t"\n\n[index]\nembedder = "hash"\ndim = 64\nreranker = "nope"\n'
    files = {
        "notes/project/a.md": note_text("Apple notes", body="apple\n"),
        "notes/project/b.md": note_text("Apple pie", body="apple pie\n"),
    }
    root = make_palace(files, toml=toml)
    code, _out, err = run_cli("--palace", str(root), "search", "apple")
    assert code == 2
    assert f"{(root / 'nope').resolve()}: no ONNX model" in err
