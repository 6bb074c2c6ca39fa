"""Tiny ONNX models the tests build themselves (the onnx package's helper API) with a WordLevel
tokenizer saved to tokenizer.json: a token-embedding "sentence encoder" and a cross-encoder
whose score of a pair is the sum of its tokens' weights."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from tokenizers import Tokenizer
from tokenizers.models import WordLevel
from tokenizers.pre_tokenizers import Whitespace
from tokenizers.processors import TemplateProcessing

if TYPE_CHECKING:
    import onnx

# onnx is imported where a model is built, not with this module: the test modules that
# import this one are imported by every xdist worker, most of which never build a model

SPECIAL = ("[PAD]", "[UNK]", "[CLS]", "[SEP]")


def save_tokenizer(folder: Path, words: Sequence[str]) -> dict[str, int]:
    """A lower-casing WordLevel tokenizer over SPECIAL + `words`, as folder/tokenizer.json."""
    from tokenizers.normalizers import Lowercase

    vocab = {w: i for i, w in enumerate([*SPECIAL, *words])}
    tok = Tokenizer(WordLevel(vocab, unk_token="[UNK]"))
    tok.normalizer = Lowercase()
    tok.pre_tokenizer = Whitespace()
    tok.post_processor = TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    folder.mkdir(parents=True, exist_ok=True)
    tok.save(str(folder / "tokenizer.json"))
    return vocab


def _save(folder: Path, graph: onnx.GraphProto) -> Path:
    import onnx
    from onnx import helper

    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # read by every onnxruntime the extras allow
    onnx.checker.check_model(model)
    path = folder / "model.onnx"
    onnx.save(model, str(path))
    return path


def _inputs(token_types: bool) -> list[onnx.ValueInfoProto]:
    from onnx import TensorProto, helper

    names = ["input_ids", "attention_mask"] + (["token_type_ids"] if token_types else [])
    return [helper.make_tensor_value_info(n, TensorProto.INT64, ["b", "s"]) for n in names]


def embedder_model(folder: Path, table: Mapping[str, Sequence[float]]) -> Path:
    """A "sentence encoder" giving each token its row of `table` (words not in it: zeros) as
    the last hidden state; curator's mean pooling makes the sentence vector."""
    from onnx import TensorProto, helper, numpy_helper

    words = list(table)
    vocab = save_tokenizer(folder, words)
    dim = len(next(iter(table.values())))
    weights = np.zeros((len(vocab), dim), dtype=np.float32)
    for word, row in table.items():
        weights[vocab[word]] = row
    graph = helper.make_graph(
        [helper.make_node("Gather", ["table", "input_ids"], ["last_hidden_state"])],
        "tiny-encoder",
        _inputs(token_types=True),
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["b", "s", dim])],
        [numpy_helper.from_array(weights, "table")],
    )
    return _save(folder, graph)


def cross_encoder_model(
    folder: Path, weights: Mapping[str, float], *, classes: int = 1, token_types: bool = False
) -> Path:
    """A cross-encoder: a pair's logit is the sum of its real tokens' weights (query and text
    alike); with classes=2 it gives [0, that sum] per pair ("not relevant", "relevant")."""
    from onnx import TensorProto, helper, numpy_helper

    vocab = save_tokenizer(folder, list(weights))
    column = np.zeros((len(vocab), 1), dtype=np.float32)
    for word, w in weights.items():
        column[vocab[word], 0] = w
    nodes = [
        helper.make_node("Gather", ["w", "input_ids"], ["per_token"]),
        helper.make_node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["mask_f", "axis2"], ["mask3"]),
        helper.make_node("Mul", ["per_token", "mask3"], ["masked"]),
        helper.make_node("ReduceSum", ["masked", "axis1"], ["logit"], keepdims=0),
    ]
    init = [
        numpy_helper.from_array(column, "w"),
        numpy_helper.from_array(np.asarray([2], dtype=np.int64), "axis2"),
        numpy_helper.from_array(np.asarray([1], dtype=np.int64), "axis1"),
    ]
    out = "logit"
    if classes == 2:
        nodes += [
            helper.make_node("Mul", ["logit", "zero"], ["zeros"]),
            helper.make_node("Concat", ["zeros", "logit"], ["logits"], axis=1),
        ]
        init.append(numpy_helper.from_array(np.asarray([0.0], dtype=np.float32), "zero"))
        out = "logits"
    graph = helper.make_graph(
        nodes,
        "tiny-cross-encoder",
        _inputs(token_types),
        [helper.make_tensor_value_info(out, TensorProto.FLOAT, ["b", classes])],
        init,
    )
    return _save(folder, graph)


# How a model folder is damaged, with the file an error must name and the problem it must say.
DAMAGES = [
    ("missing", "model.onnx", "no ONNX model"),
    ("garbage model", "model.onnx", "not a usable ONNX model"),
    ("garbage tokenizer", "tokenizer.json", "not a tokenizer file"),
    ("no tokenizer", "model.onnx", "no tokenizer.json"),
]


def damage(folder: Path, how: str) -> None:
    """Damage a model folder built by this module the way DAMAGES names."""
    if how == "missing":
        (folder / "model.onnx").unlink()
    elif how == "garbage model":
        (folder / "model.onnx").write_bytes(np.arange(64, dtype=np.uint8).tobytes())
    elif how == "garbage tokenizer":
        (folder / "tokenizer.json").write_text("{not json")
    else:
        (folder / "tokenizer.json").unlink()


# Models whose output no caller can use, each the way an export goes wrong: (name, nodes
# from input_ids to "out", the output's element type and shape).
WRONG_OUTPUTS = ("integers", "text", "four dimensions", "a scalar", "one row for all")


def wrong_model(folder: Path, how: str, words: Sequence[str] = ("apple", "pear")) -> Path:
    """A model taking text (input_ids, attention_mask) whose first output is wrong `how`."""
    from onnx import TensorProto, helper, numpy_helper

    save_tokenizer(folder, words)
    as_float = helper.make_node("Cast", ["input_ids"], ["f"], to=TensorProto.FLOAT)
    init = [numpy_helper.from_array(np.asarray([2, 3], dtype=np.int64), "axes23")]
    kind, shape = TensorProto.FLOAT, ["b", "s"]
    if how == "integers":
        nodes = [helper.make_node("Identity", ["input_ids"], ["out"])]
        kind = TensorProto.INT64
    elif how == "text":
        nodes = [helper.make_node("Cast", ["input_ids"], ["out"], to=TensorProto.STRING)]
        kind = TensorProto.STRING
    elif how == "four dimensions":
        nodes = [as_float, helper.make_node("Unsqueeze", ["f", "axes23"], ["out"])]
        shape = ["b", "s", 1, 1]
    elif how == "a scalar":
        nodes = [as_float, helper.make_node("ReduceSum", ["f"], ["out"], keepdims=0)]
        shape = []
    else:  # "one row for all": the batch summed away
        init.append(numpy_helper.from_array(np.asarray([0], dtype=np.int64), "axis0"))
        nodes = [as_float, helper.make_node("ReduceSum", ["f", "axis0"], ["out"], keepdims=1)]
        shape = [1, "s"]
    graph = helper.make_graph(
        nodes,
        f"wrong-{how}",
        _inputs(token_types=False),
        [helper.make_tensor_value_info("out", kind, shape)],
        init,
    )
    return _save(folder, graph)
