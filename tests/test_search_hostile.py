"""Hostile notes and queries never crash search (issue 11): a palace with files of arbitrary
bytes next to good notes still indexes and answers search, ask, pack and dupes; any query text
(FTS syntax, quotes, control characters) is only words to the index."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from palacehelpers import note_text

from curator.model.palace import Palace
from curator.search.searcher import Searcher

TOML = '[palace]\nname = "t"\ntaxonomy = "palace"\n\n[index]\nembedder = "hash"\ndim = 32\n'
GOOD = {
    "notes/project/webhooks.md": note_text("Stripe webhooks", body="webhook handler dedupes\n"),
    "notes/feedback/tests.md": note_text("Run the tests", type="feedback", body="make test\n"),
}
HEADERISH = st.sampled_from(
    ["---\n", "---\nname: ", "---\nname: x\ntype: project\n", "---\nname: [", "\ufeff---\n"]
)
HOSTILE = st.one_of(
    st.binary(max_size=300),
    st.tuples(HEADERISH, st.text(max_size=200), st.sampled_from(["\n---\n", "", "\n"])).map(
        lambda t: "".join(t).encode("utf-8", "surrogatepass")
    ),
)
QUERIES = st.one_of(
    st.text(max_size=40),
    st.sampled_from(['"unbalanced (', "a AND OR NOT", "*:*", "x' OR 1=1 --", "\x1b[31mred", "[[["]),
)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=st.lists(HOSTILE, min_size=1, max_size=3), queries=st.lists(QUERIES, max_size=4))
def test_hostile_files_and_queries_never_crash_search(
    files: list[bytes], queries: list[str]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "palace"
        for rel, text in GOOD.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        (root / "palace.toml").write_text(TOML)
        (root / "inbox").mkdir()
        for i, data in enumerate(files):
            folder = "notes/project" if i % 2 else "inbox"
            (root / folder / f"hostile-{i}.md").write_bytes(data)
        s = Searcher(Palace.open(root))
        assert s.search("webhook handler")[0].path == "notes/project/webhooks.md"
        for q in queries:
            for hit in s.search(q, drafts=True, include_sensitive=True):
                assert "\x1b" not in hit.snippet and "\x1b" not in hit.name
            s.ask(q)
            if q.strip():
                s.pack(q)
        assert s.dupes("notes/project/webhooks.md") is not None
        shutil.rmtree(root)
