"""`import_lancedb` defers the namespace REST client's package __init__ and nothing breaks.

Runs in a fresh interpreter (the suite has imported lancedb already)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

SCRIPT = """
import sys, tempfile
sys.path.insert(0, {repo!r})
import pyarrow as pa
from curator.search.store import import_lancedb

lancedb = import_lancedb()
name = "lance_namespace_urllib3_client"
assert name + ".api" not in sys.modules, "the API classes were imported"
db = lancedb.connect(tempfile.mkdtemp())
table = db.create_table("t", pa.table({{"text": ["alpha beta", "gamma"]}}))
table.create_fts_index("text")
assert table.search("alpha", query_type="fts").limit(5).to_arrow().num_rows == 1
client = sys.modules[name]
assert client.ApiClient.__name__ == "ApiClient"  # the package's own names still resolve
assert name + ".api" in sys.modules
print("ok")
"""


def test_lancedb_works_with_the_rest_client_deferred(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(repo=str(REPO))],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr
