"""Bad input ends no whole command: a record an import cannot write (a lone surrogate, text
cut mid-emoji) is reported by its line and the rest are imported; a `capture` argument whose
bytes are not UTF-8 is refused naming the argument; an ONNX embedder or re-ranker whose
output has the wrong shape or type is refused naming the file and the shape expected. Each
exits 2 (or 1: ran, some records failed), never 3."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnxhelpers import WRONG_OUTPUTS, wrong_model
from palacehelpers import MakePalace, RunCli, note_text

from curator.errors import ConfigError
from curator.search.embed import get_embedder
from curator.search.rerank import Reranker

TOML = '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[index]\nembedder = "hash"\ndim = 64\n'
SURROGATES = ["\\ud83d", "\\ude00", "\\udcff", "\\ud800"]
FIELDS = {
    "jsonl": ["text", "name", "description", "tags", "scope", "context", "source"],
    "mem0": ["memory", "categories", "metadata"],
}


def _record(store: str, i: int, field: str | None, bad: str) -> str:
    """Record `i` of `store`, its `field` holding `bad` (a JSON escape) when given."""
    text = f"memory number {i} about wombats"
    obj: dict[str, object] = (
        {"text": text, "name": f"Wombat {i}"}
        if store == "jsonl"
        else {"memory": text, "id": str(i)}
    )
    line = json.dumps(obj)
    if field is None:
        return line
    value = {"tags": f'["a{bad}"]', "categories": f'["a{bad}"]', "metadata": f'{{"k": "a{bad}"}}'}
    raw = value.get(field, f'"cut {bad} here"')
    if field in ("text", "memory", "name"):
        line = line.replace(f'"{field}": "', f'"{field}": "{bad}', 1)
        return line
    return line[:-1] + f', "{field}": {raw}}}'


@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    store=st.sampled_from(sorted(FIELDS)),
    data=st.data(),
    bad=st.sampled_from(SURROGATES),
    where=st.sets(st.integers(1, 5), min_size=1, max_size=3),
)
def test_one_bad_record_is_reported_and_the_rest_imported(
    make_palace: MakePalace,
    run_cli: RunCli,
    store: str,
    data: st.DataObject,
    bad: str,
    where: set[int],
) -> None:
    field = data.draw(st.sampled_from(FIELDS[store]))
    root = make_palace({}, toml=TOML)
    lines = [_record(store, i, field if i in where else None, bad) for i in range(1, 6)]
    export = root.parent / f"{root.name}.jsonl"
    export.write_text("\n".join(lines) + "\n")
    code, out, err = run_cli(
        "--palace", root, "import", store, export, "--type", "project", "--json"
    )
    assert code == 1, err
    summary = json.loads(out)
    assert summary["imported"] == 5 - len(where)
    assert sorted(f["line"] for f in summary["failed"]) == sorted(where)
    assert all("surrogate" in f["message"] for f in summary["failed"])


@pytest.mark.parametrize("flag", ["--name", "--tags", "--source", "--description", "--scope"])
def test_capture_names_the_argument_that_is_not_utf8(make_palace: MakePalace, flag: str) -> None:
    root = make_palace({}, toml=TOML)
    args = [sys.executable, "-m", "curator", "--palace", str(root), "capture"]
    args += ["--type", "project", "--name", "Wombat", flag, b"bad \xff\xfe bytes"]  # type: ignore[list-item]
    proc = subprocess.run(args, input=b"A body.\n", capture_output=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert f"{flag} is not valid UTF-8".encode() in proc.stderr
    assert not list((root / "inbox").iterdir())


@pytest.mark.parametrize("how", WRONG_OUTPUTS)
@pytest.mark.parametrize("kind", ["embedder", "reranker"])
def test_a_model_with_the_wrong_output_is_refused_naming_it(
    tmp_path: Path, make_palace: MakePalace, run_cli: RunCli, kind: str, how: str
) -> None:
    model = wrong_model(tmp_path / "model", how)
    with pytest.raises(ConfigError, match="expected") as exc:
        if kind == "embedder":
            get_embedder(str(model.parent)).embed(["apple pear", "pear"])
        else:
            Reranker(model.parent).scores("apple", ["apple pear", "pear"])
    assert str(model) in str(exc.value) and "shape" in str(exc.value)
    line = f'{kind} = "{model.parent}"\n'
    hashed = 'embedder = "hash"\ndim = 64\n'
    toml = TOML.replace(hashed, line) if kind == "embedder" else TOML + line
    files = {f"notes/project/{w}.md": note_text(f"Apple {w}", body=f"apple {w}\n") for w in "ab"}
    root = make_palace(files, toml=toml)
    code, _, err = run_cli("--palace", root, "search", "apple")
    assert code == 2, err
    assert str(model) in err and "expected" in err
