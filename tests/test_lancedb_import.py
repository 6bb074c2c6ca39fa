"""What importing search costs: the filter flags and the writer hook come without numpy or
LanceDB (so `curator list` and every CLI start stay light), and LanceDB imports plainly.

Runs in a fresh interpreter (the suite has imported lancedb already)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

LIGHT = """
import sys
sys.path.insert(0, {repo!r})
import argparse
from curator.search.hooks import sync_after_commit
from curator.cli.filter_flags import add_filter_flags, filter_from_args
from curator.search.filters import Filter
parser = argparse.ArgumentParser()
add_filter_flags(parser)
args = parser.parse_args(["--type", "feedback", "--type", "user", "--not-stale"])
flt = filter_from_args(args, None)
assert flt.types == ("feedback", "user") and flt.stale is False
assert flt.ok({{"type": "user", "kind": "note", "stale": False}})
heavy = sorted(m for m in ("numpy", "pyarrow", "lancedb", "rapidfuzz") if m in sys.modules)
print(heavy)
"""

PLAIN = """
import sys, tempfile
sys.path.insert(0, {repo!r})
from curator.search.docs import IndexDoc
from curator.search.embed import HashEmbedder
from curator.search.store import IndexStore
store = IndexStore.open(tempfile.mkdtemp(), HashEmbedder(32))
store.writer.sync([IndexDoc(path="notes/a.md", slug="a", name="alpha beta", body="gamma")], None)
assert [r["path"] for r in store.fts("alpha", 5)] == ["notes/a.md"]
print("ok")
"""


def _run(script: str, cwd: Path) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", script.format(repo=str(REPO))],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_filters_and_hooks_import_nothing_heavy(tmp_path: Path) -> None:
    assert _run(LIGHT, tmp_path) == "[]"


def test_lancedb_imports_plainly_and_works(tmp_path: Path) -> None:
    assert _run(PLAIN, tmp_path) == "ok"
