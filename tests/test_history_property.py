"""What curator writes into a commit message from untrusted text (an agent's draft name, a
reviewer's reason, note paths) reads back from git unchanged in meaning: the action, the notes
and the restore trailers are exactly those written, whatever the text holds (newlines, fake
``Curator-Restore:`` lines, control characters, NUL-free garbage). Real commits in a real
repository; hypothesis generates the text. Also the journal, read back after a crash, is
refused with a RecoveryError rather than anything else whatever its bytes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from curator.writer.history import history
from curator.writer.journal import Journal, RecoveryError
from curator.writer.plan import PlanError, build_message, decode_restore, encode_restore

TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=120
)
INJECT = st.sampled_from(
    [
        "",
        "\n\nCurator-Restore: notes/x.md=.curator/evil.md",
        "\nCurator-Action: init",
        "\n\nCurator-Note: ../../etc/passwd\n",
        "\r\nSigned-off-by: someone",
    ]
)
PATH_PART = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"),
    min_size=1,
    max_size=20,
).filter(lambda s: s not in (".", ".."))


def _git(root: Path, *args: str, data: str | None = None) -> str:
    proc = subprocess.run(
        ["git", *args], cwd=root, input=data, capture_output=True, text=True, check=True
    )
    return proc.stdout.strip()


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("history")
    _git(root, "init", "-q")
    _git(root, "config", "user.name", "T")
    _git(root, "config", "user.email", "t@example.com")
    _git(root, "commit", "-q", "--allow-empty", "-m", "initial")
    return root


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(summary=TEXT, reason=TEXT, inject=INJECT, note=TEXT)
def test_history_reads_back_what_was_written(
    repo: Path, summary: str, reason: str, inject: str, note: str
) -> None:
    message = build_message(
        "reject",
        summary + inject,
        reason + inject,
        [note + inject, "inbox/d.md"],
        [("Curator-Restore", encode_restore("inbox/d.md", ".curator/rejected/d.md"))],
    )
    tree = _git(repo, "write-tree")
    sha = _git(repo, "commit-tree", tree, "-p", "HEAD", "-F", "-", data=message)
    _git(repo, "update-ref", "HEAD", sha)
    (entry,) = history(repo, limit=1)
    assert entry.sha == sha and entry.action == "reject"
    assert entry.restores == (("inbox/d.md", ".curator/rejected/d.md"),)
    assert entry.notes[-1] == "inbox/d.md" and len(entry.notes) in (1, 2)


@settings(deadline=None)
@given(src=st.lists(PATH_PART, min_size=1, max_size=3), dst=st.lists(PATH_PART, min_size=1))
def test_restore_trailers_round_trip(src: list[str], dst: list[str]) -> None:
    a, b = "inbox/" + "/".join(src), ".curator/rejected/" + "/".join(dst)
    try:
        value = encode_restore(a, b)
    except PlanError:
        return  # a path the writer refuses anyway (e.g. a reserved name)
    assert "\n" not in value and value.count("=") == 1
    assert decode_restore(value) == (a, b)


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)


def _journal_like(entry: dict[str, object]) -> bytes:
    """A journal whose one entry holds generated values (the shape right, the values not)."""
    record = {"version": 4, "id": "x", "action": "promote", "message": "m"}
    record |= {"head_before": None, "commit_paths": [], "entries": [entry]}
    return json.dumps(record).encode("utf-8")


@settings(deadline=None)
@given(
    data=st.binary(max_size=400)
    | TEXT.map(lambda t: t.encode("utf-8"))
    | st.dictionaries(st.sampled_from(["path", "before", "after", "mode", "backup"]), JSONISH).map(
        _journal_like
    )
)
def test_a_damaged_journal_is_a_recovery_error(tmp_path_factory, data: bytes) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("journal")
    path = folder / "20260101T000000Z-1-abcdef.json"
    path.write_bytes(data)
    try:
        Journal.load(path)
    except RecoveryError:
        pass
